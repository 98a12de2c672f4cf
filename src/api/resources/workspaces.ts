// A person's workspaces (facts §12, §13; recorded by the tracker_api gem): named sets of projects.
//
//   GET    /my/workspaces                  the caller's own, by id; not paginated
//   POST   /my/workspaces                  body `name`, `project_ids` (projects the caller can see)
//   GET    /my/workspaces/:workspace_id    the caller's own only: anyone else's is 404
//   PUT    /my/workspaces/:workspace_id    body `name`, `project_ids` (replaces the list)
//   DELETE /my/workspaces/:workspace_id    204
//
// Recorded key set: `kind, id, name, person_id, project_ids`; `fields=:default,projects(id,name)` nests
// the projects beside their ids. A workspace lists only the projects its person can still see. Writes
// are events of the person's stream (domain/workspace/): no project version, no project header.
import { decideCreateWorkspace } from '../../domain/workspace/create-workspace.js';
import { decideDeleteWorkspace } from '../../domain/workspace/delete-workspace.js';
import { decideUpdateWorkspace } from '../../domain/workspace/update-workspace.js';
import { MAX_WORKSPACE_NAME, MAX_WORKSPACE_PROJECTS } from '../../domain/workspace/workspace-rules.js';
import { streams } from '../../domain/events.js';
import { visibleProjectIds, workspacesOf, type WorkspaceReads } from '../../queries/workspaces.js';
import { commandMeta } from '../command-meta.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { requestSchema, text } from '../request-schema.js';
import type { Association, ResourceType } from '../resource-type.js';
import type { ApiRequest, ApiResult, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import type { WorkspaceReadDoc } from '../../projections/documents.js';

const WORKSPACE_PROPERTIES = {
  name: text(MAX_WORKSPACE_NAME),
  project_ids: { type: 'array', items: { type: 'integer' }, maxItems: MAX_WORKSPACE_PROJECTS },
};
const checkCreate = requestSchema<{ name: string; project_ids?: number[] }>({
  type: 'object',
  properties: WORKSPACE_PROPERTIES,
  required: ['name'],
  additionalProperties: false,
});
const checkUpdate = requestSchema<{ name?: string; project_ids?: number[] }>({ type: 'object', properties: WORKSPACE_PROPERTIES, additionalProperties: false });

/** The projects of each workspace (their ids already cut to the visible ones), in the workspace's order. */
export function workspaceProjectsAssociation(projects: WorkspaceReads['projects']): Association<WorkspaceReadDoc> {
  return {
    type: 'project',
    many: true,
    ids: 'project_ids',
    async load(docs) {
      const ids = [...new Set(docs.flatMap((doc) => doc.project_ids))];
      const byId = new Map((await projects.find({ id: { $in: ids } })).map((project) => [project.id, project]));
      return docs.map((doc) => doc.project_ids.flatMap((id) => byId.get(id) ?? []));
    },
  };
}

export function workspaceResources(deps: ResourceDeps): ResourceModule {
  const reads: WorkspaceReads = { workspaces: deps.read('workspaces'), projects: deps.read('projects'), memberships: deps.read('project_memberships') };

  const workspaceType: ResourceType = {
    name: 'workspace',
    kind: 'workspace',
    attributes: { id: 'integer', name: 'string', person_id: 'integer', project_ids: 'integer[]' },
    defaults: ['kind', 'id', 'name', 'person_id', 'project_ids'],
    associations: { projects: workspaceProjectsAssociation(reads.projects) },
  };

  /** The caller's workspace of the path, as they read it; anyone else's is unfound. */
  async function ownWorkspace(req: ApiRequest): Promise<WorkspaceReadDoc> {
    const [found] = await workspacesOf(reads, req.actor!.id, idParam(req.params['workspace_id']));
    if (!found) throw apiError('unfound_resource');
    return found;
  }

  /** The written workspace, read back the way the caller reads it. */
  async function answer(req: ApiRequest, workspaceId: number, created = false): Promise<ApiResult> {
    const [value] = await workspacesOf(reads, req.actor!.id, workspaceId);
    if (!value) throw apiError('unfound_resource');
    return { kind: 'resource', type: 'workspace', value, ...(created ? { created: true } : {}) };
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/my/workspaces',
      access: 'person',
      answers: { type: 'workspace', list: true },
      summary: "The caller's workspaces",
      handle: async (req) => ({ kind: 'resource', type: 'workspace', value: await workspacesOf(reads, req.actor!.id) }),
    },
    {
      method: 'POST',
      path: '/my/workspaces',
      access: 'person',
      input: { body: checkCreate },
      answers: { type: 'workspace', created: true },
      summary: 'Create a workspace (a named set of projects)',
      async handle(req) {
        const body = checkCreate.read(req);
        const visible = await visibleProjectIds(reads, req.actor!.id, body.project_ids ?? []);
        const stream = streams.person(req.actor!.id);
        const { doc } = await deps.writer.onStream(stream, decideCreateWorkspace, { ...body, visible_project_ids: visible }, commandMeta(req));
        return answer(req, doc.id, true);
      },
    },
    {
      method: 'GET',
      path: '/my/workspaces/:workspace_id',
      access: 'person',
      answers: { type: 'workspace' },
      summary: 'A workspace of the caller',
      handle: async (req) => ({ kind: 'resource', type: 'workspace', value: await ownWorkspace(req) }),
    },
    {
      method: 'PUT',
      path: '/my/workspaces/:workspace_id',
      access: 'person',
      input: { body: checkUpdate },
      answers: { type: 'workspace' },
      summary: 'Change a workspace (name, projects)',
      async handle(req) {
        const current = await ownWorkspace(req);
        const body = checkUpdate.read(req);
        const visible = await visibleProjectIds(reads, req.actor!.id, body.project_ids ?? []);
        const command = { ...body, workspace_id: current.id, visible_project_ids: visible };
        await deps.writer.onStream(streams.person(req.actor!.id), decideUpdateWorkspace, command, commandMeta(req));
        return answer(req, current.id);
      },
    },
    {
      method: 'DELETE',
      path: '/my/workspaces/:workspace_id',
      access: 'person',
      answers: 'empty',
      summary: 'Delete a workspace',
      async handle(req) {
        const current = await ownWorkspace(req);
        await deps.writer.execute(streams.person(req.actor!.id), decideDeleteWorkspace, { workspace_id: current.id }, commandMeta(req));
        return { kind: 'empty' };
      },
    },
  ];
  return { reference: { tag: 'Workspaces', description: "The caller's workspaces: named sets of projects." }, routes, types: [workspaceType] };
}
