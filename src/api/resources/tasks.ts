// A story's tasks (1-based positions kept dense by the deciders; `enable_tasks` respected on writes).
//
//   GET    /projects/:project_id/stories/:story_id/tasks            readers; by position; not paginated
//   POST   /projects/:project_id/stories/:story_id/tasks            writers; `description`, `complete`, `position`
//   GET    /projects/:project_id/stories/:story_id/tasks/:task_id   readers
//   PUT    /projects/:project_id/stories/:story_id/tasks/:task_id   writers
//   DELETE /projects/:project_id/stories/:story_id/tasks/:task_id   writers
//
// `complete` and `position` are accepted as strings too (`"false"`, `"1"`), as the service accepted them.
import { decideCreateTask, decideDeleteTask, decideUpdateTask } from '../../domain/task/task-decisions.js';
import { streams } from '../../domain/events.js';
import { commandMeta } from '../command-meta.js';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import { requestSchema, text } from '../request-schema.js';
import type { ResourceType } from '../resource-type.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { storyChildPath } from './story-child-path.js';

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
  const { writer } = deps;

  const path = storyChildPath(stories, tasks);
  const pathStoryId = path.storyId;
  const pathTask = (req: ApiRequest) => path.child(req, 'task_id');


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
        const { doc, version } = await writer.onProject(req.project!.id, decideCreateTask, { ...body, story_id: storyId }, commandMeta(req));
        return { kind: 'resource', type: 'task', value: doc, created: true, projectVersion: version };
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
        const { doc, version } = await writer.onProject(req.project!.id, decideUpdateTask, input, commandMeta(req));
        return { kind: 'resource', type: 'task', value: doc, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:task_id`,
      access: 'project:write',
      async handle(req) {
        const current = await pathTask(req);
        const command = { story_id: Number(current['story_id']), task_id: current.id };
        const outcome = await writer.execute(streams.project(req.project!.id), decideDeleteTask, command, commandMeta(req));
        return { kind: 'empty', projectVersion: outcome.version };
      },
    },
  ];
  return { routes, types: [taskType] };
}
