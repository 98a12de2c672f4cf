// Deciders for a story's tasks. Positions count from 1 and stay dense: inserting, moving or deleting a
// task shifts the tasks in between, and the event records each shifted position. Every task write
// also touches the story's updated_at, as the real activity feed showed. Creating and editing tasks
// needs the project's enable_tasks; deleting them does not, so a project can clean up after turning
// tasks off. Every task change carries the task's description (after the write) as its `name`, so the
// feed can quote the task even when the description did not change ("completed task: \"...\"").
import type { Decision, DecisionContext } from '../decision.js';
import type { EventType, ResourceChange } from '../events.js';
import { projectOf, storyOf, taskOf, tasksOfStory } from '../project-state.js';
import type { StoryDoc, TaskDoc } from '../project-documents.js';
import type { StreamState } from '../resource-state.js';
import { storyRef, storyUpdateChange } from '../story/story-changes.js';
import { assertTaskDescription, assertTaskPosition, assertTasksEnabled } from './task-rules.js';

export interface CreateTaskInput {
  story_id: number;
  description: string;
  complete?: boolean;
  /** 1-based; a task without a position goes last. */
  position?: number;
}

export interface UpdateTaskInput {
  story_id: number;
  task_id: number;
  description?: string;
  complete?: boolean;
  position?: number;
}

export interface DeleteTaskInput {
  story_id: number;
  task_id: number;
}

export function decideCreateTask(input: CreateTaskInput, state: StreamState, context: DecisionContext): Decision {
  assertTasksEnabled(projectOf(state));
  const story = storyOf(state, input.story_id);
  assertTaskDescription(input.description);
  const tasks = tasksOfStory(state, story.id);
  const position = input.position ?? tasks.length + 1;
  assertTaskPosition(position, tasks.length + 1, true);
  const task: TaskDoc = {
    id: context.nextId('task'),
    story_id: story.id,
    description: input.description,
    complete: input.complete ?? false,
    position,
    created_at: context.now,
    updated_at: context.now,
  };
  const shifted = tasks.filter((other) => other.position >= position).map((other) => shift(other, 1));
  return taskDecision('task_create', task, story, context, [taskCreateChange(task), ...shifted]);
}

export function decideUpdateTask(input: UpdateTaskInput, state: StreamState, context: DecisionContext): Decision {
  assertTasksEnabled(projectOf(state));
  const story = storyOf(state, input.story_id);
  const task = taskOf(state, story.id, input.task_id);
  if (input.description !== undefined) assertTaskDescription(input.description);
  const tasks = tasksOfStory(state, story.id);
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
  const change: ResourceChange = { ...taskHead(after), change_type: 'update', original_values: original, new_values: next };
  return taskDecision('task_update', task, story, context, [change, ...shiftsForMove(tasks, task, position)]);
}

export function decideDeleteTask(input: DeleteTaskInput, state: StreamState, context: DecisionContext): Decision {
  const story = storyOf(state, input.story_id);
  const task = taskOf(state, story.id, input.task_id);
  const tasks = tasksOfStory(state, story.id);
  const change = taskDeleteChange(task);
  const shifted = tasks.filter((other) => other.position > task.position).map((other) => shift(other, -1));
  return taskDecision('task_delete', task, story, context, [change, ...shifted]);
}

/** The delete change of a task, whether the task goes alone or with its story. */
export function taskDeleteChange(task: TaskDoc): ResourceChange {
  return { ...taskHead(task), change_type: 'delete', original_values: { ...task } };
}

/** The create change of a new task. */
export function taskCreateChange(task: TaskDoc): ResourceChange {
  return { ...taskHead(task), change_type: 'create', new_values: { ...task } };
}

/** What every change of a task starts with: its kind, id and description as name. */
function taskHead(task: TaskDoc): Pick<ResourceChange, 'kind' | 'id' | 'name'> {
  return { kind: 'task', id: task.id, name: task.description };
}

/** The story touch every task write records: only updated_at moves. */
export function storyTouchChange(story: StoryDoc, now: number): ResourceChange {
  return storyUpdateChange(story, { updated_at: story.updated_at }, { updated_at: now });
}

function taskDecision(type: EventType, task: TaskDoc, story: StoryDoc, context: DecisionContext, changes: ResourceChange[]): Decision {
  return {
    type,
    data: { changes: [...changes, storyTouchChange(story, context.now)], primary_resources: [storyRef(story)] },
    subject: { kind: 'task', id: task.id },
  };
}

/** The position changes of the other tasks when `task` moves to `position`. */
function shiftsForMove(tasks: readonly TaskDoc[], task: TaskDoc, position: number): ResourceChange[] {
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

function shift(task: TaskDoc, by: 1 | -1): ResourceChange {
  return {
    ...taskHead(task),
    change_type: 'update',
    original_values: { position: task.position },
    new_values: { position: task.position + by },
  };
}
