// A project's epics (each with exactly one label: the stories carrying it belong to the epic).
//
//   GET    /projects/:project_id/epics             readers; in the epic order; `filter` searches (search engine)
//   POST   /projects/:project_id/epics             writers; `name`, `description`, `label`, `label_id`,
//                                                  `comments`, `before_id` / `after_id`
//   GET    /projects/:project_id/epics/:epic_id    readers
//   PUT    /projects/:project_id/epics/:epic_id    writers; `name`, `description`, `label`, `label_id`, position
//   DELETE /projects/:project_id/epics/:epic_id    writers; the label and its stories stay, comments go
//   GET    /epics/:epic_id                         readers of the epic's project
//
// Default keys per facts §12; `label_id`, `comments`, `comment_ids`, `follower_ids`, `before_id`,
// `after_id` on request. `pull_requests` and `branches` in a create are refused (no source shows them).
import type { SchemaObject } from 'ajv';
import { decideCreateEpic } from '../../domain/epic/create-epic.js';
import { decideDeleteEpic } from '../../domain/epic/delete-epic.js';
import { decideUpdateEpic } from '../../domain/epic/update-epic.js';
import type { CreateEpicCommand } from '../../domain/epic/create-epic.js';
import type { UpdateEpicCommand } from '../../domain/epic/update-epic.js';
import { streams } from '../../domain/events.js';
import { LIST_LIMITS, TEXT_LIMITS } from '../../domain/input-limits.js';
import type { Doc, ReadOnlyCollection } from '../../ports/read-store.js';
import type { CommentReadDoc, EpicReadDoc, LabelReadDoc } from '../../projections/documents.js';
import { matchingEpics, type SearchRequest } from '../../queries/search/search-project.js';
import { commandMeta } from '../command-meta.js';
import { isXhr, missingCredentials } from '../authentication.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { requestSchema, text } from '../request-schema.js';
import type { RenderScope } from '../render-scope.js';
import type { ResourceType } from '../resource-type.js';
import type { ApiRequest, ApiResult, RouteDefinition, RouteRequest } from '../route-table.js';
import { NEW_COMMENT, newCommentsOf } from './comment-request.js';
import { commentsAssociation } from './comment-type.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { searchCacheVariant } from './searcher-of-request.js';
import { assertFilterAlone } from './story-list-query.js';
import { epicUrl } from './web-addresses.js';

const integer = { type: 'integer' } as const;
const nullableInteger = { type: ['integer', 'null'] } as const;
const labelName = text(TEXT_LIMITS.label_name);
const EPIC_LABEL: SchemaObject = {
  anyOf: [integer, { type: 'object', properties: { id: integer, name: labelName } }],
};
const EPIC_ATTRIBUTES = {
  name: text(TEXT_LIMITS.epic_name),
  description: text(TEXT_LIMITS.epic_description, true),
  label: EPIC_LABEL,
  label_id: integer,
  before_id: nullableInteger,
  after_id: nullableInteger,
} as const;

const checkCreate = requestSchema<Omit<CreateEpicCommand, 'comments'> & { comments?: Record<string, unknown>[] }>({
  type: 'object',
  properties: { ...EPIC_ATTRIBUTES, comments: { type: 'array', items: NEW_COMMENT, maxItems: LIST_LIMITS.nested_comments } },
  required: ['name'],
  additionalProperties: false,
});
const checkUpdate = requestSchema<Omit<UpdateEpicCommand, 'epic_id'>>({
  type: 'object',
  properties: EPIC_ATTRIBUTES,
  additionalProperties: false,
});

export function epicResourceType(deps: {
  epics: ReadOnlyCollection<EpicReadDoc>;
  labels: ReadOnlyCollection<LabelReadDoc>;
  comments: ReadOnlyCollection<CommentReadDoc>;
  siteUrl: string;
}): ResourceType<EpicReadDoc> {
  return {
    name: 'epic',
    kind: 'epic',
    attributes: {
      id: 'integer', project_id: 'integer', name: 'string', description: 'string', label_id: 'integer', follower_ids: 'integer[]',
      created_at: 'datetime', updated_at: 'datetime', url: 'string', before_id: 'integer', after_id: 'integer', comment_ids: 'integer[]',
    },
    defaults: ['kind', 'id', 'created_at', 'updated_at', 'project_id', 'name', 'description', 'url', 'label'],
    associations: {
      label: {
        type: 'label',
        ids: 'label_id',
        alternative: true,
        async load(docs) {
          const found = await deps.labels.find({ id: { $in: docs.map((doc) => doc.label_id) } });
          const byId = new Map(found.map((label) => [label.id, label]));
          return docs.map((doc) => byId.get(doc.label_id) ?? null);
        },
      },
      comments: commentsAssociation(deps.comments, 'epic_id'),
    },
    computed: {
      url: async (docs) => docs.map((doc) => epicUrl(deps.siteUrl, doc.id)),
      before_id: async (docs, ctx) => (await epicNeighbours(deps.epics, docs, ctx.scope)).map((pair) => pair.before_id),
      after_id: async (docs, ctx) => (await epicNeighbours(deps.epics, docs, ctx.scope)).map((pair) => pair.after_id),
    },
  };
}

/** The epic order (rank, then id), as the deciders order them. */
const EPIC_ORDER = { rank: 1, id: 1 } as const;

/** Epics of a project in the epic order. */
export function orderedEpicDocs(epics: Pick<ReadOnlyCollection<EpicReadDoc>, 'find'>, filter: Record<string, unknown>): Promise<EpicReadDoc[]> {
  return epics.find(filter, { sort: EPIC_ORDER });
}

