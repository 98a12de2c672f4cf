// What every iteration read starts from: the project's settings and overrides, its calendar (start moved
// back by the earliest acceptance), the current iteration at `now`, and the accepted points of done
// iterations. Reads go through the `iteration_stories` model's plan keys, so they touch the stories of
// the weeks asked for, not the project's whole history.
import { unfound } from '../../domain/errors.js';
import {
  iterationNumberAt,
  iterationSpan,
  projectIterationCalendar,
  type IterationCalendar,
  type IterationSpan,
} from '../../domain/iteration/iteration-calendar.js';
import { overrideFromDoc } from '../../domain/iteration/iteration-override.js';
import { totalPoints, type PlanStory } from '../../domain/iteration/iteration-plan.js';
import { velocityAfter, type DoneIterationPoints, type VelocitySettings } from '../../domain/iteration/velocity.js';
import { projectStartTime } from '../../domain/project/project-calendar.js';
import { EARLIEST_STORY_TIME } from '../../domain/story/story-rules.js';
import type { Doc, ReadCollection } from '../../ports/read-store.js';
import type { ReadModelChanges } from '../../ports/read-model-changes.js';
import { ReadModelMemo } from '../read-model-memo.js';
import { acceptanceKey, acceptedPlanKeys } from '../../projections/iterations/iteration-stories-projection.js';
import type { IterationOverrideReadDoc, IterationStoryReadDoc, LabelReadDoc, ProjectReadDoc, StoryReadDoc } from '../../projections/documents.js';

/** The read side a query needs of a collection. */
export type QueryCollection<D extends Doc = Doc> = Pick<ReadCollection<D>, 'find' | 'findOne'>;

export interface IterationReads {
  /** resources: `projects` */
  projects: QueryCollection<ProjectReadDoc>;
  /** resources: `stories` (the documents iterations embed) */
  stories: QueryCollection<StoryReadDoc>;
  /** resources: `iteration_overrides` */
  iterationOverrides: QueryCollection<IterationOverrideReadDoc>;
  /** iterations: `iteration_stories` */
  iterationStories: QueryCollection<IterationStoryReadDoc>;
  /** resources: `labels` (the list's `label` parameter) */
  labels: QueryCollection<LabelReadDoc>;
  /**
   * Calendars already made, by `<project>@<version>` (calendarMemo()), forgotten when the read models
   * change (a rebuilt projection may answer the same version differently). Without it, made every time.
   */
  calendars?: ReadModelMemo<string, IterationCalendar>;
}

/**
 * A memo of project calendars for IterationReads, keyed by project and version (a travelling request
 * reads the fold at its version, the live ones the current version). Every cached answer that depends on
 * the current iteration (search, `filter=`, planning fields, iterations) asks for the calendar to build
 * its cache key, and making it costs two reads and an indexed lookup.
 */
export function calendarMemo(changes: ReadModelChanges): ReadModelMemo<string, IterationCalendar> {
  return new ReadModelMemo<string, IterationCalendar>(changes, { maxEntries: 1_000 });
}

export interface IterationTimeline {
  project: ProjectReadDoc;
  projectId: number;
  calendar: IterationCalendar;
  /** The iteration `now` falls in. */
  currentNumber: number;
  /** iteration 1's start, moved back by the earliest acceptance (spec: project start_time). */
  startTime: number;
  velocitySettings: VelocitySettings;
}

/** The project's timeline at `now`; unfound when the project does not exist. */
export async function loadTimeline(reads: IterationReads, projectId: number, now: number): Promise<IterationTimeline> {
  const project = await reads.projects.findOne({ id: projectId });
  if (!project) throw unfound();
  const makeCalendar = async () => {
    const overrides = (await reads.iterationOverrides.find({ project_id: projectId })).map(overrideFromDoc);
    const earliest = await earliestAcceptanceBefore(reads, projectId, projectStartTime(project));
    return projectIterationCalendar(project, overrides, earliest);
  };
  const version = project.version;
  const calendar = reads.calendars && typeof version === 'number' ? await reads.calendars.get(`${projectId}@${version}`, makeCalendar) : await makeCalendar();
  return {
    project,
    projectId,
    calendar,
    currentNumber: iterationNumberAt(calendar, now),
    startTime: iterationSpan(calendar, 1).start,
    velocitySettings: {
      velocity_averaged_over: numberSetting(project.velocity_averaged_over, 3),
      initial_velocity: numberSetting(project.initial_velocity, 10),
      iteration_length: calendar.defaultLength,
    },
  };
}

