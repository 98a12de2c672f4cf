// Creates a task on a story, at a position (1-based; last without one): the tasks from that position on
// move down one. Needs the project's enable_tasks.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { TaskDoc } from '../project-documents.js';
import { shift, taskCreateChange, taskDecision } from './task-changes.js';
import { assertTaskDescription, assertTaskPosition, assertTasksEnabled } from './task-rules.js';

export interface CreateTaskInput {
  story_id: number;
  description: string;
  complete?: boolean;
  /** 1-based; a task without a position goes last. */
  position?: number;
}

export function decideCreateTask(input: CreateTaskInput, state: ProjectState, context: DecisionContext): Decision {
  assertTasksEnabled(state.project());
  const story = state.stories.required(input.story_id);
  assertTaskDescription(input.description);
  const tasks = state.tasksOf(story.id);
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
