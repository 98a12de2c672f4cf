// A project's iterations, their overrides, analytics and cycle time, and a story's transitions.
//
//   GET /projects/:project_id/iterations                 readers; `scope`, `offset` (negative with done),
//                                                        `limit` (default 10), `label`; paginated
//   GET /projects/:project_id/iterations/:number         readers; one iteration (404 past the last planned one)
//   PUT /projects/:project_id/iteration_overrides/:number  writers; body `length`, `team_strength`
//   GET /projects/:project_id/iterations/:number/analytics[.csv]                      readers
//   GET /projects/:project_id/iterations/:number/analytics/cycle_time_details[.csv]   readers
//   GET /projects/:project_id/stories/:story_id/transitions   readers; paginated, default limit 100
//   GET /projects/:project_id/history/iterations/:number/days  readers; daily_history_container (burn-up)
//
// Iteration answers depend on the date only through the current iteration number, so they are byte-cached
// with that number in the key (the daily history with today's date too); analytics and cycle time move
// with the clock and are not cached.
import { decideSetIterationOverride, iterationOverrideView, overrideFromDoc } from '../../domain/iteration/iteration-override.js';
import type { Doc } from '../../ports/read-store.js';
import { STORY_TRANSITIONS } from '../../projections/analytics/story-transitions-projection.js';
import { analyticsCsv } from '../../queries/analytics/analytics-csv.js';
import { analyticsReads, getCycleTimeDetails, getCycleTimeDetailsCsv, getIterationAnalytics } from '../../queries/analytics/analytics-query.js';
import { listStoryTransitions } from '../../queries/analytics/transitions-query.js';
import { dailyHistoryDependence, getDailyHistory } from '../../queries/analytics/daily-history-query.js';
import {
  currentIteration, DEFAULT_ITERATION_LIMIT, getIteration, ITERATION_SCOPES, iterationListParams, iterationNumberParam, listIterations, MAX_ITERATION_LIMIT,
} from '../../queries/iterations/iterations-query.js';
import type { IterationReads } from '../../queries/iterations/iteration-timeline.js';
import { commandMeta } from '../command-meta.js';
import { pageParams } from '../page-params.js';
import { idParam } from '../project-authorization.js';
import type { ResourceType } from '../resource-type.js';
import { bodyChecker } from './body-schema.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

export const iterationType: ResourceType = {
  name: 'iteration',
  kind: 'iteration',
  attributes: {
    number: 'integer', project_id: 'integer', length: 'integer', team_strength: 'number', start: 'datetime', finish: 'datetime',
    story_ids: 'integer[]', velocity: 'number', points: 'number', accepted_points: 'number', effective_points: 'number',
  },
  defaults: ['kind', 'number', 'project_id', 'length', 'team_strength', 'stories', 'start', 'finish'],
  associations: {
    // The query embeds the iteration's stories, in order; the story type renders them (nested fields work).
    stories: { type: 'story', many: true, async load(docs) { return docs.map((doc) => doc.stories as Doc[]); } },
  },
};

export const iterationOverrideType: ResourceType = {
  name: 'iteration_override',
  kind: 'iteration_override',
  attributes: { number: 'integer', project_id: 'integer', length: 'integer', team_strength: 'number' },
  defaults: ['kind', 'number', 'project_id', 'length', 'team_strength'],
};

export const analyticsType: ResourceType = {
  name: 'analytics',
  kind: 'analytics',
  attributes: { stories_accepted: 'integer', bugs_created: 'integer', cycle_time: 'integer', rejection_rate: 'number' },
  defaults: ['kind', 'stories_accepted', 'bugs_created', 'cycle_time', 'rejection_rate'],
};

const CYCLE_TIME_KEYS = [
  'story_id', 'total_cycle_time', 'started_time', 'started_count', 'finished_time', 'finished_count',
  'delivered_time', 'delivered_count', 'rejected_time', 'rejected_count',
] as const;

