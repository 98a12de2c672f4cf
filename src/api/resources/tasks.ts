// A story's tasks (1-based positions kept dense by the deciders; `enable_tasks` respected on writes).
//
//   GET    /projects/:project_id/stories/:story_id/tasks            readers; by position; not paginated
//   POST   /projects/:project_id/stories/:story_id/tasks            writers; `description`, `complete`, `position`
//   GET    /projects/:project_id/stories/:story_id/tasks/:task_id   readers
//   PUT    /projects/:project_id/stories/:story_id/tasks/:task_id   writers
//   DELETE /projects/:project_id/stories/:story_id/tasks/:task_id   writers
//
// `complete` and `position` are accepted as strings too (`"false"`, `"1"`), as the service accepted them.
import { TaskCommands } from '../../commands/tasks.js';
import type { CommandMeta } from '../../commands/command-handler.js';
import type { Doc } from '../../ports/read-store.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import { requestSchema, text } from '../request-schema.js';
import type { ResourceType } from '../resource-type.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

export const taskType: ResourceType = {
  name: 'task',
  kind: 'task',
  attributes: ['id', 'story_id', 'description', 'complete', 'position', 'created_at', 'updated_at'],
  datetimes: ['created_at', 'updated_at'],
  defaults: ['kind', 'id', 'story_id', 'description', 'complete', 'position', 'created_at', 'updated_at'],
};

interface TaskBody {
  description?: string;
  complete?: boolean;
  position?: number;
}

const TASK_PROPERTIES = { description: text(TEXT_LIMITS.task_description), complete: { type: 'boolean' }, position: { type: 'integer' } };
const checkCreate = requestSchema<TaskBody & { description: string }>({ type: 'object', properties: TASK_PROPERTIES, required: ['description'] });
const checkUpdate = requestSchema<TaskBody>({ type: 'object', properties: TASK_PROPERTIES });

export function taskResources(deps: ResourceDeps): ResourceModule {
  const tasks = deps.read('tasks');
  const stories = deps.read('stories');
  const commands = new TaskCommands({ commands: deps.commands, tasks });
  const meta = (req: ApiRequest): CommandMeta => ({ commandId: req.commandId, actorId: req.actor!.id, now: req.now });

  async function pathStoryId(req: ApiRequest): Promise<number> {
    const story = await stories.findOne({ id: idParam(req.params['story_id']), project_id: req.project!.id });
    if (!story) throw apiError('unfound_resource');
    return story.id;
  }

  async function pathTask(req: ApiRequest): Promise<Doc> {
    const storyId = await pathStoryId(req);
    const task = await tasks.findOne({ id: idParam(req.params['task_id']), story_id: storyId, project_id: req.project!.id });
    if (!task) throw apiError('unfound_resource');
    return task;
  }

  const base = '/projects/:project_id/stories/:story_id/tasks';
  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: base,
      access: 'project:read',
      cacheable: true,
      async handle(req) {
        const storyId = await pathStoryId(req);
        const value = await tasks.find({ story_id: storyId, project_id: req.project!.id }, { sort: { position: 1 } });
        return { kind: 'resource', type: 'task', value };
      },
    },
    {
      method: 'POST',
      path: base,
      access: 'project:write',
      async handle(req) {
        const storyId = await pathStoryId(req);
        const body = checkCreate(req.body);
        const { task, version } = await commands.create(req.project!.id, { ...body, story_id: storyId }, meta(req));
        return { kind: 'resource', type: 'task', value: task, created: true, projectVersion: version };
      },
    },
    {
      method: 'GET',
      path: `${base}/:task_id`,
      access: 'project:read',
      cacheable: true,
      handle: async (req) => ({ kind: 'resource', type: 'task', value: await pathTask(req) }),
    },
    {
      method: 'PUT',
      path: `${base}/:task_id`,
      access: 'project:write',
      async handle(req) {
        const current = await pathTask(req);
        const body = checkUpdate(req.body);
        const input = { ...body, story_id: Number(current['story_id']), task_id: current.id };
        const { task, version } = await commands.update(req.project!.id, input, meta(req));
        return { kind: 'resource', type: 'task', value: task, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:task_id`,
      access: 'project:write',
      async handle(req) {
        const current = await pathTask(req);
        const version = await commands.delete(req.project!.id, Number(current['story_id']), current.id, meta(req));
        return { kind: 'empty', projectVersion: version };
      },
    },
  ];
  return { routes, types: [taskType] };
}
