// GET /projects/{id}/iterations/{n}/analytics and .../analytics/cycle_time_details (spec "Iterations",
// facts §8): computed from the story transitions model and the iteration's stories. Only iterations
// lying within the last six months are analysed (spec "Limits"): the iteration must have started no
// earlier than six calendar months before `now`, and no later than now (done or current).
import { monthsBefore } from '../../domain/activity/activity-window.js';
import { invalidField } from '../../domain/errors.js';
import { iterationSpan, type IterationSpan } from '../../domain/iteration/iteration-calendar.js';
import { byAcceptance, type PlanStory } from '../../domain/iteration/iteration-plan.js';
import { cycleTimeDetails, iterationAnalytics, type CycleTimeDetails, type IterationAnalytics, type StateEntry } from '../../domain/iteration/cycle-time.js';
import type { ReadModelChanges } from '../../ports/read-model-changes.js';
import { idsOf } from '../csv-table.js';
import { cycleTimeDetailsCsv } from './analytics-csv.js';
import { STORY_TRANSITIONS } from '../../projections/analytics/story-transitions-projection.js';
import type { PersonReadDoc, ReadModelReader, StoryHistoryReadDoc, StoryReadDoc, StoryTransitionReadDoc } from '../../projections/documents.js';
import { weekKeys } from '../../projections/analytics/analytics-keys.js';
import { calendarMemo, doneIterations, loadTimeline, type IterationReads, type QueryCollection } from '../iterations/iteration-timeline.js';
import { assertIterationExists, planOf } from '../iterations/iterations-query.js';
import { ITERATION_STORIES } from '../../projections/iterations/iteration-stories-projection.js';
import { STORY_HISTORY } from '../../projections/analytics/story-history.js';

export const ANALYTICS_WINDOW_MONTHS = 6;

export interface AnalyticsReads extends IterationReads {
  /** analytics: `story_transitions` */
  storyTransitions: QueryCollection<StoryTransitionReadDoc>;
  /** analytics: `story_history` (the daily history) */
  storyHistory: QueryCollection<StoryHistoryReadDoc>;
}

/** Every read the iteration, analytics and cycle-time queries make, from the live read models by name. */
export function analyticsReads(read: ReadModelReader, changes: ReadModelChanges): AnalyticsReads & { people: QueryCollection<PersonReadDoc> } {
  return {
    projects: read('projects'),
    stories: read('stories'),
    iterationOverrides: read('iteration_overrides'),
    iterationStories: read(ITERATION_STORIES),
    labels: read('labels'),
    people: read('people'),
    storyTransitions: read(STORY_TRANSITIONS),
    storyHistory: read(STORY_HISTORY),
    calendars: calendarMemo(changes),
  };
}

export interface AnalyticsRequest {
  projectId: number;
  number: number;
  now: number;
}

/** A story of the iteration with its cycle time (the CSV shows both). */
export interface CycleTimeRow {
  story: StoryReadDoc;
  details: CycleTimeDetails;
}

export async function getIterationAnalytics(reads: AnalyticsReads, request: AnalyticsRequest): Promise<IterationAnalytics> {
  const { projectId, span, stories } = await analysedIteration(reads, request);
  const accepted = stories.filter((story) => typeof story.accepted_at === 'number' && story.accepted_at >= span.start && story.accepted_at < span.finish);
  const [details, during, bugsCreated] = await Promise.all([
    storiesCycleTimeDetails(reads, accepted.map((story) => story.id), request.now),
    transitionsDuring(reads, projectId, span, request.now),
    bugsCreatedDuring(reads, projectId, span, request.now),
  ]);
  return iterationAnalytics({
    acceptedCycleTimes: [...details.values()],
    bugsCreated,
    acceptances: during.filter((transition) => transition.state === 'accepted').length,
    rejections: during.filter((transition) => transition.state === 'rejected').length,
  });
}

/** One row per story of the iteration, in the iteration's order. */
export async function getCycleTimeDetails(reads: AnalyticsReads, request: AnalyticsRequest): Promise<CycleTimeRow[]> {
  const { projectId, stories } = await analysedIteration(reads, request);
  const ids = stories.map((story) => story.id);
  const [details, docs] = await Promise.all([
    storiesCycleTimeDetails(reads, ids, request.now),
    reads.stories.find({ id: { $in: ids }, project_id: projectId }),
  ]);
  const byId = new Map(docs.map((doc) => [doc.id, doc]));
  return stories.filter((story) => byId.has(story.id)).map((story) => ({ story: byId.get(story.id)!, details: details.get(story.id)! }));
}