function numberSetting(value: number | undefined, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

/**
 * The earliest accepted_at before `before` (accepted_at is never earlier than EARLIEST_STORY_TIME): the
 * first `acceptance_key` of the project's range below `before`, which the store reads from the index in
 * key order, stopping at the first entry; never every accepted story.
 */
async function earliestAcceptanceBefore(reads: IterationReads, projectId: number, before: number): Promise<number | undefined> {
  if (before <= EARLIEST_STORY_TIME) return undefined;
  const range = { $gte: acceptanceKey(projectId, EARLIEST_STORY_TIME), $lt: acceptanceKey(projectId, before) };
  const [first] = await reads.iterationStories.find({ acceptance_key: range }, { sort: { acceptance_key: 1 }, limit: 1, fields: ['accepted_at'] });
  return typeof first?.accepted_at === 'number' ? first.accepted_at : undefined;
}

/** The stories accepted in [from, to), as planning sees them. */
export async function acceptedBetween(reads: IterationReads, projectId: number, from: number, to: number): Promise<PlanStory[]> {
  if (to <= from) return [];
  const docs = await reads.iterationStories.find({
    plan_key: { $in: acceptedPlanKeys(projectId, from, to) },
    accepted_at: { $gte: from, $lt: to },
  });
  return docs;
}

/** The spans of iterations first..last (inclusive). */
export function spansOf(timeline: IterationTimeline, first: number, last: number): IterationSpan[] {
  const spans: IterationSpan[] = [];
  for (let number = first; number <= last; number++) spans.push(iterationSpan(timeline.calendar, number));
  return spans;
}

/** The done iterations first..last with the stories accepted in each (by acceptance time), in order. */
export async function doneIterations(
  reads: IterationReads,
  timeline: IterationTimeline,
  first: number,
  last: number,
): Promise<Array<{ span: IterationSpan; stories: PlanStory[] }>> {
  if (last < first) return [];
  const spans = spansOf(timeline, first, last);
  const accepted = await acceptedBetween(reads, timeline.projectId, spans[0]!.start, spans[spans.length - 1]!.finish);
  const buckets = spans.map((span) => ({ span, stories: [] as PlanStory[] }));
  for (const story of accepted) {
    const index = spanIndexOf(spans, story.accepted_at!);
    if (index >= 0) buckets[index]!.stories.push(story);
  }
  return buckets;
}

/** Binary search: the span holding `at`, or -1. */
function spanIndexOf(spans: readonly IterationSpan[], at: number): number {
  let low = 0;
  let high = spans.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const span = spans[middle]!;
    if (at < span.start) high = middle - 1;
    else if (at >= span.finish) low = middle + 1;
    else return middle;
  }
  return -1;
}

export function donePoints(iteration: { span: IterationSpan; stories: readonly PlanStory[] }): DoneIterationPoints {
  return { accepted_points: totalPoints(iteration.stories), length: iteration.span.length, team_strength: iteration.span.team_strength };
}

/** Done iterations read once: those of a range of iterations and the velocity window before it. */
export interface DoneHistory {
  /** Number of the first done iteration read. */
  first: number;
  /** Number of the last done iteration read (first - 1 when none). */
  last: number;
  iterations: Array<{ span: IterationSpan; stories: PlanStory[] }>;
}

function doneRange(timeline: IterationTimeline, from: number, to: number): [number, number] {
  const window = timeline.velocitySettings.velocity_averaged_over;
  return [Math.max(1, Math.min(from, timeline.currentNumber) - window), Math.min(to, timeline.currentNumber - 1)];
}

/** The done iterations among from..to, and those the velocity of each of them averages. */
export async function doneHistory(reads: IterationReads, timeline: IterationTimeline, from: number, to: number): Promise<DoneHistory> {
  const [first, last] = doneRange(timeline, from, to);
  return { first, last: Math.max(last, first - 1), iterations: await doneIterations(reads, timeline, first, last) };
}

/** Whether `history` holds everything iterations from..to need. */
export function historyCovers(history: DoneHistory, timeline: IterationTimeline, from: number, to: number): boolean {
  const [first, last] = doneRange(timeline, from, to);
  return history.first <= first && history.last >= last;
}

/** The done iteration `number` of the history. */
export function doneIteration(history: DoneHistory, number: number): { span: IterationSpan; stories: PlanStory[] } {
  const iteration = history.iterations[number - history.first];
  if (!iteration) throw new Error(`iteration ${number} is not in the done history ${history.first}..${history.last}`);
  return iteration;
}

/** The velocity in force during iteration `number`: after the done iterations before it (at most the current one's). */
export function velocityDuring(history: DoneHistory, timeline: IterationTimeline, number: number): number {
  const window = timeline.velocitySettings.velocity_averaged_over;
  const before = Math.min(number, timeline.currentNumber) - 1;
  const recent: DoneIterationPoints[] = [];
  for (let done = Math.max(1, before - window + 1); done <= before; done++) recent.push(donePoints(doneIteration(history, done)));
  return velocityAfter(recent, timeline.velocitySettings);
}
