// GET /projects/{id}/iterations and /iterations/{number} (spec "Iterations", facts §3, §7): done
// iterations from the accepted stories of their span, Current and Backlog planned from the ordered open
// stories by velocity, each as a plain iteration document with the spec's keys (datetimes in ms, the
// embedded `stories` as `stories` read-model documents), plus the project's derived planning facts.
import { invalidField, unfound } from '../../domain/errors.js';
import { iterationSpan, type IterationSpan } from '../../domain/iteration/iteration-calendar.js';
import { byAcceptance, planIterations, totalPoints, type PlanStory, type PlannedIteration } from '../../domain/iteration/iteration-plan.js';
import { effectivePoints } from '../../domain/iteration/velocity.js';
import { normalizedLabelName } from '../../domain/project-state.js';
import { openPlanKey } from '../../projections/iterations/iteration-stories-projection.js';
import type { StoryReadDoc } from '../../projections/documents.js';
import {
  acceptedBetween,
  doneHistory,
  doneIteration,
  historyCovers,
  loadTimeline,
  velocityDuring,
  type DoneHistory,
  type IterationReads,
  type IterationTimeline,
} from './iteration-timeline.js';

export const ITERATION_SCOPES = ['done', 'current', 'backlog', 'current_backlog', 'done_current'] as const;
export type IterationScope = (typeof ITERATION_SCOPES)[number];

/** Facts §3: iterations page 10 at a time; larger limits are reduced to 500, as story lists are. */
export const DEFAULT_ITERATION_LIMIT = 10;
export const MAX_ITERATION_LIMIT = 500;

export interface IterationDoc {
  kind: 'iteration';
  number: number;
  project_id: number;
  length: number;
  team_strength: number;
  /** ms */
  start: number;
  /** ms */
  finish: number;
  /** `stories` read-model documents, in the iteration's order. */
  stories: StoryReadDoc[];
  story_ids: number[];
  velocity: number;
  points: number;
  accepted_points: number;
  effective_points: number;
}

export interface IterationListRequest {
  projectId: number;
  /** Absent: every iteration, done ones included. */
  scope?: IterationScope;
  /** Negative only with `done`: counts back from Current. */
  offset: number;
  limit: number;
  now: number;
  /** A label name: the embedded stories are those carrying it (facts §2.2); the iterations stay whole. */
  label?: string;
}

/** A page and what the pagination headers say. */
export interface IterationPage {
  iterations: IterationDoc[];
  total: number;
  offset: number;
  limit: number;
  returned: number;
}

/** The project attributes derived from its iterations (spec: project start_time, current_iteration_number; facts: current_velocity). */
export interface ProjectIterationFacts {
  start_time: number;
  current_iteration_number: number;
  current_velocity: number;
}

/** Validated list parameters from a query string (strings or numbers); invalid_parameter naming the key. */
export function iterationListParams(query: { scope?: unknown; offset?: unknown; limit?: unknown }): {
  scope?: IterationScope;
  offset: number;
  limit: number;
} {
  const scope = query.scope === undefined || query.scope === '' ? undefined : query.scope;
  if (scope !== undefined && !(ITERATION_SCOPES as readonly unknown[]).includes(scope)) {
    throw invalidField('scope', `scope must be one of ${ITERATION_SCOPES.join(', ')}.`);
  }
  const offset = query.offset === undefined ? 0 : integerParam('offset', query.offset);
  if (offset < 0 && scope !== 'done') throw invalidField('offset', 'A negative offset is only allowed with scope done.');
  const limit = query.limit === undefined ? DEFAULT_ITERATION_LIMIT : integerParam('limit', query.limit);
  if (limit < 1) throw invalidField('limit', 'limit must be 1 or more.');
  return { ...(scope === undefined ? {} : { scope: scope as IterationScope }), offset, limit: Math.min(limit, MAX_ITERATION_LIMIT) };
}

