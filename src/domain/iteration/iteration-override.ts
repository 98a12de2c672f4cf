// Iteration overrides (spec: PUT /projects/{id}/iteration_overrides/{number}): an iteration's own length
// (1-99 weeks) and team strength (1 = the full team). They apply to the current and done iterations only
// (facts §7.1); a later iteration is refused, as is iteration 0 or a non-integer. `null` returns a value
// to the project's default. Length 0 on the CURRENT iteration ends it, as Tracker did (scripts close an
// iteration so): it lasts zero weeks, so the next number starts where it started and is current at
// once; the weeks are unchanged, every later iteration's number moves up by one, and the ended one is
// done and empty (stories accepted in the weeks since its start belong to the next). Done iterations
// keep 1-99. One `iteration_update` event on the project stream: the first override of a
// number creates its document (with an id of its own, unique in the collection), later ones update it;
// a document whose values are all back to default stays, holding only its number, and counts as none.
import type { IterationOverrideDoc, ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError, invalidField, invalidParameter, type ValidationError } from '../errors.js';
import type { DecidedChange, Values, ResourceChange, ChangeValues } from '../events.js';
import { iterationNumberAt, projectIterationCalendar, type IterationOverride } from './iteration-calendar.js';

export const OVERRIDE_LENGTH_MAX = 99;
export const TEAM_STRENGTH_MAX = 10;

export interface SetIterationOverride {
  number: number;
  /** The request body: `length` and / or `team_strength`. */
  request: Record<string, unknown>;
}

/** The override as the API shows it (spec: iteration_override), defaults filled in. */
export interface IterationOverrideView {
  kind: 'iteration_override';
  number: number;
  project_id: number;
  length: number;
  team_strength: number;
}

const OVERRIDE_KEYS = ['length', 'team_strength'] as const;

/** The stored overrides of a project stream, by iteration number. */
export function overridesOf(state: ProjectState): IterationOverride[] {
  return [...state.iterationOverrides].map(overrideFromDoc);
}

/** An override document (stream state or read model) as calendar input. */
export function overrideFromDoc(doc: Readonly<Record<string, unknown>>): IterationOverride {
  const override: IterationOverride = { number: Number(doc['number']) };
  if (typeof doc['length'] === 'number') override.length = doc['length'];
  if (typeof doc['team_strength'] === 'number') override.team_strength = doc['team_strength'];
  return override;
}

/** The earliest accepted_at of the stream's stories, undefined when none is accepted. */
export function earliestAcceptance(state: ProjectState): number | undefined {
  let earliest: number | undefined;
  for (const story of state.stories) {
    if (typeof story.accepted_at === 'number' && (earliest === undefined || story.accepted_at < earliest)) earliest = story.accepted_at;
  }
  return earliest;
}

export function decideSetIterationOverride(command: SetIterationOverride, state: ProjectState, context: DecisionContext): Decision {
  const project = state.project();
  const number = command.number;
  if (!Number.isSafeInteger(number) || number < 1) throw invalidField('number', 'The iteration number must be an integer of 1 or more.');
  const overrides = overridesOf(state);
  const current = iterationNumberAt(projectIterationCalendar(project, overrides, earliestAcceptance(state)), context.now);
  if (number > current) {
    throw invalidField('number', `Iteration ${number} has not started: overrides apply to the current iteration (${current}) and done ones.`);
  }
  const values = requestedValues(command.request, project, number === current);
  const existing = [...state.iterationOverrides].find((doc) => doc['number'] === number);
  const change: DecidedChange = existing
    ? updateChange(existing, values)
    : { kind: 'iteration_override', change_type: 'create', id: context.nextId('iteration_override'), new_values: { number, ...nonNull(values) } };
  return {
    type: 'iteration_update',
    data: { changes: [change], primary_resources: [{ kind: 'project', id: project.id, name: String(project['name']) }] },
    subject: { kind: 'iteration_override', id: change.id },
  };
}

/** Settings that move every iteration boundary: changing them resets the overrides (facts §7.1). */
export const OVERRIDE_RESETTING_SETTINGS = ['start_date', 'week_start_day'] as const;

