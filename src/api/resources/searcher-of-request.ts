// Who runs a search, as the search queries (src/queries/searcher.ts) need it: the request's project
// (resolved by the route's declared access), the caller (null when anonymous) and the request time;
// and what a search answer depends on beyond the project version, for the byte cache's key.
import type { IterationReads } from '../../queries/iterations/iteration-timeline.js';
import { searchAnswerDependence, type SearchRequest } from '../../queries/search/search-project.js';
import { searchRequestOf, type Searcher } from '../../queries/searcher.js';
import type { ApiRequest } from '../route-table.js';

/** The searcher of a request; `workLimit`: what their search may do (the server's setting). */
export function searcherOf(req: ApiRequest, workLimit?: number): Searcher {
  return { project: req.project!.project, person: req.actor, now: req.now, ...(workLimit !== undefined ? { workLimit } : {}) };
}

/**
 * The response-cache key part (`RouteDefinition.cacheVariant`) of a request searching the text of query
 * parameter `parameter`, the engine's request made by `requestOf`: the searcher, their local day (and
 * hour, with an hour term) and the current iteration's start; '' without that parameter. A text that
 * does not parse gives `unparsed`: the handler answers its 400, and error answers are never cached.
 */
export async function searchCacheVariant(
  req: ApiRequest,
  parameter: string,
  requestOf: (text: string) => SearchRequest | Promise<SearchRequest>,
): Promise<string> {
  const text = req.query[parameter];
  if (text === undefined) return '';
  try {
    return searchAnswerDependence(await requestOf(text));
  } catch {
    return 'unparsed';
  }
}

/** The same for a search run by the request's caller (`searchRequestOf`): `/search` and the stories list. */
export function searcherCacheVariant(reads: IterationReads, req: ApiRequest, parameter: string): Promise<string> {
  return searchCacheVariant(req, parameter, (text) => searchRequestOf(reads, searcherOf(req), text, parameter));
}
