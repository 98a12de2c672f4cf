// Deciders for saved searches (spec "saved_search": kind, id, project_id, name, query). A saved search
// lives in its project's stream like every project write (one event per request) and belongs to the
// person who saved it: `owner_id` is kept on the resource (never rendered), and only that person sees or
// deletes it. The query must be a valid search (the one grammar, domain/search/search-parser.ts: pure,
// no I/O), so a saved search always runs. Names are unique per owner within the project, ignoring case.
import type { ProjectState } from '../project-state.js';
import { parseSearchQuery } from '../search/search-parser.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidParameter, unauthorized, unfound, type ValidationError } from '../errors.js';
import type { DecidedChange, ResourceRef } from '../events.js';
import type { ResourceDoc } from '../resource-state.js';

export interface SavedSearchDoc extends ResourceDoc {
  project_id: number;
  name: string;
  query: string;
  owner_id: number;
  created_at: number;
  updated_at: number;
}

export interface CreateSavedSearchCommand {
  name: unknown;
  query: unknown;
}

export interface DeleteSavedSearchCommand {
  search_id: number;
}

export const MAX_SAVED_SEARCH_NAME_LENGTH = 255;

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

/** Deletes the actor's own saved search; anyone else's is unfound (saved searches are private). */
export function decideDeleteSavedSearch(command: DeleteSavedSearchCommand, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const search = state.savedSearches.get(command.search_id);
  if (!search || search.owner_id !== ownerOf(context)) throw unfound();
  const change: DecidedChange = { kind: 'saved_search', change_type: 'delete', id: search.id, name: search.name, original_values: { ...search } };
  return { type: 'saved_search_delete', data: { changes: [change], primary_resources: [savedSearchRef(search)] }, subject: { kind: 'saved_search', id: search.id } };
}

/** The saved searches of one person in the project, by id. */
export function searchesOf(state: ProjectState, ownerId: number): SavedSearchDoc[] {
  return [...state.savedSearches].filter((search) => search.owner_id === ownerId).sort((a, b) => a.id - b.id);
}

function ownerOf(context: DecisionContext): number {
  if (context.actorId === null) throw unauthorized('A saved search belongs to a person; operator commands cannot save one.');
  return context.actorId;
}

function savedSearchRef(search: SavedSearchDoc): ResourceRef {
  return { kind: 'saved_search', id: search.id, name: search.name };
}
