// The activity feeds (spec "Activity" and "Events", facts §2.2, §3, §9): the project stream rendered at
// read time, never a copy.
//
//   GET /projects/:project_id/activity                      since_version, occurred_before/after, limit, offset
//   GET /projects/:project_id/stories/:story_id/activity    same
//   GET /projects/:project_id/epics/:epic_id/activity       same
//   GET /my/activity                                        occurred_before/after, limit, offset
//
// This module maps HTTP to the feeds of src/queries/activity-feeds.ts. Newest first. Choices the sources
// leave open (recorded here):
// - `limit` / `offset` as every paginated list (api/page-params.ts): default 100, larger reduced to 500,
//   and the pagination headers give the limit applied. `limit=0` answers [] with the total.
// - `occurred_before` and `occurred_after` are strict bounds (api/datetime-parameter.ts).
// - The history window (spec "Limits") is the account's: six months unless enterprise (25), both set by
//   the operator; older events stay in the log and are only left out of the feeds.
// - Story and epic feeds come from the activity_by_resource index: the events that change the story or
//   epic, or one of its tasks or comments, or that name it as primary resource. A story or epic that no
//   longer exists in the project answers 404.
// - `/my/activity` lists the caller's own actions in the projects they are a member of now.
// - The project, story and epic feeds are byte-cached like other GETs: for a project version, a page
//   changes only when the history window's start passes an event (or the account's plan changes the
//   window), so the key adds the first version inside the window (queries/activity-feeds.ts
//   windowVariant) and the people's change stamp (performers' names). `/my/activity` spans projects
//   and is computed every time.
import type { ActivityDoc } from '../../domain/activity/activity-doc.js';
import { invalidParameter, type ValidationError } from '../../domain/errors.js';
import type { Values } from '../../domain/events.js';
import type { Doc } from '../../ports/read-store.js';
import type { ReadModelChanges } from '../../ports/read-model-changes.js';
import type { FeedBounds } from '../../queries/activity-feeds.js';
import type { Paged } from '../../queries/page.js';
import { DATETIME_PARAMETER, datetimeParameter } from '../datetime-parameter.js';
import { countParam, pageParams } from '../page-params.js';
import { idParam } from '../project-authorization.js';
import type { ResourceType } from '../resource-type.js';
import type { ApiRequest, ApiResult, RouteDefinition } from '../route-table.js';
import { renderDatetime } from '../serializer.js';
import type { Queries, ResourceModule } from './resource-module.js';

export function activityResources(deps: { queries: Pick<Queries, 'activity'>; readModelChanges: ReadModelChanges }): ResourceModule {
  const feeds = deps.queries.activity;

  const result = (paged: Paged<ActivityDoc>): ApiResult => ({
    kind: 'resource',
    type: activityType.name,
    value: paged.value.map(asDocument),
    pagination: paged.pagination,
  });

  // Performers are shown with their names as they are now: a person's change (not counted by the
  // project's version) moves the people stamp.
  const cacheVariant = async (req: ApiRequest) => `${await feeds.windowVariant(req.project!.project, req.now)}|${deps.readModelChanges.stampOf(['people'])}`;
  const inWindow = { cacheable: true, cacheVariant } as const;
  const feedQuery = { query: FEED_PARAMETERS };
  const feed = { type: activityType.name, list: true, paginated: true } as const;
  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/projects/:project_id/activity',
      access: 'project:read',
      timeTravel: false,
      input: feedQuery,
      answers: feed,
      summary: "A project's activity, newest first",
      ...inWindow,
      handle: async (req) => result(await feeds.projectFeed(req.project!.project, feedBounds(req), pageParams(req.query), req.now)),
    },
    ...([['story', 'stories'], ['epic', 'epics']] as const).map(
      ([kind, collection]): RouteDefinition => ({
        method: 'GET',
        path: `/projects/:project_id/${collection}/:${kind}_id/activity`,
        access: 'project:read',
        timeTravel: false,
        input: feedQuery,
        answers: feed,
        summary: `The activity of a${kind === 'epic' ? 'n' : ''} ${kind} (with its tasks and comments), newest first`,
        ...inWindow,
        async handle(req) {
          const subject = { kind, id: idParam(req.params[`${kind}_id`]) };
          return result(await feeds.subjectFeed(req.project!.project, subject, feedBounds(req), pageParams(req.query), req.now));
        },
      }),
    ),
    {
      method: 'GET',
      path: '/my/activity',
      access: 'person',
      input: { query: { type: 'object', properties: { occurred_after: FEED_PARAMETERS.properties.occurred_after, occurred_before: FEED_PARAMETERS.properties.occurred_before } } },
      answers: feed,
      summary: "The caller's own activity in their projects, newest first",
      async handle(req) {
        const { occurredAfter, occurredBefore } = feedBounds(req);
        return result(await feeds.personFeed(req.actor!.id, { occurredAfter, occurredBefore }, pageParams(req.query), req.now));
      },
    },
  ];
  return { reference: { tag: 'Activity', description: "What changed, newest first: a project's, a story's, an epic's, the caller's own." }, routes, types: [activityType] };
}

