// The activity feeds (spec "Activity" and "Events", facts §2.2, §3, §9): the project stream rendered at
// read time, never a copy.
//
//   GET /projects/:project_id/activity                      since_version, occurred_before/after, limit, offset
//   GET /projects/:project_id/stories/:story_id/activity    same
//   GET /projects/:project_id/epics/:epic_id/activity       same
//   GET /my/activity                                        occurred_before/after, limit, offset
//
// Newest first. Choices the sources leave open (recorded here):
// - `limit` defaults to 100 (facts §3); larger values are reduced to 500, as the stories list does, and
//   the pagination headers give the limit applied. `limit=0` answers [] with the total.
// - `occurred_before` and `occurred_after` are strict bounds (ISO 8601 or integer ms).
// - The history window (spec "Limits") is the account's: six months unless enterprise (25), both set by
//   the operator; older events stay in the log and are only left out of the feeds.
// - Story and epic feeds come from the activity_by_resource index: the events that change the story or
//   epic, or one of its tasks or comments, or that name it as primary resource. A story or epic that no
//   longer exists in the project answers 404.
// - `/my/activity` lists the caller's own actions in the projects they are a member of now.
// - Responses are not byte-cached: the history window moves with the date.
import type { ActivityDoc, PerformerInfo, RenderContext } from '../../domain/activity/activity-doc.js';
import { activityWindowStart } from '../../domain/activity/activity-window.js';
import { renderActivity } from '../../domain/activity/render-activity.js';
import { invalidParameter, type ValidationError } from '../../domain/errors.js';
import type { RecordedEvent, Values } from '../../domain/events.js';
import { projectIdOfStream } from '../../domain/events.js';
import type { Doc, Filter } from '../../ports/read-store.js';
import { ACTIVITY_BY_PERFORMER } from '../../projections/activity/performer-activity-projection.js';
import { ACTIVITY_BY_RESOURCE } from '../../projections/activity/subject-activity-projection.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import type { ResourceType } from '../resource-type.js';
import type { ApiRequest, ApiResult, RouteDefinition } from '../route-table.js';
import { renderDatetime } from '../serializer.js';
import {
  indexFilter,
  indexedFeedPage,
  projectFeedPage,
  type FeedFilter,
  type FeedPage,
  type PageRequest,
} from './activity-feed.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { epicUrl, storyUrl } from './web-addresses.js';

export const DEFAULT_ACTIVITY_LIMIT = 100;
export const MAX_ACTIVITY_LIMIT = 500;

/** What the activity routes use of the composition root's dependencies. */
export type ActivityDeps = Pick<ResourceDeps, 'read' | 'eventStore' | 'settings'>;

