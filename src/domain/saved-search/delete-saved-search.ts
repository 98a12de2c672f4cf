// Deleting a saved search: only the person who saved it may.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { unfound } from '../errors.js';
import type { DecidedChange } from '../events.js';
import { ownerOf, savedSearchRef } from './saved-search-rules.js';

export interface DeleteSavedSearchCommand {
  search_id: number;
}

/** Deletes the actor's own saved search; anyone else's is unfound (saved searches are private). */
export function decideDeleteSavedSearch(command: DeleteSavedSearchCommand, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const search = state.savedSearches.get(command.search_id);
  if (!search || search.owner_id !== ownerOf(context)) throw unfound();
  const change: DecidedChange = { kind: 'saved_search', change_type: 'delete', id: search.id, name: search.name, original_values: { ...search } };
  return { type: 'saved_search_delete', data: { changes: [change], primary_resources: [savedSearchRef(search)] }, subject: { kind: 'saved_search', id: search.id } };
}
