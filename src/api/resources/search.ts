// Search and saved searches (spec "Search and saved searches"; facts §5).
//
//   GET    /projects/:project_id/search?query=         readers; the search result (no kind): stories (done ones
//                                                      left out unless includedone:true) and epics; byte-cached
//                                                      under a key holding the searcher, their local day (and
//                                                      hour), the current iteration's start
//   GET    /projects/:project_id/my/searches           readers; the caller's own saved searches, by id
//   POST   /projects/:project_id/my/searches           readers (a saved search is the caller's own, viewers too);
//                                                      body `name`, `query` (must parse); the saved_search
//   DELETE /projects/:project_id/my/searches/:search_id   the caller's own; anyone else's is 404
//
// The query text goes through the one grammar (src/queries/search/); a bad query is a 400
// `invalid_parameter` on `query` saying what and at which character.
import { invalidField } from '../../domain/errors.js';
import { streams } from '../../domain/events.js';
import { decideCreateSavedSearch } from '../../domain/saved-search/create-saved-search.js';
import { decideDeleteSavedSearch } from '../../domain/saved-search/delete-saved-search.js';
import type { Doc } from '../../ports/read-store.js';
import { savedSearchesOf } from '../../queries/search/saved-searches.js';
import { analyticsReads } from '../../queries/analytics/analytics-query.js';
import { searchRequestOf } from '../../queries/searcher.js';
import { commandMeta } from '../command-meta.js';
import { idParam } from '../project-authorization.js';
import { requestSchema } from '../request-schema.js';
import type { Association, ResourceType } from '../resource-type.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { searcherCacheVariant, searcherOf } from './searcher-of-request.js';

/** A bucket of a search result nested as it is (it is not a stored resource). */
function nested(name: string, type: string, many: boolean): Association {
  return { type, ...(many ? { many: true } : {}), load: async (docs) => docs.map((doc) => doc[name] as Doc | Doc[]) };
}

const searchResultTypes: ResourceType[] = [
  {
    name: 'search_result_container',
    attributes: { query: 'string' },
    defaults: ['stories', 'epics', 'query'],
    associations: { stories: nested('stories', 'story_search_result', false), epics: nested('epics', 'epic_search_result', false) },
  },
  {
    name: 'story_search_result',
    attributes: { total_points: 'number', total_points_completed: 'number', total_hits: 'integer', total_hits_with_done: 'integer' },
    defaults: ['stories', 'total_points', 'total_points_completed', 'total_hits', 'total_hits_with_done'],
    associations: { stories: nested('stories', 'story', true) },
  },
  {
    name: 'epic_search_result',
    attributes: { total_hits: 'integer' },
    defaults: ['epics', 'total_hits'],
    associations: { epics: nested('epics', 'epic', true) },
  },
];

export const savedSearchType: ResourceType = {
  name: 'saved_search',
  kind: 'saved_search',
  attributes: { id: 'integer', project_id: 'integer', name: 'string', query: 'string' },
  defaults: ['kind', 'id', 'project_id', 'name', 'query'],
};

const SAVED_SEARCH_KEYS = new Set(['name', 'query']);
const checkSavedSearchBody = requestSchema<{ name: string; query: string }>({
  type: 'object',
  properties: { name: { type: 'string' }, query: { type: 'string' } },
  required: ['name', 'query'],
});

export function searchResources(deps: ResourceDeps): ResourceModule {
  const iterations = analyticsReads(deps.read, deps.readModelChanges);
  const { writer } = deps;

  async function search(req: ApiRequest): Promise<Doc> {
    const text = req.query['query'];
    if (text === undefined) throw invalidField('query', 'this endpoint requires the parameter: query');
    const request = await searchRequestOf(iterations, searcherOf(req, deps.settings.searchWork), text, 'query');
    // The container is no stored resource: it has no id (the serializer leaves an absent id out).
    return (await deps.queries.searches.search(request)) as unknown as Doc;
  }

  function savedSearchBody(req: ApiRequest): { name: string; query: string } {
    const extra = Object.keys(req.body).find((key) => !SAVED_SEARCH_KEYS.has(key));
    if (extra !== undefined) throw invalidField(extra, `A saved search takes only name and query; '${extra}' is not one of them.`);
    return checkSavedSearchBody.read(req);
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/projects/:project_id/search',
      access: 'project:read',
      cacheable: true,
      cacheVariant: (req) => searcherCacheVariant(iterations, req, 'query'),
      input: {
        query: {
          type: 'object',
          properties: { query: { type: 'string', description: 'The search (the search grammar of Tracker; includedone:true counts done stories).' } },
          required: ['query'],
        },
      },
      answers: { type: 'search_result_container' },
      summary: "Search a project's stories and epics",
      handle: async (req) => ({ kind: 'resource', type: 'search_result_container', value: await search(req) }),
    },
    {
      method: 'GET',
      path: '/projects/:project_id/my/searches',
      access: 'project:read',
      answers: { type: 'saved_search', list: true },
      summary: "The caller's saved searches in a project",
      async handle(req) {
        const value = req.actor === null ? [] : await savedSearchesOf(deps.read, req.project!.id, req.actor.id);
        return { kind: 'resource', type: 'saved_search', value: value as unknown as Doc[] };
      },
    },
    {
      method: 'POST',
      path: '/projects/:project_id/my/searches',
      access: 'project:read',
      input: { body: checkSavedSearchBody },
      answers: { type: 'saved_search', created: true },
      summary: 'Save a search',
      async handle(req) {
        const { doc, version } = await writer.onProject(req.project!.id, decideCreateSavedSearch, savedSearchBody(req), commandMeta(req));
        return { kind: 'resource', type: 'saved_search', value: doc, created: true, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: '/projects/:project_id/my/searches/:search_id',
      access: 'project:read',
      answers: 'empty',
      summary: 'Delete a saved search of the caller',
      async handle(req) {
        const command = { search_id: idParam(req.params['search_id']) };
        const outcome = await writer.execute(streams.project(req.project!.id), decideDeleteSavedSearch, command, commandMeta(req));
        return { kind: 'empty', projectVersion: outcome.version };
      },
    },
  ];
  // epics in a search result render with the epic type src/api/resources/epics.ts declares
  return { reference: { tag: 'Search', description: "Searching a project, and saved searches." }, routes, types: [...searchResultTypes, savedSearchType] };
}
