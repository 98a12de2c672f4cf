// Deletes a task: the tasks below it move up one. Does not need enable_tasks, so a project can clean up
// after turning tasks off.
import type { Decision, DecisionContext } from '../decision.js';
import { storyOf, taskOf, tasksOfStory } from '../project-state.js';
import type { StreamState } from '../resource-state.js';
import { shift, taskDecision, taskDeleteChange } from './task-changes.js';
import type { TaskAddress } from './task-changes.js';

export function decideDeleteTask(input: TaskAddress, state: StreamState, context: DecisionContext): Decision {
  const story = storyOf(state, input.story_id);
  const task = taskOf(state, story.id, input.task_id);
  const tasks = tasksOfStory(state, story.id);
  const change = taskDeleteChange(task);
  const shifted = tasks.filter((other) => other.position > task.position).map((other) => shift(other, -1));
  return taskDecision('task_delete', task, story, context, [change, ...shifted]);
}