export function activityResources(deps: ActivityDeps): ResourceModule {
  const projects = deps.read('projects');
  const accounts = deps.read('accounts');
  const people = deps.read('people');
  const memberships = deps.read('project_memberships');
  const stories = deps.read('stories');
  const epics = deps.read('epics');
  const byResource = deps.read(ACTIVITY_BY_RESOURCE);
  const byPerformer = deps.read(ACTIVITY_BY_PERFORMER);
  const siteUrl = deps.settings.siteUrl;

  /** The history window start of a project, from its account's plan. */
  async function windowStarts(projectDocs: readonly Doc[], now: number): Promise<Map<number, number | null>> {
    const accountIds = [...new Set(projectDocs.map((project) => project['account_id']).filter(isInteger))];
    const accountDocs = accountIds.length ? await accounts.find({ id: { $in: accountIds } }) : [];
    const plans = new Map(accountDocs.map((account) => [account.id, stringOrNull(account['plan'])]));
    return new Map(
      projectDocs.map((project) => {
        const plan = isInteger(project['account_id']) ? (plans.get(project['account_id']) ?? null) : null;
        return [project.id, activityWindowStart(now, plan, deps.settings)];
      }),
    );
  }

  async function render(page: FeedPage, projectNames: ReadonlyMap<number, string>, request: PageRequest): Promise<ApiResult> {
    const performerIds = [...new Set(page.events.map((event) => event.meta.performed_by).filter(isInteger))];
    const performerDocs = performerIds.length ? await people.find({ id: { $in: performerIds } }) : [];
    const performers = new Map(performerDocs.map((person) => [person.id, performerInfo(person)]));
    const activities: ActivityDoc[] = [];
    for (const event of page.events) {
      const projectId = projectIdOfStream(event.stream);
      if (projectId === null) continue;
      const activity = renderActivity(event, renderContext(event, projectId, projectNames, performers));
      if (activity) activities.push(activity);
    }
    return {
      kind: 'resource',
      type: activityType.name,
      value: activities.map(asDocument),
      pagination: { total: page.total, limit: request.limit, offset: request.offset, returned: activities.length },
    };
  }

  function renderContext(
    event: RecordedEvent,
    projectId: number,
    projectNames: ReadonlyMap<number, string>,
    performers: ReadonlyMap<number, PerformerInfo>,
  ): RenderContext {
    const performedBy = event.meta.performed_by;
    return {
      projectId,
      projectName: projectNames.get(projectId) ?? '',
      performer: performedBy === null ? null : (performers.get(performedBy) ?? null),
      storyUrl: (id) => storyUrl(siteUrl, id),
      epicUrl: (id) => epicUrl(siteUrl, id),
    };
  }

  async function projectFeed(req: ApiRequest): Promise<ApiResult> {
    const access = req.project!;
    const page = pageRequest(req);
    const filter = await projectFilter(req, access.project);
    const head = isInteger(access.project['version'])
      ? access.project['version']
      : await deps.eventStore.streamVersion(`project-${access.id}`);
    const result = await projectFeedPage(deps.eventStore, access.id, head, filter, page);
    return render(result, projectNameMap(access.project), page);
  }

  /** The story or epic feed: the resource must exist in the project. */
  async function subjectFeed(req: ApiRequest, kind: 'story' | 'epic'): Promise<ApiResult> {
    const access = req.project!;
    const id = idParam(req.params[`${kind}_id`]);
    const page = pageRequest(req);
    const filter = await projectFilter(req, access.project);
    const exists = await (kind === 'story' ? stories : epics).findOne({ id, project_id: access.id });
    if (!exists) throw apiError('unfound_resource');
    const query = indexFilter({ subjects: `${kind}-${id}`, project_id: access.id }, filter);
    const result = await indexedFeedPage(deps.eventStore, byResource, query, page);
    return render(result, projectNameMap(access.project), page);
  }

  async function projectFilter(req: ApiRequest, project: Doc): Promise<FeedFilter> {
    const bounds = occurredBounds(req);
    const windows = await windowStarts([project], req.now);
    return { sinceVersion: sinceVersion(req), windowStart: windows.get(project.id) ?? null, ...bounds };
  }

  async function myFeed(req: ApiRequest): Promise<ApiResult> {
    const actor = req.actor!;
    const page = pageRequest(req);
    const bounds = occurredBounds(req);
    const memberProjectIds = (await memberships.find({ person_id: actor.id }))
      .map((membership) => membership['project_id'])
      .filter(isInteger);
    const projectDocs = memberProjectIds.length ? await projects.find({ id: { $in: memberProjectIds } }) : [];
    const windows = await windowStarts(projectDocs, req.now);
    const byWindow = new Map<number | null, number[]>();
    for (const [projectId, start] of windows) byWindow.set(start, [...(byWindow.get(start) ?? []), projectId]);
    const inWindow: Filter[] = [...byWindow].map(([start, ids]) =>
      start === null ? { project_id: { $in: ids } } : { project_id: { $in: ids }, occurred_at: { $gte: start } },
    );
    if (inWindow.length === 0) return render({ events: [], total: 0 }, new Map(), page);
    const query = indexFilter(
      { person_id: actor.id, $or: inWindow },
      { sinceVersion: 0, windowStart: null, ...bounds },
    );
    const result = await indexedFeedPage(deps.eventStore, byPerformer, query, page);
    const names = new Map(projectDocs.map((project) => [project.id, stringOrNull(project['name']) ?? '']));
    return render(result, names, page);
  }

  const routes: RouteDefinition[] = [
    { method: 'GET', path: '/projects/:project_id/activity', access: 'project:read', handle: projectFeed },
    {
      method: 'GET',
      path: '/projects/:project_id/stories/:story_id/activity',
      access: 'project:read',
      handle: (req) => subjectFeed(req, 'story'),
    },
    {
      method: 'GET',
      path: '/projects/:project_id/epics/:epic_id/activity',
      access: 'project:read',
      handle: (req) => subjectFeed(req, 'epic'),
    },
    { method: 'GET', path: '/my/activity', access: 'person', handle: myFeed },
  ];
  return { routes, types: [activityType] };
}