/** Each epic's neighbours in its project's order (`after_id` above, `before_id` below). */
function epicNeighbours(epics: ReadOnlyCollection<EpicReadDoc>, docs: readonly EpicReadDoc[], scope: RenderScope) {
  return scope.memo(docs, 'epic-neighbours', async () => {
    const projectIds = [...new Set(docs.map((doc) => doc.project_id))];
    const order = new Map<number, number[]>();
    for (const projectId of projectIds) {
      order.set(projectId, (await orderedEpicDocs(epics, { project_id: projectId })).map((doc) => doc.id));
    }
    return docs.map((doc) => {
      const ids = order.get(doc.project_id)!;
      const at = ids.indexOf(doc.id);
      return at < 0 ? { before_id: null, after_id: null } : { after_id: ids[at - 1] ?? null, before_id: ids[at + 1] ?? null };
    });
  });
}

export function epicResources(deps: ResourceDeps): ResourceModule {
  const epics = deps.read('epics');
  const people = deps.read('people');
  const { writer } = deps;
  const epicType = epicResourceType({ epics, labels: deps.read('labels'), comments: deps.read('comments'), siteUrl: deps.settings.siteUrl });

  const epic = (value: Doc, projectVersion?: number, created = false): ApiResult => ({
    kind: 'resource',
    type: 'epic',
    value,
    ...(projectVersion !== undefined ? { projectVersion } : {}),
    ...(created ? { created: true } : {}),
  });

  async function pathEpic(req: ApiRequest): Promise<EpicReadDoc> {
    const found = await epics.findOne({ id: idParam(req.params['epic_id']), project_id: req.project!.id });
    if (!found) throw apiError('unfound_resource');
    return found;
  }

  async function list(req: ApiRequest): Promise<ApiResult> {
    const projectId = req.project!.id;
    const search = req.query['filter'];
    if (search === undefined) return { kind: 'resource', type: 'epic', value: await orderedEpicDocs(epics, { project_id: projectId }) };
    assertFilterAlone(req.query);
    return { kind: 'resource', type: 'epic', value: await matchingEpics(deps.read, epicSearchRequest(req, search), EPIC_ORDER) };
  }

  function epicSearchRequest(req: ApiRequest, text: string): SearchRequest {
    const zone = req.project!.project.time_zone as { olson_name?: string } | undefined;
    return {
      projectId: req.project!.id,
      text,
      parameter: 'filter',
      searcherId: req.actor?.id ?? null,
      now: req.now,
      timeZone: zone?.olson_name ?? 'Etc/UTC',
      doneBefore: null,
      workLimit: deps.settings.searchWork,
    };
  }

  /** A `filter` depends on today (relative dates): its answer is cached under the day (and hour) it read. */
  const listCacheVariant = (req: ApiRequest) => searchCacheVariant(req, 'filter', (text) => epicSearchRequest(req, text));

  /** The project of `/epics/:epic_id`; anonymous callers get 401 for ids of private projects and unknown ids alike. */
  const epicProject = {
    level: 'project:read' as const,
    async of(req: RouteRequest): Promise<number> {
      const found = await epics.findOne({ id: idParam(req.params['epic_id']) });
      if (!found) throw req.actor ? apiError('unfound_resource') : missingCredentials(isXhr(req));
      return Number(found.project_id);
    },
  };

  const base = '/projects/:project_id/epics';
  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: base,
      access: 'project:read',
      cacheable: true,
      cacheVariant: listCacheVariant,
      input: { query: { type: 'object', properties: { filter: { type: 'string', description: 'A search (the search grammar of Tracker): only the epics it finds.' } } } },
      answers: { type: 'epic', list: true },
      summary: "A project's epics, in their order",
      handle: list,
    },
    {
      method: 'POST',
      path: base,
      access: 'project:write',
      input: { body: checkCreate },
      answers: { type: 'epic', created: true },
      summary: 'Create an epic (with its label, made when named by name)',
      async handle(req) {
        const { comments, ...body } = checkCreate.read(req);
        const command: CreateEpicCommand = { ...body, ...(comments ? { comments: await newCommentsOf(people, comments) } : {}) };
        const { doc, version } = await writer.onProject(req.project!.id, decideCreateEpic, command, commandMeta(req));
        return epic(doc, version, true);
      },
    },
    {
      method: 'GET',
      path: `${base}/:epic_id`,
      access: 'project:read',
      cacheable: true,
      answers: { type: 'epic' },
      summary: 'An epic',
      handle: async (req) => epic(await pathEpic(req)),
    },
    {
      method: 'PUT',
      path: `${base}/:epic_id`,
      access: 'project:write',
      input: { body: checkUpdate },
      answers: { type: 'epic' },
      summary: 'Change an epic (name, description, label, position)',
      async handle(req) {
        const current = await pathEpic(req);
        const command: UpdateEpicCommand = { ...checkUpdate.read(req), epic_id: current.id };
        const { doc, version } = await writer.onProject(req.project!.id, decideUpdateEpic, command, commandMeta(req));
        return epic(doc, version);
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:epic_id`,
      access: 'project:write',
      answers: 'empty',
      summary: 'Delete an epic (its label and stories stay)',
      async handle(req) {
        const current = await pathEpic(req);
        const outcome = await writer.execute(streams.project(req.project!.id), decideDeleteEpic, { epic_id: current.id }, commandMeta(req));
        return { kind: 'empty', projectVersion: outcome.version };
      },
    },
    {
      method: 'GET',
      path: '/epics/:epic_id',
      access: 'public',
      project: epicProject,
      cacheable: true,
      answers: { type: 'epic' },
      summary: 'An epic by id alone',
      handle: async (req) => epic(await pathEpic(req)),
    },
  ];
  return { reference: { tag: 'Epics', description: "Epics: a name and a label; the stories carrying the label belong to the epic." }, routes, types: [epicType] };
}
