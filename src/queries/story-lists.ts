// What the story list GETs compute (stories, releases, the stories of a release), over the read store:
// the `with_*` filters and date ranges as one read-store filter, or the `filter` search compiled by the
// search engine (src/queries/search/), the priority order and the page.
//
// Choices (recorded in docs/decisions.md):
// - Date ranges `<x>_after` / `<x>_before` are EXCLUSIVE; a story without the attribute (an unaccepted
//   story, a release without deadline) never matches a bound on it.
// - `after_story_id` / `before_story_id` keep the stories strictly below / above that story in the
//   priority order; a story that is not in the project answers 400.
import { invalidField } from '../domain/errors.js';
import { normalizedLabelName } from '../domain/project-state.js';
import type { Doc, Filter, ReadCollection } from '../ports/read-store.js';
import type { LabelReadDoc, StoryReadDoc } from '../projections/documents.js';
import type { IterationReads } from './iterations/iteration-timeline.js';
import { paginate, paginationOf, type Page, type Paged } from './page.js';
import type { StorySearches } from './search/search-project.js';
import { searchRequestOf, type Searcher } from './searcher.js';

type ReadView<D extends Doc> = Pick<ReadCollection<D>, 'find' | 'findOne' | 'count'>;
type StoryFinder = Pick<ReadCollection<StoryReadDoc>, 'find'>;

export interface StoryListReads {
  stories: ReadView<StoryReadDoc>;
  labels: ReadView<LabelReadDoc>;
  /** Where a `filter` search runs. */
  searches: StorySearches;
  /** The iteration models (a `filter` search's done stories). */
  iterations: IterationReads;
}

export const DATE_RANGE_ATTRIBUTES = ['accepted_at', 'created_at', 'updated_at', 'deadline'] as const;
export type DateRangeAttribute = (typeof DATE_RANGE_ATTRIBUTES)[number];

/** Exclusive bounds per datetime attribute, in ms. */
export type DateRanges = Partial<Record<DateRangeAttribute, { after?: number; before?: number }>>;

export interface StoryListCriteria {
  state?: string;
  storyType?: string;
  priority?: string;
  /** A label name: stories carrying it. */
  label?: string;
  afterStoryId?: number;
  beforeStoryId?: number;
  ranges: DateRanges;
  /** The `filter` search: its text and who runs it (the only criterion then: the API refuses others). */
  search?: { text: string; searcher: Searcher };
}

/** Stories matching `filter` in priority order (rank, then id). */
export function orderedStories(stories: StoryFinder, filter: Record<string, unknown>): Promise<StoryReadDoc[]> {
  return stories.find(filter, { sort: { rank: 1 } });
}

/** The ids of a project's stories in priority order. */
export async function orderedStoryIds(stories: StoryFinder, projectId: number): Promise<number[]> {
  return (await orderedStories(stories, { project_id: projectId })).map((doc) => doc.id);
}

/** GET /projects/:id/stories: one page of the project's stories in priority order. */
export async function storyList(reads: StoryListReads, projectId: number, criteria: StoryListCriteria, page: Page): Promise<Paged<StoryReadDoc>> {
  if (criteria.search !== undefined) {
    const request = await searchRequestOf(reads.iterations, criteria.search.searcher, criteria.search.text, 'filter');
    return reads.searches.storyPage(request, page);
  }
  const filter: Record<string, unknown> = { project_id: projectId, ...dateRangeFilter(criteria.ranges) };
  if (criteria.state !== undefined) filter.current_state = criteria.state;
  if (criteria.storyType !== undefined) filter.story_type = criteria.storyType;
  if (criteria.priority !== undefined) filter.story_priority = criteria.priority;
  if (criteria.label !== undefined) {
    const label = await reads.labels.findOne({ project_id: projectId, name: normalizedLabelName(criteria.label) });
    filter.label_ids = label ? label.id : -1;
  }
  const rank: Record<string, string> = {};
  for (const [param, anchorId, operator] of [
    ['after_story_id', criteria.afterStoryId, '$gt'],
    ['before_story_id', criteria.beforeStoryId, '$lt'],
  ] as const) {
    if (anchorId === undefined) continue;
    const anchor = await reads.stories.findOne({ id: anchorId, project_id: projectId });
    if (!anchor) throw invalidField(param, `Story ${anchorId} is not in this project.`);
    rank[operator] = anchor.rank;
  }
  if (Object.keys(rank).length > 0) filter.rank = rank;

  return storyPage(reads.stories, filter, page);
}

/** One page of the stories `filter` selects, in priority order, with the count of them all. */
async function storyPage(stories: ReadView<StoryReadDoc>, filter: Filter, page: Page): Promise<Paged<StoryReadDoc>> {
  const total = await stories.count(filter);
  const value = page.limit === 0 ? [] : await stories.find(filter, { sort: { rank: 1 }, skip: page.offset, limit: page.limit });
  return { value, pagination: paginationOf(total, page, value.length) };
}

/** GET /projects/:id/releases: one page of the project's releases in priority order. */
export async function releaseList(
  stories: StoryFinder,
  projectId: number,
  criteria: Pick<StoryListCriteria, 'state' | 'ranges'>,
  page: Page,
): Promise<Paged<StoryReadDoc>> {
  const filter: Record<string, unknown> = { project_id: projectId, story_type: 'release', ...dateRangeFilter(criteria.ranges) };
  if (criteria.state !== undefined) filter.current_state = criteria.state;
  return paginate(await orderedStories(stories, filter), page);
}

/** The stories of a release: below the previous release in the order, down to this one. */
export async function releaseStories(stories: StoryFinder, projectId: number, releaseId: number): Promise<StoryReadDoc[]> {
  const ordered = await orderedStories(stories, { project_id: projectId });
  const at = ordered.findIndex((doc) => doc.id === releaseId);
  let start = at;
  while (start > 0 && ordered[start - 1]!.story_type !== 'release') start--;
  return ordered.slice(start, at);
}

/** `{ attribute: { $gt, $lt } }` for the ranges given. */
function dateRangeFilter(ranges: DateRanges): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  for (const attribute of DATE_RANGE_ATTRIBUTES) {
    const range = ranges[attribute];
    if (!range) continue;
    const bounds: Record<string, number> = {};
    if (range.after !== undefined) bounds['$gt'] = range.after;
    if (range.before !== undefined) bounds['$lt'] = range.before;
    if (Object.keys(bounds).length > 0) filter[attribute] = bounds;
  }
  return filter;
}