/**
 * Each story's cycle time details at `now`, the row the iteration's details give it (story
 * `fields=cycle_time_details` too): from its state entries, whatever iteration it is in.
 */
export async function storiesCycleTimeDetails(
  reads: Pick<AnalyticsReads, 'storyTransitions'>,
  storyIds: readonly number[],
  now: number,
): Promise<Map<number, CycleTimeDetails>> {
  const entries = await stateEntriesOf(reads, storyIds);
  return new Map(storyIds.map((id) => [id, cycleTimeDetails(id, entries.get(id) ?? [], now)]));
}

/** The CSV of the iteration's cycle time details, with label and owner names (`people`: resources `people`). */
export async function getCycleTimeDetailsCsv(reads: AnalyticsReads & { people: QueryCollection<PersonReadDoc> }, request: AnalyticsRequest): Promise<string> {
  const rows = await getCycleTimeDetails(reads, request);
  const labelIds = [...new Set(rows.flatMap(({ story }) => idsOf(story.label_ids)))];
  const personIds = [...new Set(rows.flatMap(({ story }) => idsOf(story.owner_ids)))];
  const [labels, people] = await Promise.all([
    reads.labels.find({ id: { $in: labelIds }, project_id: request.projectId }),
    reads.people.find({ id: { $in: personIds } }),
  ]);
  return cycleTimeDetailsCsv(rows, {
    labelName: new Map(labels.map((label) => [label.id, label.name])),
    personName: new Map(people.map((person) => [person.id, person.name])),
  });
}

/**
 * The iteration's span and stories; unfound_resource past the last iteration, invalid_parameter for a
 * Backlog iteration or one older than six months.
 */
async function analysedIteration(
  reads: AnalyticsReads,
  request: AnalyticsRequest,
): Promise<{ projectId: number; span: IterationSpan; stories: PlanStory[] }> {
  const timeline = await loadTimeline(reads, request.projectId, request.now);
  if (request.number > timeline.currentNumber) {
    assertIterationExists(timeline, (await planOf(reads, timeline)).plan, request.number);
    throw invalidField('number', `Iteration ${request.number} has not started: analytics cover the current iteration (${timeline.currentNumber}) and done ones.`);
  }
  const span = iterationSpan(timeline.calendar, request.number);
  if (span.start < monthsBefore(request.now, ANALYTICS_WINDOW_MONTHS)) {
    throw invalidField('number', `Analytics cover only iterations entirely within the last ${ANALYTICS_WINDOW_MONTHS} months.`);
  }
  if (request.number < timeline.currentNumber) {
    const [done] = await doneIterations(reads, timeline, request.number, request.number);
    return { projectId: request.projectId, span, stories: [...done!.stories].sort(byAcceptance) };
  }
  const [current] = (await planOf(reads, timeline)).plan;
  return { projectId: request.projectId, span, stories: current!.stories };
}

/** Each story's state entries, oldest first (transition ids follow the log's order). */
async function stateEntriesOf(reads: Pick<AnalyticsReads, 'storyTransitions'>, storyIds: readonly number[]): Promise<Map<number, StateEntry[]>> {
  const transitions = await reads.storyTransitions.find({ story_id: { $in: [...storyIds] } }, { sort: { id: 1 } });
  const entries = new Map<number, StateEntry[]>();
  for (const transition of transitions) {
    const storyId = transition.story_id;
    const list = entries.get(storyId) ?? [];
    list.push({ state: transition.state, occurred_at: transition.occurred_at });
    entries.set(storyId, list);
  }
  return entries;
}

/** The span up to now: [start, until), empty when the span has not begun. */
function spanUntilNow(span: IterationSpan, now: number): number {
  return Math.min(span.finish, now + 1);
}

/** The bugs whose own created_at (which clients may set) lies in the span, up to now. */
async function bugsCreatedDuring(reads: AnalyticsReads, projectId: number, span: IterationSpan, now: number): Promise<number> {
  const until = spanUntilNow(span, now);
  if (until <= span.start) return 0;
  const docs = await reads.storyTransitions.find({
    created_week_key: { $in: weekKeys(projectId, span.start, until) },
    created_at: { $gte: span.start, $lt: until },
    story_type: 'bug',
  }, { fields: ['id'] });
  return docs.length;
}

/** The project's transitions during the span (up to now). */
async function transitionsDuring(reads: AnalyticsReads, projectId: number, span: IterationSpan, now: number): Promise<StoryTransitionReadDoc[]> {
  const until = spanUntilNow(span, now);
  if (until <= span.start) return [];
  return reads.storyTransitions.find({
    week_key: { $in: weekKeys(projectId, span.start, until) },
    occurred_at: { $gte: span.start, $lt: until },
  });
}
