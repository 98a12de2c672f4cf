// A story's tasks (1-based positions kept dense by the deciders; `enable_tasks` respected on writes).
//
//   GET    /projects/:project_id/stories/:story_id/tasks            readers; by position; not paginated
//   POST   /projects/:project_id/stories/:story_id/tasks            writers; `description`, `complete`, `position`
//   GET    /projects/:project_id/stories/:story_id/tasks/:task_id   readers
//   PUT    /projects/:project_id/stories/:story_id/tasks/:task_id   writers
//   DELETE /projects/:project_id/stories/:story_id/tasks/:task_id   writers
//
// `complete` and `position` are accepted as strings too (`"false"`, `"1"`), as the service accepted them.
import { decideCreateTask } from '../../domain/task/create-task.js';
import { decideDeleteTask } from '../../domain/task/delete-task.js';
import { decideUpdateTask } from '../../domain/task/update-task.js';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import { requestSchema, text } from '../request-schema.js';
import type { ResourceType } from '../resource-type.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { storyChildRoutes } from './story-child-routes.js';

export const taskType: ResourceType = {
  name: 'task',
  kind: 'task',
  attributes: {
    id: 'integer', story_id: 'integer', description: 'string', complete: 'boolean', position: 'integer', created_at: 'datetime',
    updated_at: 'datetime',
  },
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
  const routes = storyChildRoutes(
    {
      type: 'task',
      names: { one: 'task', many: 'tasks' },
      segment: 'tasks',
      idParam: 'task_id',
      stories: deps.read('stories'),
      children: deps.read('tasks'),
      order: { position: 1 },
      checkCreate,
      checkUpdate,
      decideCreate: decideCreateTask,
      decideUpdate: decideUpdateTask,
      decideDelete: decideDeleteTask,
    },
    deps.writer,
  );
  return { reference: { tag: 'Tasks', description: "The tasks of a story." }, routes, types: [taskType] };
}
