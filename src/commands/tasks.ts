// Task writes: create, update, delete on a story of a project (one event each, positions kept dense by
// the deciders), answered with the task as the read model now holds it and the project version.
import type { Decide } from '../domain/decision.js';
import { DomainError } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import type { StreamState } from '../domain/resource-state.js';
import {
  decideCreateTask,
  decideDeleteTask,
  decideUpdateTask,
  type CreateTaskInput,
  type UpdateTaskInput,
} from '../domain/task/task-decisions.js';
import type { Doc } from '../ports/read-store.js';
import type { CommandHandler, CommandMeta, CommandOutcome } from './command-handler.js';
import type { ReadView } from './people.js';

export interface TaskCommandDeps {
  commands: CommandHandler;
  tasks: ReadView;
}

export interface TaskWritten {
  task: Doc;
  version: number;
}

export class TaskCommands {
  constructor(private readonly deps: TaskCommandDeps) {}

  async create(projectId: number, input: CreateTaskInput, meta: CommandMeta): Promise<TaskWritten> {
    const outcome = await this.execute(projectId, (state, context) => decideCreateTask(state, input, context), meta);
    return this.written(projectId, outcome.event.data.changes[0]!.id, outcome);
  }

  async update(projectId: number, input: UpdateTaskInput, meta: CommandMeta): Promise<TaskWritten> {
    const outcome = await this.execute(projectId, (state, context) => decideUpdateTask(state, input, context), meta);
    return this.written(projectId, input.task_id, outcome);
  }

  /** Deletes the task (the tasks below it move up); returns the project version. */
  async delete(projectId: number, storyId: number, taskId: number, meta: CommandMeta): Promise<number> {
    const decide: Decide<StreamState> = (state, context) => decideDeleteTask(state, { story_id: storyId, task_id: taskId }, context);
    return (await this.execute(projectId, decide, meta)).version;
  }

  private execute(projectId: number, decide: Decide<StreamState>, meta: CommandMeta): Promise<CommandOutcome> {
    return this.deps.commands.execute(streams.project(projectId), decide, meta);
  }

  private async written(projectId: number, taskId: number, outcome: CommandOutcome): Promise<TaskWritten> {
    const task = await this.deps.tasks.findOne({ id: taskId, project_id: projectId });
    if (!task) throw new DomainError('unfound_resource');
    return { task, version: outcome.version };
  }
}
