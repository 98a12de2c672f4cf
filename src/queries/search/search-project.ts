// What GET /projects/{id}/search computes (facts §5.1), and the filters behind the `filter` parameter of
// the stories and epics lists: parse the text (400 on the caller's parameter), resolve the names it
// uses, then the stories by sets of their terms' matches (search-sets.ts) or, for a short query whose
// project's rows are not kept, by one compiled read-store filter; the epics by one compiled filter. The
// caller (api/) supplies the clock, the searcher and their time zone, and the start of the project's
// current iteration (the done-story boundary).
import { invalidField } from '../../domain/errors.js';
import type { Doc, Filter, FilterTest, ReadBudget, SortSpec } from '../../ports/read-store.js';
import type { StoryReadDoc } from '../../projections/documents.js';
import { compileEpicSearch, compileStorySearch, type CompiledStorySearch, type SearchContext } from './search-compiler.js';
import { MAX_SEARCH_STORIES } from '../../domain/search/search-limits.js';
import { resolveSearchNames, type SearchReader } from './search-names.js';
import { parseSearchQuery } from '../../domain/search/search-parser.js';
import type { SearchQuery } from '../../domain/search/search-ast.js';
import { clockDependence } from '../../domain/search/search-dates.js';
import { withoutRepeats } from '../../domain/search/search-normal-form.js';
import { SearchBudget } from './search-budget.js';
import { matchingStories, tallied, termCount, type ProjectStoryRows, type StoryMatches } from './search-sets.js';
import type { KeptPerProject } from './kept-per-project.js';
import type { TextIndexCache } from './search-text-index.js';
import { paginationOf, type Page, type Paged } from '../page.js';

export interface SearchRequest {
  projectId: number;
  /** The query text as the client sent it. */
  text: string;
  /** The request parameter the text came in (`query`, `filter`), named by a 400. */
  parameter: string;
  /** The person searching (is:following), null for none. */
  searcherId: number | null;
  /** ms; relative dates (today, -2w) count from it. */
  now: number;
  /** The searcher's IANA time zone: dates are their local days. */
  timeZone: string;
  /** Start of the project's current iteration in ms (stories accepted before it are done); null: none. */
  doneBefore: number | null;
  /** Most work the search may do in the read store (ReadBudget units); MAX_SEARCH_WORK when absent. */
  workLimit?: number;
}

export interface StorySearchResult {
  stories: Doc[];
  total_hits: number;
  total_hits_with_done: number;
  total_points: number;
  total_points_completed: number;
}

/** The recorded search_result_container (no `kind`); stories and epics are read-model documents. */
export interface SearchResultContainer {
  query: string;
  stories: StorySearchResult;
  epics: { epics: Doc[]; total_hits: number };
}

const BY_PRIORITY = { rank: 1 } as const;

/**
 * The parsed query (each repeated operand once: search-normal-form.ts), the names it uses resolved, and
 * the request's work budget, which those lookups and every read of the matches are charged to. Each
 * step that follows (compiling, each read) starts after a turn of the event loop when one is due.
 */
async function prepare(
  read: SearchReader,
  request: SearchRequest,
  texts: TextIndexCache | null = null,
): Promise<{ query: SearchQuery; context: SearchContext; budget: SearchBudget }> {
  const query = withoutRepeats(parseSearchQuery(request.text, request.parameter));
  const budget = new SearchBudget(request.parameter, request.workLimit);
  const names = await resolveSearchNames(query, request.projectId, read, budget, texts);
  await budget.turnIfDue();
  const { projectId, searcherId, now, timeZone, doneBefore } = request;
  return { query, context: { projectId, searcherId, now, timeZone, doneBefore, names }, budget };
}

/**
 * What the answer to `request` depends on besides the project's version and the request's own
 * parameters, as a string (a part of a byte-cache key): the searcher (`is:following`), the clock as the
 * query's dates read it (their local day in their zone; the local hour with an hour term such as `-5h`),
 * and the done-story boundary (the start of the current iteration). A query that does not parse throws
 * the 400 the search itself would.
 */
export function searchAnswerDependence(request: SearchRequest): string {
  const query = parseSearchQuery(request.text, request.parameter);
  const clock = clockDependence(query, request);
  return `searcher ${request.searcherId ?? 'anonymous'}|${clock}|done before ${request.doneBefore ?? 'none'}`;
}

/**
 * Where the searches of the live read models run: `searchesOver` a reader evaluates them on the calling
 * thread; the composition root may hand the API one that evaluates them elsewhere (a worker thread over
 * its own connection to the read models: src/infra/search/) with the same answers.
 */
export interface StorySearches {
  /** GET /projects/{id}/search: the search result container. */
  search(request: SearchRequest): Promise<SearchResultContainer>;
  /** The `filter` of the stories list: one page of the matches in priority order, and their count. */
  storyPage(request: SearchRequest, page: Page): Promise<Paged<StoryReadDoc>>;
}

/** What searches are evaluated with besides the reader. */
export interface SearchTools {
  /** The stores' test of a condition on a document read (FilterTest). */
  test: FilterTest;
  /** Keep the projects' text indexes and stories' rows between searches (only where the read models' changes are known: the search worker). */
  texts?: TextIndexCache | null;
  rows?: KeptPerProject<ProjectStoryRows> | null;
  /** From how many terms sets answer a query whose project's rows are not kept (SETS_FROM_TERMS by default). */
  setsFromTerms?: number;
}

