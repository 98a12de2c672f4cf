// Deciders for saved searches (spec "saved_search": kind, id, project_id, name, query). A saved search
// lives in its project's stream like every project write (one event per request) and belongs to the
// person who saved it: `owner_id` is kept on the resource (never rendered), and only that person sees or
// deletes it. The query must be a valid search (the one grammar, domain/search/search-parser.ts: pure,
// no I/O), so a saved search always runs. Names are unique per owner within the project, ignoring case.
// What its deciders (create-saved-search.ts, delete-saved-search.ts) share.
import type { ProjectState } from '../project-state.js';
import type { DecisionContext } from '../decision.js';
import { unauthorized } from '../errors.js';
import type { ResourceRef } from '../events.js';
import type { ResourceDoc } from '../resource-state.js';

export interface SavedSearchDoc extends ResourceDoc {
  project_id: number;
  name: string;
  query: string;
  owner_id: number;
  created_at: number;
  updated_at: number;
}

export const MAX_SAVED_SEARCH_NAME_LENGTH = 255;

/** The saved searches of one person in the project, by id. */
export function searchesOf(state: ProjectState, ownerId: number): SavedSearchDoc[] {
  return [...state.savedSearches].filter((search) => search.owner_id === ownerId).sort((a, b) => a.id - b.id);
}

export function ownerOf(context: DecisionContext): number {
  if (context.actorId === null) throw unauthorized('A saved search belongs to a person; operator commands cannot save one.');
  return context.actorId;
}

export function savedSearchRef(search: SavedSearchDoc): ResourceRef {
  return { kind: 'saved_search', id: search.id, name: search.name };
}