/** `since_version`, `occurred_after`, `occurred_before` (read by feedBounds). */
const FEED_PARAMETERS = {
  type: 'object',
  properties: {
    since_version: { type: 'integer', minimum: 0, description: 'Only the activity after this project version.' },
    occurred_after: { ...DATETIME_PARAMETER, description: `Only activity after this instant (strict): ${String(DATETIME_PARAMETER.description)}` },
    occurred_before: { ...DATETIME_PARAMETER, description: `Only activity before this instant (strict): ${String(DATETIME_PARAMETER.description)}` },
  },
} as const;

function feedBounds(req: ApiRequest): FeedBounds {
  const problems: ValidationError[] = [];
  const sinceVersion = countParam(req.query, 'since_version', problems) ?? 0;
  const occurred = (name: string): number | null => {
    const raw = req.query[name];
    if (raw === undefined || raw.trim() === '') return null;
    try {
      return datetimeParameter(name, raw);
    } catch {
      problems.push({ field: name, problem: `'${name}' must be a datetime: ISO 8601 or integer milliseconds` });
      return null;
    }
  };
  const occurredAfter = occurred('occurred_after');
  const occurredBefore = occurred('occurred_before');
  if (problems.length > 0) throw invalidParameter(problems);
  return { sinceVersion, occurredAfter, occurredBefore };
}

// ---- the resource type ----

/**
 * Activities have no `id` (the serializer leaves out an absent one) and a `kind` of their own
 * (`story_update_activity`, ...), so the type declares no fixed kind and lists `kind` as an attribute.
 */
const RESOURCE_REFERENCES = { type: 'array', items: { type: 'object', description: 'kind, id, name (and story_type, url)' } } as const;

export const activityType: ResourceType = {
  name: 'activity',
  attributes: {
    kind: { type: 'string', examples: ['story_update_activity'] },
    guid: 'string',
    project_version: 'integer',
    message: 'string',
    highlight: 'string',
    primary_resources: RESOURCE_REFERENCES,
    secondary_resources: RESOURCE_REFERENCES,
    project: { type: 'object', description: 'kind, id and name of the project' },
    performed_by: { type: 'object', description: 'kind, id, name and initials of the person' },
    occurred_at: 'datetime',
    project_id: 'integer',
    performed_by_id: 'integer',
    changes: {
      type: 'array',
      items: { type: 'object', description: 'kind, change_type (create, update, delete), id, original_values, new_values, name, story_type' },
    },
  },
  defaults: [
    'kind',
    'guid',
    'project_version',
    'message',
    'highlight',
    'changes',
    'primary_resources',
    'secondary_resources',
    'project',
    'performed_by',
    'occurred_at',
  ],
  computed: {
    // Change values hold datetimes as ms; they follow `date_format` like every other datetime.
    changes: async (docs, ctx) => docs.map((doc) => renderChangeDatetimes(doc.changes, ctx.millis)),
  },
};

/** Keys of change values that hold datetimes (ms in events). */
function isDatetimeKey(key: string): boolean {
  return key.endsWith('_at') || key === 'deadline' || key === 'start_time';
}

function renderChangeDatetimes(changes: unknown, asMillis: boolean): unknown {
  if (asMillis || !Array.isArray(changes)) return changes;
  return changes.map((change: Record<string, unknown>) => {
    const rendered: Record<string, unknown> = { ...change };
    for (const key of ['original_values', 'new_values'] as const) {
      const values = change[key];
      if (isObject(values)) rendered[key] = renderValues(values);
    }
    return rendered;
  });
}

function renderValues(values: Values): Values {
  const rendered: Values = {};
  for (const [key, value] of Object.entries(values)) {
    if (isDatetimeKey(key)) rendered[key] = renderDatetime(value, false);
    else if (Array.isArray(value)) rendered[key] = value.map((item) => (isObject(item) ? renderValues(item) : item));
    else if (isObject(value)) rendered[key] = renderValues(value);
    else rendered[key] = value;
  }
  return rendered;
}

/** Activities are documents without an `id`; the serializer renders them like any other. */
function asDocument(activity: ActivityDoc): Doc {
  return activity as unknown as Doc;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
