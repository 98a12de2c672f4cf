// A project's labels.
//
//   GET    /projects/:project_id/labels             readers; by name (then id); not paginated; `with_type=epic`:
//                                                   only the labels of epics; `with_status=active`: every
//                                                   label (labels are never archived here)
//   POST   /projects/:project_id/labels             writers; body `name` (unique per project, stored lower-case)
//   GET    /projects/:project_id/labels/:label_id   readers
//   PUT    /projects/:project_id/labels/:label_id   writers; body `name`
//   DELETE /projects/:project_id/labels/:label_id   writers; the label leaves every story carrying it
//
// `counts` (story_counts per state, kept by every story write) is returned when asked for in `fields`.
import { decideCreateLabel } from '../../domain/label/create-label.js';
import { decideDeleteLabel } from '../../domain/label/delete-label.js';
import { decideRenameLabel } from '../../domain/label/rename-label.js';
import { streams } from '../../domain/events.js';
import { commandMeta } from '../command-meta.js';
import type { Doc } from '../../ports/read-store.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import { requestSchema, text } from '../request-schema.js';
import type { ResourceType } from '../resource-type.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

export const labelType: ResourceType = {
  name: 'label',
  kind: 'label',
  attributes: {
    id: 'integer', project_id: 'integer', name: 'string', created_at: 'datetime', updated_at: 'datetime',
    counts: { type: 'object', description: 'story_counts: the number of stories carrying the label, per state' },
  },
  defaults: ['kind', 'id', 'project_id', 'name', 'created_at', 'updated_at'],
};

const checkLabelBody = requestSchema<{ name: string }>({ type: 'object', properties: { name: text(TEXT_LIMITS.label_name) }, required: ['name'] });

/** `with_type=epic`: only the labels of epics; `with_status=active`: every label (none is ever archived here). */
const checkLabelListQuery = requestSchema<{ with_type?: 'epic'; with_status?: 'active' }>({
  type: 'object',
  properties: { with_type: { enum: ['epic'] }, with_status: { enum: ['active'] } },
});

export function labelResources(deps: ResourceDeps): ResourceModule {
  const labels = deps.read('labels');
  const epics = deps.read('epics');
  const { writer } = deps;

  async function pathLabel(req: ApiRequest): Promise<Doc> {
    const label = await labels.findOne({ id: idParam(req.params['label_id']), project_id: req.project!.id });
    if (!label) throw apiError('unfound_resource');
    return label;
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/projects/:project_id/labels',
      access: 'project:read',
      cacheable: true,
      input: { query: checkLabelListQuery.schema },
      answers: { type: 'label', list: true },
      summary: "A project's labels, by name",
      async handle(req) {
        const projectId = req.project!.id;
        const filter: Record<string, unknown> = { project_id: projectId };
        // `with_status`: the spec's example status; Storyline keeps no archived labels, so every label is active.
        if (checkLabelListQuery({ ...req.query }).with_type === 'epic') {
          const epicLabelIds = (await epics.find({ project_id: projectId })).map((epic) => epic.label_id);
          filter.id = { $in: epicLabelIds };
        }
        const value = await labels.find(filter, { sort: { name: 1 } });
        return { kind: 'resource', type: 'label', value };
      },
    },
    {
      method: 'POST',
      path: '/projects/:project_id/labels',
      access: 'project:write',
      input: { body: checkLabelBody },
      answers: { type: 'label', created: true },
      summary: 'Create a label',
      async handle(req) {
        const { name } = checkLabelBody.read(req);
        const { doc, version } = await writer.onProject(req.project!.id, decideCreateLabel, { name }, commandMeta(req));
        return { kind: 'resource', type: 'label', value: doc, created: true, projectVersion: version };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/labels/:label_id',
      access: 'project:read',
      cacheable: true,
      answers: { type: 'label' },
      summary: 'A label',
      handle: async (req) => ({ kind: 'resource', type: 'label', value: await pathLabel(req) }),
    },
    {
      method: 'PUT',
      path: '/projects/:project_id/labels/:label_id',
      access: 'project:write',
      input: { body: checkLabelBody },
      answers: { type: 'label' },
      summary: 'Rename a label',
      async handle(req) {
        const current = await pathLabel(req);
        const rename = { label_id: current.id, name: checkLabelBody.read(req).name };
        const { doc, version } = await writer.onProject(req.project!.id, decideRenameLabel, rename, commandMeta(req));
        return { kind: 'resource', type: 'label', value: doc, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: '/projects/:project_id/labels/:label_id',
      access: 'project:write',
      answers: 'empty',
      summary: 'Delete a label (it leaves every story carrying it)',
      async handle(req) {
        const current = await pathLabel(req);
        const outcome = await writer.execute(streams.project(req.project!.id), decideDeleteLabel, { label_id: current.id }, commandMeta(req));
        return { kind: 'empty', projectVersion: outcome.version };
      },
    },
  ];
  return { reference: { tag: 'Labels', description: "A project's labels." }, routes, types: [labelType] };
}
