// GET /projects/{id}/history/iterations/{n}/days (facts §8: `daily_history_container`, the burn-up
// chart's data): one row per day of iteration n from its first day up to today (the project's local
// days), each tallying the iteration's stories by their state at the end of that day
// (domain/iteration/daily-history.ts), from the stories' history (projections/analytics/story-history.ts).
//
// Which stories: the current iteration's are those it holds now (planOf, as GET /iterations/{n} lists
// them: its acceptances, the work in progress, what planning puts in it), followed back through their
// past days; a done iteration's are those it held when it ended (accepted then, with an acceptance time
// within it), told by the history itself, so nothing written later changes a done iteration's rows. An
// iteration not started yet has no day up to today (`data: []`); beyond the last planned one is 404.
import { unfound } from '../../domain/errors.js';
import { iterationSpan, type IterationSpan } from '../../domain/iteration/iteration-calendar.js';
import { acceptedWithin, dailyHistoryRows, DAILY_HISTORY_HEADER, type DailyHistoryRow, type StoryHistoryEntry } from '../../domain/iteration/daily-history.js';
import { localDayNumber } from '../../domain/project/time-zone.js';
import { weekKeys } from '../../projections/analytics/analytics-keys.js';
import { loadTimeline, type IterationTimeline } from '../iterations/iteration-timeline.js';
import { planOf } from '../iterations/iterations-query.js';
import type { AnalyticsReads, AnalyticsRequest } from './analytics-query.js';

export interface DailyHistoryContainer {
  kind: 'daily_history_container';
  header: readonly string[];
  data: DailyHistoryRow[];
}

export async function getDailyHistory(reads: AnalyticsReads, request: AnalyticsRequest): Promise<DailyHistoryContainer> {
  const timeline = await loadTimeline(reads, request.projectId, request.now);
  const span = iterationSpan(timeline.calendar, request.number);
  const container = (data: DailyHistoryRow[]): DailyHistoryContainer => ({ kind: 'daily_history_container', header: DAILY_HISTORY_HEADER, data });
  if (request.number > timeline.currentNumber) {
    const { plan } = await planOf(reads, timeline);
    if (request.number >= timeline.currentNumber + Math.max(plan.length, 1)) throw unfound();
    return container([]);
  }
  const histories = request.number === timeline.currentNumber ? await currentHistories(reads, timeline) : await doneHistories(reads, timeline.projectId, span);
  const zone = timeline.calendar.zone;
  const firstDay = localDayNumber(zone, span.start);
  const lastDay = Math.min(localDayNumber(zone, span.finish - 1), localDayNumber(zone, request.now));
  return container(dailyHistoryRows(zone, firstDay, lastDay, histories));
}

/** The history of each story the current iteration holds now. */
async function currentHistories(reads: AnalyticsReads, timeline: IterationTimeline): Promise<StoryHistoryEntry[][]> {
  const [current] = (await planOf(reads, timeline)).plan;
  const ids = (current?.stories ?? []).map((story) => story.id);
  return [...(await historiesOf(reads, timeline.projectId, ids)).values()];
}

/** The history of each story the done iteration held when it ended. */
async function doneHistories(reads: AnalyticsReads, projectId: number, span: IterationSpan): Promise<StoryHistoryEntry[][]> {
  const acceptances = await reads.storyHistory.find(
    { accepted_week_key: { $in: weekKeys(projectId, span.start, span.finish) }, accepted_at: { $gte: span.start, $lt: span.finish }, at: { $lt: span.finish } },
    { fields: ['story_id'] },
  );
  const candidates = [...new Set(acceptances.map((doc) => doc.story_id))];
  const histories = await historiesOf(reads, projectId, candidates);
  return [...histories.values()].filter((entries) => acceptedWithin(entries, span));
}

/** Each story's entries in the project, in log order. */
async function historiesOf(reads: AnalyticsReads, projectId: number, storyIds: readonly number[]): Promise<Map<number, StoryHistoryEntry[]>> {
  const histories = new Map<number, StoryHistoryEntry[]>(storyIds.map((id) => [id, []]));
  if (storyIds.length === 0) return histories;
  const docs = await reads.storyHistory.find({ story_id: { $in: [...storyIds] }, project_id: projectId }, { sort: { id: 1 } });
  for (const doc of docs) {
    histories.get(doc.story_id)?.push({ at: doc.at, values: doc.values, ...(doc.created ? { created: true } : {}), ...(doc.deleted ? { deleted: true } : {}) });
  }
  return histories;
}

/**
 * What a daily history depends on besides the project version: the current iteration (which stories
 * it holds) and today in the project's zone (its last row). The response-cache key part of its route.
 */
export async function dailyHistoryDependence(reads: AnalyticsReads, projectId: number, now: number): Promise<string> {
  const timeline = await loadTimeline(reads, projectId, now);
  return `iteration ${timeline.currentNumber} day ${localDayNumber(timeline.calendar.zone, now)}`;
}
