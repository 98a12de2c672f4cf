// Who runs a search, as the search queries (src/queries/searcher.ts) need it: the request's project
// (resolved by the route's declared access), the caller (null when anonymous) and the request time.
import type { Searcher } from '../../queries/searcher.js';
import type { ApiRequest } from '../route-table.js';

export function searcherOf(req: ApiRequest): Searcher {
  return { project: req.project!.project, person: req.actor, now: req.now };
}