export const cycleTimeDetailsType: ResourceType = {
  name: 'cycle_time_details',
  kind: 'cycle_time_details',
  attributes: Object.fromEntries(CYCLE_TIME_KEYS.map((key) => [key, 'integer'])),
  defaults: ['kind', ...CYCLE_TIME_KEYS],
};

/** facts §8: `header` names the columns of each `data` row (a date, then points as floats, then counts). */
export const dailyHistoryType: ResourceType = {
  name: 'daily_history_container',
  kind: 'daily_history_container',
  attributes: {
    header: 'string[]',
    data: { type: 'array', items: { type: 'array', description: 'A date (YYYY-MM-DD), then the values the header names' } },
  },
  defaults: ['kind', 'header', 'data'],
};

export const storyTransitionType: ResourceType = {
  name: 'story_transition',
  kind: 'story_transition',
  attributes: {
    state: 'string', story_id: 'integer', project_id: 'integer', project_version: 'integer', occurred_at: 'datetime', performed_by_id: 'integer',
  },
  defaults: ['kind', 'state', 'story_id', 'project_id', 'project_version', 'occurred_at', 'performed_by_id'],
};

const CSV = 'text/csv; charset=utf-8';

/** `scope`, `offset` and `limit` (read by iterationListParams), and `label`. */
const ITERATION_LIST_PARAMETERS = {
  type: 'object',
  properties: {
    scope: { enum: ITERATION_SCOPES, description: 'Which iterations: done, current, backlog or their combinations; all when absent.' },
    offset: { type: 'integer', default: 0, description: 'Iterations skipped; negative (counting back from the most recent) only with scope done.' },
    limit: { type: 'integer', minimum: 1, default: DEFAULT_ITERATION_LIMIT, description: `At most ${MAX_ITERATION_LIMIT}.` },
    label: { type: 'string', description: 'Only the stories carrying this label, in each iteration.' },
  },
} as const;

/** An override's fields are checked by the domain (iteration-override.ts), which owns their rules. */
const checkOverrideBody = bodyChecker({
  length: { description: 'Weeks (1 to 4); null returns to the project\'s iteration_length.' },
  team_strength: { description: 'A number from 0 to 1 (the share of the team working); null returns to 1.' },
});

/** Query answers are plain documents without an `id`; the serializer omits the absent one. */
const asDocs = (values: readonly object[]): Doc[] => values as unknown as Doc[];

/** The cache variant of answers that depend on the date only through the project's current iteration number. */
export async function currentIterationVariant(reads: IterationReads, req: ApiRequest): Promise<string> {
  return `iteration ${(await currentIteration(reads, req.project!.id, req.now)).number}`;
}

