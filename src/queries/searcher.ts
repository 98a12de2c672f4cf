// Who searches and when, turned into the engine's SearchRequest (src/queries/search/search-project.ts)
// for every place a query runs: GET /projects/{id}/search, the `filter` of the stories list, saved
// searches. Dates are the searcher's local days (their profile time zone; the project's for an anonymous
// reader of a public project), `is:following` is the searcher's, and stories accepted before the start of
// the project's current iteration are the done ones (facts §5.2).
import type { Doc } from '../ports/read-store.js';
import { currentIteration } from './iterations/iterations-query.js';
import type { IterationReads } from './iterations/iteration-timeline.js';
import type { SearchRequest } from './search/search-project.js';

export interface Searcher {
  project: Doc;
  /** The person searching (a person document), null for an anonymous reader. */
  person: Doc | null;
  /** Request time, ms. */
  now: number;
  /** Most work their search may do in the read store (ReadBudget units); MAX_SEARCH_WORK when absent. */
  workLimit?: number;
}

const DEFAULT_TIME_ZONE = 'Etc/UTC';

/** The engine's request for `text`, sent in the request parameter `parameter` (named by a 400). */
export async function searchRequestOf(reads: IterationReads, searcher: Searcher, text: string, parameter: string): Promise<SearchRequest> {
  const { project, person, now, workLimit } = searcher;
  const current = await currentIteration(reads, project.id, now);
  return {
    projectId: project.id,
    text,
    parameter,
    searcherId: person === null ? null : person.id,
    now,
    timeZone: olsonNameOf(person) ?? olsonNameOf(project) ?? DEFAULT_TIME_ZONE,
    doneBefore: current.start,
    ...(workLimit !== undefined ? { workLimit } : {}),
  };
}

function olsonNameOf(doc: Doc | null): string | null {
  const zone = doc?.time_zone as { olson_name?: unknown } | undefined;
  return typeof zone?.olson_name === 'string' && zone.olson_name !== '' ? zone.olson_name : null;
}