// ---- the resource type ----

/**
 * Activities have no `id` (the serializer leaves out an absent one) and a `kind` of their own
 * (`story_update_activity`, ...), so the type declares no fixed kind and lists `kind` as an attribute.
 */
export const activityType: ResourceType = {
  name: 'activity',
  attributes: [
    'kind',
    'guid',
    'project_version',
    'message',
    'highlight',
    'primary_resources',
    'secondary_resources',
    'project',
    'performed_by',
    'occurred_at',
    'project_id',
    'performed_by_id',
  ],
  datetimes: ['occurred_at'],
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
    changes: async (docs, ctx) => docs.map((doc) => renderChangeDatetimes(doc['changes'], ctx.millis)),
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

// ---- query parameters ----

function pageRequest(req: ApiRequest): PageRequest {
  const problems: ValidationError[] = [];
  const limit = nonNegativeInteger(req.query['limit'], 'limit', problems);
  const offset = nonNegativeInteger(req.query['offset'], 'offset', problems);
  if (problems.length) throw invalidParameter(problems);
  return { limit: Math.min(limit ?? DEFAULT_ACTIVITY_LIMIT, MAX_ACTIVITY_LIMIT), offset: offset ?? 0 };
}

function sinceVersion(req: ApiRequest): number {
  const problems: ValidationError[] = [];
  const since = nonNegativeInteger(req.query['since_version'], 'since_version', problems);
  if (problems.length) throw invalidParameter(problems);
  return since ?? 0;
}

function occurredBounds(req: ApiRequest): Pick<FeedFilter, 'occurredAfter' | 'occurredBefore'> {
  const problems: ValidationError[] = [];
  const occurredAfter = datetime(req.query['occurred_after'], 'occurred_after', problems);
  const occurredBefore = datetime(req.query['occurred_before'], 'occurred_before', problems);
  if (problems.length) throw invalidParameter(problems);
  return { occurredAfter, occurredBefore };
}

function nonNegativeInteger(raw: string | undefined, field: string, problems: ValidationError[]): number | null {
  if (raw === undefined || raw === '') return null;
  const value = /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (Number.isSafeInteger(value)) return value;
  problems.push({ field, problem: `${field} must be an integer of 0 or more` });
  return null;
}

/** A datetime parameter: integer ms since the epoch, or ISO 8601. */
function datetime(raw: string | undefined, field: string, problems: ValidationError[]): number | null {
  if (raw === undefined || raw === '') return null;
  const text = raw.trim();
  const value = /^-?\d{1,15}$/.test(text) ? Number(text) : /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (Number.isFinite(value)) return value;
  problems.push({ field, problem: `${field} must be an ISO 8601 datetime or integer milliseconds` });
  return null;
}

// ---- small readers ----

function projectNameMap(project: Doc): Map<number, string> {
  return new Map([[project.id, stringOrNull(project['name']) ?? '']]);
}

function performerInfo(person: Doc): PerformerInfo {
  return { id: person.id, name: stringOrNull(person['name']) ?? '', initials: stringOrNull(person['initials']) ?? '' };
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
