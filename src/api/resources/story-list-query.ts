// Query parameters of the paginated story lists (stories, releases): pagination, the `with_*` filters
// and the date ranges, checked with ajv (query strings coerced to integers) and turned into a read-store
// filter.
//
// Choices (the facts leave them open):
// - `limit` defaults to 100 and larger values are reduced to 500 (as the service did); it must be at
//   least 1; `offset` defaults to 0. Both must be integers.
// - Date ranges `<x>_after` / `<x>_before` (x = accepted, created, updated, deadline) are EXCLUSIVE:
//   `created_after=T` keeps stories created strictly after T. Values are ISO 8601 or integer ms.
//   A story without the attribute (an unaccepted story, a release without deadline) never matches a
//   bound on it.
// - `after_story_id` / `before_story_id` keep the stories strictly below / above that story in the
//   priority order; a story that is not in the project answers 400.
import { invalidField } from '../../domain/errors.js';
import { STORY_PRIORITIES, STORY_STATES, STORY_TYPES } from '../../domain/story/story-rules.js';
import type { Pagination } from '../route-table.js';
import { requestSchema } from '../request-schema.js';
import { datetimeOf } from './story-request.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;

export const DATE_RANGE_ATTRIBUTES = ['accepted_at', 'created_at', 'updated_at', 'deadline'] as const;

const DATE_PARAMS = Object.fromEntries(
  DATE_RANGE_ATTRIBUTES.flatMap((attribute) => {
    const stem = attribute.replace(/_at$/, '');
    return [[`${stem}_before`, { type: 'string' }], [`${stem}_after`, { type: 'string' }]];
  }),
);

export interface StoryListQuery {
  limit?: number;
  offset?: number;
  with_state?: string;
  with_label?: string;
  with_story_type?: string;
  with_story_priority?: string;
  after_story_id?: number;
  before_story_id?: number;
  filter?: string;
  [dateParam: string]: unknown;
}

const checkStoryListQuery = requestSchema<StoryListQuery>({
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1 },
    offset: { type: 'integer', minimum: 0 },
    with_state: { enum: STORY_STATES },
    with_label: { type: 'string' },
    with_story_type: { enum: STORY_TYPES },
    with_story_priority: { enum: STORY_PRIORITIES },
    after_story_id: { type: 'integer' },
    before_story_id: { type: 'integer' },
    filter: { type: 'string' },
    ...DATE_PARAMS,
  },
});

/** The stories list query, coerced (a copy: the request's query stays as sent, for the cache key). */
export function storyListQuery(query: Readonly<Record<string, string>>): StoryListQuery {
  return checkStoryListQuery({ ...query });
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

/** `{ attribute: { $gt, $lt } }` for the date-range parameters present. */
export function dateRangeFilter(query: StoryListQuery): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  for (const attribute of DATE_RANGE_ATTRIBUTES) {
    const stem = attribute.replace(/_at$/, '');
    const bounds: Record<string, number> = {};
    for (const [suffix, operator] of [['after', '$gt'], ['before', '$lt']] as const) {
      const param = `${stem}_${suffix}`;
      const value = query[param];
      if (typeof value === 'string') bounds[operator] = datetimeOf(param, value)!;
    }
    if (Object.keys(bounds).length > 0) filter[attribute] = bounds;
  }
  return filter;
}

/** limit (default 100, at most 500) and offset (default 0). */
export function pageOf(query: Pick<StoryListQuery, 'limit' | 'offset'>): { limit: number; offset: number } {
  return { limit: Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT), offset: query.offset ?? 0 };
}

/** One page of `items` and its pagination. */
export function paginate<T>(items: readonly T[], page: { limit: number; offset: number }): { value: T[]; pagination: Pagination } {
  const value = items.slice(page.offset, page.offset + page.limit);
  return { value, pagination: { total: items.length, limit: page.limit, offset: page.offset, returned: value.length } };
}
