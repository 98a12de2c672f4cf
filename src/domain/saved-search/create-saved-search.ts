// Saving a search in a project for the person who saves it: its name and a query that parses.
import type { ProjectState } from '../project-state.js';
import { parseSearchQuery } from '../search/search-parser.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidParameter, type ValidationError } from '../errors.js';
import type { DecidedChange } from '../events.js';
import { type SavedSearchDoc, MAX_SAVED_SEARCH_NAME_LENGTH, searchesOf, ownerOf, savedSearchRef } from './saved-search-rules.js';

export interface CreateSavedSearchCommand {
  name: unknown;
  query: unknown;
}

export function decideCreateSavedSearch(command: CreateSavedSearchCommand, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const owner = ownerOf(context);
  const name = typeof command.name === 'string' ? command.name.trim() : '';
  const query = typeof command.query === 'string' ? command.query : '';
  const problems: ValidationError[] = [];
  if (name === '') problems.push({ field: 'name', problem: "Name can't be blank" });
  else if (name.length > MAX_SAVED_SEARCH_NAME_LENGTH) problems.push({ field: 'name', problem: `Name is at most ${MAX_SAVED_SEARCH_NAME_LENGTH} characters long` });
  else if (searchesOf(state, owner).some((search) => search.name.toLowerCase() === name.toLowerCase())) {
    problems.push({ field: 'name', problem: 'Name has already been taken' });
  }
  if (query.trim() === '') problems.push({ field: 'query', problem: "Query can't be blank" });
  if (problems.length > 0) throw invalidParameter(problems);
  parseSearchQuery(query, 'query');
  const search: SavedSearchDoc = {
    id: context.nextId('saved_search'),
    project_id: state.projectId,
    name,
    query,
    owner_id: owner,
    created_at: context.now,
    updated_at: context.now,
  };
  const change: DecidedChange = { kind: 'saved_search', change_type: 'create', id: search.id, name, new_values: { ...search } };
  return { type: 'saved_search_create', data: { changes: [change], primary_resources: [savedSearchRef(search)] }, subject: { kind: 'saved_search', id: search.id } };
}
