// Deletes a task: the tasks below it move up one. Does not need enable_tasks, so a project can clean up
// after turning tasks off.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { shift, taskDecision, taskDeleteChange } from './task-changes.js';
import type { TaskAddress } from './task-changes.js';

export function decideDeleteTask(input: TaskAddress, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(input.story_id);
  const task = state.taskOf(story.id, input.task_id);
  const tasks = state.tasksOf(story.id);
  const change = taskDeleteChange(task);
  const shifted = tasks.filter((other) => other.position > task.position).map((other) => shift(other, -1));
  return taskDecision('task_delete', task, story, context, [change, ...shifted]);
}
