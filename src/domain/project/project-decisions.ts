// Decisions on a project stream about the project itself: create, update settings, delete.
// Every decision is one event; the project's version is the stream's event count. A new project starts
// with its owner's membership and Tracker's default review types (review/review-state.ts).
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError, invalidParameter, type ValidationError } from '../errors.js';
import type { EventType, DecidedChange, ChangeValues } from '../events.js';
import { membershipCreateChange, type NewMembership } from './membership-decisions.js';
import { applySettings, defaultSettings, PROJECT_NAME_MAX_LENGTH } from './project-settings.js';
import { overrideResets } from '../iteration/iteration-override.js';
import { defaultReviewTypes, reviewTypeCreateChange } from '../review/review-state.js';

export interface CreateProject {
  /** Allocated by the caller: it names the stream. */
  projectId: number;
  accountId: number;
  /** The requested name and settings (keys the spec lists; others are ignored). */
  request: Record<string, unknown>;
  /** The person who becomes owner, or null (`no_owner`). */
  owner: { personId: number; name?: string } | null;
  /**
   * Names of the other live projects in the same account, read from the projects read model. Two
   * concurrent creates with the same name can both pass this check (accepted race, see ADR in README).
   */
  takenNames: readonly string[];
}

export interface UpdateProject {
  request: Record<string, unknown>;
  takenNames: readonly string[];
}

export const NAME_TAKEN = 'The project name you entered is already taken.';

export function decideCreateProject(command: CreateProject, state: ProjectState, context: DecisionContext): Decision {
  if (state.version > 0) throw new DomainError('duplicate_entry', { general_problem: 'The project already exists.' });
  if (!('name' in command.request) || command.request['name'] === null || command.request['name'] === undefined) {
    throw new DomainError('invalid_parameter', {
      general_problem: 'this endpoint requires the parameter: name',
      validation_errors: [{ field: 'name', problem: "Name can't be blank" }],
    });
  }
  const outcome = applySettings(defaultSettings(context.now), command.request, context.now);
  const problems = [...outcome.problems, ...nameUniqueness(outcome.values['name'], command.takenNames)];
  if (problems.length > 0) throw settingsRejected(problems, command.request);
  const project: ChangeValues<'project'> = {
    ...defaultSettings(context.now),
    ...outcome.values,
    id: command.projectId,
    account_id: command.accountId,
    created_at: context.now,
    updated_at: context.now,
  };
  const name = String(project['name']);
  const changes: DecidedChange[] = [
    { kind: 'project', change_type: 'create', id: command.projectId, name, new_values: project },
  ];
  if (command.owner) {
    const owner: NewMembership = { personId: command.owner.personId, role: 'owner' };
    changes.push(membershipCreateChange(command.projectId, context.nextId('project_membership'), owner, context.now, 0, command.owner.name));
  }
  changes.push(...defaultReviewTypes(command.projectId, () => context.nextId('review_type'), context.now).map(reviewTypeCreateChange));
  return {
    type: 'project_create',
    data: { changes, primary_resources: [{ kind: 'project', id: command.projectId, name }] },
    subject: { kind: 'project', id: command.projectId },
  };
}

export function decideUpdateProject(command: UpdateProject, state: ProjectState, context: DecisionContext): Decision {
  const project = state.project();
  const outcome = applySettings(project, command.request, context.now);
  const problems = [...outcome.problems];
  if (typeof outcome.values['name'] === 'string' && outcome.values['name'] !== project['name']) {
    problems.push(...nameUniqueness(outcome.values['name'], command.takenNames));
  }
  if (problems.length > 0) throw settingsRejected(problems, command.request);
  const original: ChangeValues<'project'> = {};
  const changed: ChangeValues<'project'> = {};
  for (const [key, value] of Object.entries(outcome.values)) {
    if (JSON.stringify(project[key] ?? null) === JSON.stringify(value ?? null)) continue;
    original[key] = project[key] ?? null;
    changed[key] = value;
  }
  original['updated_at'] = project['updated_at'] ?? null;
  changed['updated_at'] = context.now;
  const name = String(changed['name'] ?? project['name']);
  const decision = projectEvent('project_update', {
    kind: 'project',
    change_type: 'update',
    id: project.id,
    name,
    original_values: original,
    new_values: changed,
  });
  decision.data.changes.push(...overrideResets(state, changed));
  return decision;
}

/** Deleting a project needs nothing but the stream it is decided on. */
export type DeleteProject = Record<never, never>;

/** Deletes the project and, in the same event, its memberships (so read models drop them). */
export function decideDeleteProject(_command: DeleteProject, state: ProjectState, _context: DecisionContext): Decision {
  const project = state.project();
  const name = String(project['name']);
  const changes: DecidedChange[] = [
    { kind: 'project', change_type: 'delete', id: project.id, name },
    ...[...state.memberships].map(
      (membership): DecidedChange => ({ kind: 'project_membership', change_type: 'delete', id: membership.id }),
    ),
  ];
  return {
    type: 'project_delete',
    data: { changes, primary_resources: [{ kind: 'project', id: project.id, name }] },
    subject: { kind: 'project', id: project.id },
  };
}

function projectEvent(type: EventType, change: DecidedChange): Decision {
  return {
    type,
    data: { changes: [change], primary_resources: [{ kind: 'project', id: change.id, name: change.name ?? '' }] },
    subject: { kind: 'project', id: change.id },
  };
}

/** Case-insensitive: "Alpha" and "alpha " are the same name. */
function nameUniqueness(name: unknown, takenNames: readonly string[]): ValidationError[] {
  if (typeof name !== 'string') return [];
  const wanted = name.trim().toLowerCase();
  return takenNames.some((taken) => taken.trim().toLowerCase() === wanted) ? [{ field: 'name', problem: NAME_TAKEN }] : [];
}

/**
 * A rejected settings request. A too-long name answers as recorded (facts §4.3): the limit in
 * `requirement`, and `general_problem` "This extended_string is too long:  '<the name sent>'" (two
 * spaces, as the service wrote it).
 */
function settingsRejected(problems: ValidationError[], request: Record<string, unknown>): DomainError {
  const error = invalidParameter(problems);
  const nameProblem = problems.find((p) => p.field === 'name' && p.problem.includes(`${PROJECT_NAME_MAX_LENGTH} characters`));
  if (!nameProblem) return error;
  return new DomainError('invalid_parameter', {
    ...error.details,
    general_problem: `This extended_string is too long:  '${String(request['name'])}'`,
    requirement: nameProblem.problem,
  });
}