/** Searches evaluated here, over `read`. */
export function searchesOver(read: SearchReader, tools: SearchTools): StorySearches {
  return {
    search: (request) => searchProject(read, request, tools),
    storyPage: (request, page) => storySearchPage(read, request, page, tools),
  };
}

/**
 * The stories filters of a query (`filter` of the stories list: page over `filter` in priority order),
 * and the budget the reads of its matches are to be charged to.
 */
export async function storySearchFilters(read: SearchReader, request: SearchRequest): Promise<CompiledStorySearch & { budget: ReadBudget }> {
  const { query, context, budget } = await prepare(read, request);
  const compiled = compileStorySearch(query, context);
  await budget.turnIfDue();
  return { ...compiled, budget };
}

/** One page of a `filter` search's matches: the matches in priority order (matchesOf), then the page's stories whole. */
export async function storySearchPage(read: SearchReader, request: SearchRequest, page: Page, tools: SearchTools): Promise<Paged<StoryReadDoc>> {
  const { query, context, budget } = await prepare(read, request, tools.texts);
  const { ids } = await matchesOf(read, query, context, budget, tools);
  const pageIds = page.limit === 0 ? [] : ids.slice(page.offset, page.offset + page.limit);
  const value = await storiesWhole(read, request.projectId, pageIds, budget);
  return { value, pagination: paginationOf(ids.length, page, value.length) };
}

/**
 * From how many terms a query is answered by sets even when the project's rows are not kept. Sets read
 * every story's row of the project, which pays once the rows are kept (the search worker keeps them,
 * brought up to date after writes) and is the bounded way for a query of many terms; where none are
 * kept (a first search, the serving thread), a short query reads only its own matches through the
 * store's filter.
 */
const SETS_FROM_TERMS = 16;

/** The query's matches: by sets over the project's rows, or through one compiled store filter (SETS_FROM_TERMS). */
async function matchesOf(read: SearchReader, query: SearchQuery, context: SearchContext, budget: SearchBudget, tools: SearchTools): Promise<StoryMatches> {
  const rowsKept = (tools.rows ? await tools.rows.current(context.projectId) : null) !== null;
  if (rowsKept || termCount(query) >= (tools.setsFromTerms ?? SETS_FROM_TERMS)) return matchingStories(read, tools.test, query, context, budget, tools.rows ?? null);
  return matchesByFilter(read, query, context, budget);
}

/** The matches of one compiled filter read from the store, their totals from the two fields read. */
async function matchesByFilter(read: SearchReader, query: SearchQuery, context: SearchContext, budget: SearchBudget): Promise<StoryMatches> {
  const { filter, doneFilter } = compileStorySearch(query, context);
  await budget.turnIfDue();
  // One read after the other: each one's first statement runs at once when started, so started together they would run as one stretch.
  const found = await read('stories').find(filter, { sort: BY_PRIORITY, fields: ['current_state', 'estimate'], budget });
  const done = doneFilter === null ? [] : await read('stories').find(doneFilter, { fields: [], budget });
  return tallied(found, found.length + done.length);
}

/** The stories of `ids` whole, in priority order. */
async function storiesWhole(read: SearchReader, projectId: number, ids: readonly number[], budget: ReadBudget): Promise<StoryReadDoc[]> {
  return ids.length === 0 ? [] : read('stories').find({ project_id: projectId, id: { $in: [...ids] } }, { sort: BY_PRIORITY, budget });
}

/** The epics filter of a query (`filter` of the epics list); 400 when it uses terms epics do not have. */
export async function epicSearchFilter(read: SearchReader, request: SearchRequest): Promise<Filter> {
  return (await compiledEpicSearch(read, request)).filter;
}

/** The epics a query (`filter` of the epics list) matches, in `sort` order, read within the search's budget. */
export async function matchingEpics(read: SearchReader, request: SearchRequest, sort: SortSpec): Promise<Doc[]> {
  const { filter, budget } = await compiledEpicSearch(read, request);
  return read('epics').find(filter, { sort, budget });
}

async function compiledEpicSearch(read: SearchReader, request: SearchRequest): Promise<{ filter: Filter; budget: ReadBudget }> {
  const { query, context, budget } = await prepare(read, request);
  const filter = compileEpicSearch(query, context);
  if (filter === null) {
    throw invalidField(request.parameter, 'Epics are searched by text, name:, description:, id:, label: and created / updated dates only.');
  }
  await budget.turnIfDue();
  return { filter, budget };
}

/** 400 on a blank query (the spec requires `query`; listing everything is the stories list's job). */
export async function searchProject(read: SearchReader, request: SearchRequest, tools: SearchTools): Promise<SearchResultContainer> {
  const { query, context, budget } = await prepare(read, request, tools.texts);
  if (query === null) throw invalidField(request.parameter, 'Enter a search query.');
  const epicFilter = compileEpicSearch(query, context);
  // The matches with their totals (matchesOf), then the listed ones whole.
  const matches = await matchesOf(read, query, context, budget, tools);
  const epics = epicFilter === null ? [] : await read('epics').find(epicFilter, { sort: BY_PRIORITY, budget });
  const listed = await storiesWhole(read, request.projectId, matches.ids.slice(0, MAX_SEARCH_STORIES), budget);
  return {
    query: request.text,
    stories: {
      stories: listed,
      total_hits: matches.ids.length,
      total_hits_with_done: matches.totalWithDone,
      total_points: matches.points,
      total_points_completed: matches.pointsCompleted,
    },
    epics: { epics, total_hits: epics.length },
  };
}