/** An iteration number from a path: an integer of 1 or more. */
export function iterationNumberParam(value: unknown): number {
  const number = integerParam('number', value);
  if (number < 1) throw invalidField('number', 'Iteration numbers start at 1.');
  return number;
}

function integerParam(key: string, value: unknown): number {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number)) throw invalidField(key, `'${key}' must be an integer value`);
  return number;
}

export async function listIterations(reads: IterationReads, request: IterationListRequest): Promise<IterationPage> {
  const timeline = await loadTimeline(reads, request.projectId, request.now);
  const current = timeline.currentNumber;
  const planned = request.scope === 'done' ? null : await planOf(reads, timeline);
  const plan = planned?.plan ?? [];
  const lastPlanned = current + Math.max(plan.length, 1) - 1;
  const [first, last] = scopeRange(request.scope, current, lastPlanned);
  const total = Math.max(0, last - first + 1);
  const skip = request.offset < 0 ? Math.max(0, total + request.offset) : request.offset;
  const from = first + skip;
  const to = Math.min(last, from + request.limit - 1);
  const all = from <= to ? await iterationDocs(reads, timeline, plan, from, to, planned?.history) : [];
  const iterations = request.label === undefined ? all : withLabel(all, await labelIdNamed(reads, request.projectId, request.label));
  return { iterations, total, offset: request.offset, limit: request.limit, returned: iterations.length };
}

/** One iteration; unfound beyond the last planned one. */
export async function getIteration(reads: IterationReads, request: { projectId: number; number: number; now: number }): Promise<IterationDoc> {
  const timeline = await loadTimeline(reads, request.projectId, request.now);
  const planned = request.number >= timeline.currentNumber ? await planOf(reads, timeline) : null;
  const plan = planned?.plan ?? [];
  assertIterationExists(timeline, plan, request.number);
  const [iteration] = await iterationDocs(reads, timeline, plan, request.number, request.number, planned?.history);
  return iteration!;
}

/** unfound_resource for a number past the last iteration (the last Backlog one, or Current). */
export function assertIterationExists(timeline: IterationTimeline, plan: readonly PlannedIteration[], number: number): void {
  if (number >= timeline.currentNumber + Math.max(plan.length, 1)) throw unfound();
}

export async function projectIterationFacts(reads: IterationReads, projectId: number, now: number): Promise<ProjectIterationFacts> {
  const timeline = await loadTimeline(reads, projectId, now);
  const history = await doneHistory(reads, timeline, timeline.currentNumber, timeline.currentNumber);
  return {
    start_time: timeline.startTime,
    current_iteration_number: timeline.currentNumber,
    current_velocity: velocityDuring(history, timeline, timeline.currentNumber),
  };
}

/** The current iteration's number and span (search's "this iteration"). */
export async function currentIteration(reads: IterationReads, projectId: number, now: number): Promise<IterationSpan> {
  const timeline = await loadTimeline(reads, projectId, now);
  return iterationSpan(timeline.calendar, timeline.currentNumber);
}

/** Where a story is planned (facts §12 story fields): its Current or Backlog iteration and that iteration's finish. */
export interface StoryPlanning {
  planned_iteration_number: number;
  /** ms */
  projected_completion: number;
}

/** The planning of the project's stories in Current and the Backlog, by story id (others have none). */
export async function storyPlanning(reads: IterationReads, projectId: number, now: number): Promise<Map<number, StoryPlanning>> {
  const timeline = await loadTimeline(reads, projectId, now);
  const { plan } = await planOf(reads, timeline);
  const planning = new Map<number, StoryPlanning>();
  for (const iteration of plan) {
    const finish = iterationSpan(timeline.calendar, iteration.number).finish;
    for (const story of iteration.stories) {
      if (story.current_state !== 'accepted') planning.set(story.id, { planned_iteration_number: iteration.number, projected_completion: finish });
    }
  }
  return planning;
}

