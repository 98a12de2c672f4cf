// Edits a task's description, completion or position: a move shifts the tasks in between by one. Needs
// the project's enable_tasks.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange } from '../events.js';
import type { TaskDoc } from '../project-documents.js';
import { shift, taskDecision, taskHead } from './task-changes.js';
import type { TaskAddress } from './task-changes.js';
import { assertTaskDescription, assertTaskPosition, assertTasksEnabled } from './task-rules.js';

export interface UpdateTaskInput extends TaskAddress {
  description?: string;
  complete?: boolean;
  position?: number;
}

export function decideUpdateTask(input: UpdateTaskInput, state: ProjectState, context: DecisionContext): Decision {
  assertTasksEnabled(state.project());
  const story = state.stories.required(input.story_id);
  const task = state.taskOf(story.id, input.task_id);
  if (input.description !== undefined) assertTaskDescription(input.description);
  const tasks = state.tasksOf(story.id);
  const position = input.position ?? task.position;
  if (input.position !== undefined) assertTaskPosition(position, tasks.length, false);

  const after: TaskDoc = {
    ...task,
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.complete !== undefined ? { complete: input.complete } : {}),
    position,
    updated_at: context.now,
  };
  const original: Record<string, unknown> = {};
  const next: Record<string, unknown> = {};
  for (const key of ['description', 'complete', 'position'] as const) {
    if (after[key] !== task[key]) {
      original[key] = task[key];
      next[key] = after[key];
    }
  }
  original.updated_at = task.updated_at;
  next.updated_at = after.updated_at;
  const change: DecidedChange = { ...taskHead(after), change_type: 'update', original_values: original, new_values: next };
  return taskDecision('task_update', task, story, context, [change, ...shiftsForMove(tasks, task, position)]);
}

/** The position changes of the other tasks when `task` moves to `position`. */
function shiftsForMove(tasks: readonly TaskDoc[], task: TaskDoc, position: number): DecidedChange[] {
  if (position === task.position) return [];
  if (position < task.position) {
    return tasks
      .filter((other) => other.position >= position && other.position < task.position)
      .map((other) => shift(other, 1));
  }
  return tasks
    .filter((other) => other.position > task.position && other.position <= position)
    .map((other) => shift(other, -1));
}