export function iterationResources(deps: ResourceDeps): ResourceModule {
  const reads = analyticsReads(deps.read, deps.readModelChanges);
  const transitionReads = { stories: deps.read('stories'), storyTransitions: deps.read(STORY_TRANSITIONS) };

  const iterationCacheVariant = (req: ApiRequest) => currentIterationVariant(reads, req);
  const analysed = (req: ApiRequest) => ({ projectId: req.project!.id, number: iterationNumberParam(req.params['number']), now: req.now });

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/projects/:project_id/iterations',
      access: 'project:read',
      cacheable: true,
      cacheVariant: iterationCacheVariant,
      input: { query: ITERATION_LIST_PARAMETERS },
      answers: { type: 'iteration', list: true, paginated: true },
      summary: "A project's iterations with their stories",
      async handle(req) {
        const params = iterationListParams(req.query);
        const label = req.query['label'];
        const page = await listIterations(reads, { projectId: req.project!.id, ...params, now: req.now, ...(label ? { label } : {}) });
        const { iterations, ...pagination } = page;
        return { kind: 'resource', type: 'iteration', value: asDocs(iterations), pagination };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/iterations/:number',
      access: 'project:read',
      cacheable: true,
      cacheVariant: iterationCacheVariant,
      answers: { type: 'iteration' },
      summary: 'One iteration (404 past the last planned one)',
      async handle(req) {
        const iteration = await getIteration(reads, { projectId: req.project!.id, number: iterationNumberParam(req.params['number']), now: req.now });
        return { kind: 'resource', type: 'iteration', value: asDocs([iteration])[0]! };
      },
    },
    {
      method: 'PUT',
      path: '/projects/:project_id/iteration_overrides/:number',
      access: 'project:write',
      input: { body: checkOverrideBody },
      answers: { type: 'iteration_override' },
      summary: "Set an iteration's length or team strength",
      async handle(req) {
        const projectId = req.project!.id;
        const command = { number: iterationNumberParam(req.params['number']), request: checkOverrideBody.read(req) };
        const { doc, version } = await deps.writer.onProject(projectId, decideSetIterationOverride, command, commandMeta(req));
        // An override does not change the project's settings: the defaults it falls back on are the request's.
        const view = iterationOverrideView(req.project!.project, overrideFromDoc(doc));
        return { kind: 'resource', type: 'iteration_override', value: asDocs([view])[0]!, projectVersion: version };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/iterations/:number/analytics',
      access: 'project:read',
      answers: { type: 'analytics' },
      summary: "An iteration's analytics",
      handle: async (req) => ({ kind: 'resource', type: 'analytics', value: asDocs([await getIterationAnalytics(reads, analysed(req))])[0]! }),
    },
    {
      method: 'GET',
      path: '/projects/:project_id/iterations/:number/analytics.csv',
      access: 'project:read',
      answers: { raw: CSV },
      summary: "An iteration's analytics as CSV",
      async handle(req) {
        const request = analysed(req);
        const csv = analyticsCsv(await getIterationAnalytics(reads, request));
        return { kind: 'raw', contentType: CSV, body: csv, filename: `iteration_${request.number}_analytics.csv` };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/iterations/:number/analytics/cycle_time_details',
      access: 'project:read',
      answers: { type: 'cycle_time_details', list: true },
      summary: "The cycle time of an iteration's stories",
      async handle(req) {
        const rows = await getCycleTimeDetails(reads, analysed(req));
        return { kind: 'resource', type: 'cycle_time_details', value: asDocs(rows.map((row) => row.details)) };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/iterations/:number/analytics/cycle_time_details.csv',
      access: 'project:read',
      answers: { raw: CSV },
      summary: "The cycle time of an iteration's stories as CSV",
      async handle(req) {
        const request = analysed(req);
        const csv = await getCycleTimeDetailsCsv(reads, request);
        return { kind: 'raw', contentType: CSV, body: csv, filename: `iteration_${request.number}_cycle_time_details.csv` };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/stories/:story_id/transitions',
      access: 'project:read',
      cacheable: true,
      answers: { type: 'story_transition', list: true, paginated: true },
      summary: "A story's state transitions",
      async handle(req) {
        // default limit 100 (facts §3), as every paginated list
        const page = pageParams(req.query);
        const { transitions, ...pagination } = await listStoryTransitions(transitionReads, {
          projectId: req.project!.id,
          storyId: idParam(req.params['story_id']),
          ...page,
        });
        return { kind: 'resource', type: 'story_transition', value: asDocs(transitions), pagination };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/history/iterations/:number/days',
      access: 'project:read',
      cacheable: true,
      cacheVariant: (req) => dailyHistoryDependence(reads, req.project!.id, req.now),
      answers: { type: 'daily_history_container' },
      summary: "An iteration's day-by-day history (burn-up)",
      handle: async (req) => ({ kind: 'resource', type: 'daily_history_container', value: asDocs([await getDailyHistory(reads, analysed(req))])[0]! }),
    },
  ];
  return { reference: { tag: 'Iterations', description: "Iterations, their overrides, analytics, cycle time and burn-up history; a story's transitions." }, routes, types: [iterationType, iterationOverrideType, analyticsType, cycleTimeDetailsType, storyTransitionType, dailyHistoryType] };
}