async function labelIdNamed(reads: IterationReads, projectId: number, name: string): Promise<number | null> {
  const label = await reads.labels.findOne({ project_id: projectId, name: normalizedLabelName(name) });
  return label?.id ?? null;
}

function withLabel(iterations: IterationDoc[], labelId: number | null): IterationDoc[] {
  return iterations.map((iteration) => {
    const stories = iteration.stories.filter((story) => labelId !== null && Array.isArray(story.label_ids) && story.label_ids.includes(labelId));
    return { ...iteration, stories, story_ids: stories.map((story) => story.id) };
  });
}

/** First and last iteration numbers of a scope. */
function scopeRange(scope: IterationScope | undefined, current: number, lastPlanned: number): [number, number] {
  switch (scope) {
    case 'done':
      return [1, current - 1];
    case 'current':
      return [current, current];
    case 'backlog':
      return [current + 1, lastPlanned];
    case 'current_backlog':
      return [current, lastPlanned];
    case 'done_current':
      return [1, current];
    default:
      return [1, lastPlanned];
  }
}

/** Current and the Backlog iterations, planned now, with the done history the velocity came from. */
export async function planOf(reads: IterationReads, timeline: IterationTimeline): Promise<{ plan: PlannedIteration[]; history: DoneHistory }> {
  const currentSpan = iterationSpan(timeline.calendar, timeline.currentNumber);
  const [open, acceptedInCurrent, history] = await Promise.all([
    reads.iterationStories.find({ plan_key: openPlanKey(timeline.projectId) }),
    acceptedBetween(reads, timeline.projectId, currentSpan.start, currentSpan.finish),
    doneHistory(reads, timeline, timeline.currentNumber, timeline.currentNumber),
  ]);
  const plan = planIterations({
    calendar: timeline.calendar,
    currentNumber: timeline.currentNumber,
    velocity: velocityDuring(history, timeline, timeline.currentNumber),
    automaticPlanning: timeline.project.automatic_planning !== false,
    open,
    acceptedInCurrent,
  });
  return { plan, history };
}

/** Iterations from..to as documents: done ones from their accepted stories, the others from `plan`. */
async function iterationDocs(
  reads: IterationReads,
  timeline: IterationTimeline,
  plan: readonly PlannedIteration[],
  from: number,
  to: number,
  known?: DoneHistory,
): Promise<IterationDoc[]> {
  const current = timeline.currentNumber;
  const history = known && historyCovers(known, timeline, from, to) ? known : await doneHistory(reads, timeline, from, to);
  const members: Array<{ span: IterationSpan; stories: PlanStory[] }> = [];
  for (let number = from; number <= Math.min(to, current - 1); number++) {
    const { span, stories } = doneIteration(history, number);
    members.push({ span, stories: [...stories].sort(byAcceptance) });
  }
  for (let number = Math.max(from, current); number <= to; number++) {
    members.push({ span: iterationSpan(timeline.calendar, number), stories: plan[number - current]?.stories ?? [] });
  }
  const ids = members.flatMap((member) => member.stories.map((story) => story.id));
  const docs = new Map((await reads.stories.find({ id: { $in: ids }, project_id: timeline.projectId })).map((doc) => [doc.id, doc]));
  return members.map(({ span, stories }) => {
    const present = stories.filter((story) => docs.has(story.id));
    const points = totalPoints(present);
    return {
      kind: 'iteration',
      number: span.number,
      project_id: timeline.projectId,
      length: span.length,
      team_strength: span.team_strength,
      start: span.start,
      finish: span.finish,
      stories: present.map((story) => docs.get(story.id)!),
      story_ids: present.map((story) => story.id),
      velocity: velocityDuring(history, timeline, span.number),
      points,
      accepted_points: totalPoints(present.filter((story) => story.current_state === 'accepted')),
      effective_points: effectivePoints(points, span.length, span.team_strength, timeline.calendar.defaultLength),
    };
  });
}