/**
 * The changes a project settings update makes to the overrides: when it changes the start date or the
 * week start day, every override still holding a value goes back to default, in the same event.
 */
export function overrideResets(state: ProjectState, changedSettings: Readonly<Values>): DecidedChange[] {
  if (!OVERRIDE_RESETTING_SETTINGS.some((key) => key in changedSettings)) return [];
  const resets: DecidedChange[] = [];
  for (const doc of state.iterationOverrides) {
    const held = OVERRIDE_KEYS.filter((key) => doc[key] !== undefined && doc[key] !== null);
    if (held.length === 0) continue;
    resets.push(updateChange(doc, Object.fromEntries(held.map((key) => [key, null]))));
  }
  return resets;
}

/** The override the API shows after the event: stored values, or the project's defaults. */
export function iterationOverrideView(project: Readonly<Record<string, unknown>> & { id: number }, override: IterationOverride): IterationOverrideView {
  return {
    kind: 'iteration_override',
    number: override.number,
    project_id: project.id,
    length: override.length ?? (typeof project['iteration_length'] === 'number' ? project['iteration_length'] : 1),
    team_strength: override.team_strength ?? 1,
  };
}

/** The values the request sets (null = back to default); every other key is refused. */
function requestedValues(request: Record<string, unknown>, project: Readonly<Record<string, unknown>>, isCurrent: boolean): Values {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new DomainError('invalid_parameter', { general_problem: 'The body must be an object with length and / or team_strength.' });
  }
  const problems: ValidationError[] = [];
  for (const key of Object.keys(request)) {
    if (!(OVERRIDE_KEYS as readonly string[]).includes(key)) problems.push({ field: key, problem: `'${key}' is not an attribute of an iteration override.` });
  }
  const values: Values = {};
  if ('length' in request) {
    const length = request['length'];
    if (length === null || length === project['iteration_length']) values['length'] = null;
    else if (typeof length !== 'number' || !Number.isInteger(length)) problems.push({ field: 'length', problem: "'length' must be an integer value" });
    else if (length === 0 && isCurrent) values['length'] = 0; // ends the current iteration
    else if (length < 1 || length > OVERRIDE_LENGTH_MAX) problems.push({ field: 'length', problem: lengthProblem(isCurrent) });
    else values['length'] = length;
  }
  if ('team_strength' in request) {
    const strength = request['team_strength'];
    if (strength === null || strength === 1) values['team_strength'] = null;
    else if (typeof strength !== 'number' || !Number.isFinite(strength)) problems.push({ field: 'team_strength', problem: "'team_strength' must be a number" });
    else if (strength < 0 || strength > TEAM_STRENGTH_MAX) problems.push({ field: 'team_strength', problem: `team_strength can only be between 0 and ${TEAM_STRENGTH_MAX}.` });
    else values['team_strength'] = strength;
  }
  if (problems.length > 0) throw invalidParameter(problems);
  if (Object.keys(values).length === 0) {
    throw new DomainError('invalid_parameter', {
      general_problem: 'this endpoint requires at least one of the following parameters: length, team_strength',
    });
  }
  return values;
}

function lengthProblem(isCurrent: boolean): string {
  return isCurrent
    ? `length can only be between 1 and ${OVERRIDE_LENGTH_MAX}, or 0 to end the current iteration.`
    : `length can only be between 1 and ${OVERRIDE_LENGTH_MAX}.`;
}

function nonNull(values: Values): Values {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null));
}

/** An update naming the iteration (for the feed) with the values that change; none change: only the number. */
function updateChange(existing: IterationOverrideDoc, values: ChangeValues<'iteration_override'>): ResourceChange<'iteration_override'> {
  const original: ChangeValues<'iteration_override'> = {};
  const next: ChangeValues<'iteration_override'> = { number: existing['number'] };
  for (const [key, value] of Object.entries(values)) {
    if ((existing[key] ?? null) === value) continue;
    original[key] = existing[key] ?? null;
    next[key] = value;
  }
  return { kind: 'iteration_override', change_type: 'update', id: existing.id, original_values: original, new_values: next };
}
