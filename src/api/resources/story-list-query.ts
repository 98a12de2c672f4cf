// Query parameters of the paginated story lists (stories, releases), read into the criteria of
// src/queries/story-lists.ts: the `with_*` filters (checked with ajv), the date ranges
// (`<x>_after` / `<x>_before`, x = accepted, created, updated, deadline; read by the one datetime
// parser), `after_story_id` / `before_story_id`, `filter`, and the page (the one pageParams).
import { invalidField } from '../../domain/errors.js';
import { STORY_PRIORITIES, STORY_STATES, STORY_TYPES } from '../../domain/story/story-rules.js';
import type { Page } from '../../queries/page.js';
import type { Searcher } from '../../queries/searcher.js';
import { DATE_RANGE_ATTRIBUTES, type DateRanges, type StoryListCriteria } from '../../queries/story-lists.js';
import { DATETIME_PARAMETER, datetimeParameter } from '../datetime-parameter.js';
import { pageParams } from '../page-params.js';
import { requestSchema } from '../request-schema.js';
import { queryParameters, type QueryParameters } from '../route-table.js';

interface ListParams {
  with_state?: string;
  with_label?: string;
  with_story_type?: string;
  with_story_priority?: string;
  after_story_id?: number;
  before_story_id?: number;
  filter?: string;
}

const checkStoryListParams = requestSchema<ListParams>({
  type: 'object',
  properties: {
    with_state: { enum: STORY_STATES },
    with_label: { type: 'string' },
    with_story_type: { enum: STORY_TYPES },
    with_story_priority: { enum: STORY_PRIORITIES },
    after_story_id: { type: 'integer' },
    before_story_id: { type: 'integer' },
    filter: { type: 'string' },
  },
});

const checkReleaseListParams = requestSchema<Pick<ListParams, 'with_state'>>({
  type: 'object',
  properties: { with_state: { enum: STORY_STATES } },
});

/** The parameters of a date range on `attribute` (`accepted_at`: `accepted_after`, `accepted_before`). */
function rangeParameterNames(attribute: string): { after: string; before: string } {
  const stem = attribute.replace(/_at$/, '');
  return { after: `${stem}_after`, before: `${stem}_before` };
}

/** Every date range parameter, for the OpenAPI document. */
const DATE_RANGE_PARAMETERS: QueryParameters = {
  type: 'object',
  properties: Object.fromEntries(DATE_RANGE_ATTRIBUTES.flatMap((attribute) => {
    const { after, before } = rangeParameterNames(attribute);
    return [
      [after, { ...DATETIME_PARAMETER, description: `${attribute} after this instant: ${String(DATETIME_PARAMETER.description)}` }],
      [before, { ...DATETIME_PARAMETER, description: `${attribute} before this instant: ${String(DATETIME_PARAMETER.description)}` }],
    ];
  })),
};

/** What storyListQuery reads beside the page. */
export const STORY_LIST_PARAMETERS = queryParameters(checkStoryListParams.schema, DATE_RANGE_PARAMETERS);

/** What releaseListQuery reads beside the page. */
export const RELEASE_LIST_PARAMETERS = queryParameters(checkReleaseListParams.schema, DATE_RANGE_PARAMETERS);

/** GET /projects/:id/stories: the criteria (`filter` run as `searcher`) and the page (a copy: the request's query stays as sent, for the cache key). */
export function storyListQuery(query: Readonly<Record<string, string>>, searcher: Searcher): { criteria: StoryListCriteria; page: Page } {
  assertFilterAlone(query);
  const params = checkStoryListParams({ ...query });
  const criteria: StoryListCriteria = { ranges: dateRanges(query) };
  if (params.with_state !== undefined) criteria.state = params.with_state;
  if (params.with_story_type !== undefined) criteria.storyType = params.with_story_type;
  if (params.with_story_priority !== undefined) criteria.priority = params.with_story_priority;
  if (params.with_label !== undefined) criteria.label = params.with_label;
  if (params.after_story_id !== undefined) criteria.afterStoryId = params.after_story_id;
  if (params.before_story_id !== undefined) criteria.beforeStoryId = params.before_story_id;
  if (params.filter !== undefined) criteria.search = { text: params.filter, searcher };
  return { criteria, page: pageParams(query) };
}

/** GET /projects/:id/releases: `with_state`, the date ranges and the page. */
export function releaseListQuery(query: Readonly<Record<string, string>>): { criteria: Pick<StoryListCriteria, 'state' | 'ranges'>; page: Page } {
  const params = checkReleaseListParams({ ...query });
  return {
    criteria: { ranges: dateRanges(query), ...(params.with_state !== undefined ? { state: params.with_state } : {}) },
    page: pageParams(query),
  };
}

/** Parameters `filter` may be combined with (spec: `project_id`, `date_format`, `limit`, `offset`). */
const FILTER_COMPANIONS = new Set(['filter', 'date_format', 'limit', 'offset', 'fields', 'envelope', 'token']);

/** Throws when `filter` is sent together with parameters other than its companions. */
export function assertFilterAlone(query: Readonly<Record<string, string>>): void {
  if (query['filter'] === undefined) return;
  const others = Object.keys(query).filter((name) => !FILTER_COMPANIONS.has(name));
  if (others.length > 0) {
    throw invalidField(
      'filter',
      `filter can only be combined with date_format, limit, offset, fields, envelope and token; also sent: ${others.join(', ')}`,
    );
  }
}

function dateRanges(query: Readonly<Record<string, string>>): DateRanges {
  const ranges: DateRanges = {};
  for (const attribute of DATE_RANGE_ATTRIBUTES) {
    const names = rangeParameterNames(attribute);
    const after = query[names.after];
    const before = query[names.before];
    if (after === undefined && before === undefined) continue;
    ranges[attribute] = {
      ...(after !== undefined ? { after: datetimeParameter(names.after, after)! } : {}),
      ...(before !== undefined ? { before: datetimeParameter(names.before, before)! } : {}),
    };
  }
  return ranges;
}
