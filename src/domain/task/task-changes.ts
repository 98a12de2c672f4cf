// The changes every task write is made of, shared by the task deciders and by the story deciders that
// create or delete tasks with their story. Every task change carries the task's description (after the
// write) as its `name`, so the feed can quote the task even when the description did not change
// ("completed task: \"...\""), and every task write touches the story's updated_at, as the real
// activity feed showed. Positions count from 1 and stay dense: the event records each shifted position.
import type { Decision, DecisionContext } from '../decision.js';
import type { EventType, DecidedChange, ResourceChange } from '../events.js';
import type { StoryDoc, TaskDoc } from '../project-documents.js';
import { storyRef, storyUpdateChange } from '../story/story-changes.js';

/** How a request names a task: by its story and its id. */
export interface TaskAddress {
  story_id: number;
  task_id: number;
}

/** The delete change of a task, whether the task goes alone or with its story. */
export function taskDeleteChange(task: TaskDoc): ResourceChange<'task'> {
  return { ...taskHead(task), change_type: 'delete', original_values: { ...task } };
}

/** The create change of a new task. */
export function taskCreateChange(task: TaskDoc): ResourceChange<'task'> {
  return { ...taskHead(task), change_type: 'create', new_values: { ...task } };
}

/** What every change of a task starts with: its kind, id and description as name. */
export function taskHead(task: TaskDoc): Pick<ResourceChange<'task'>, 'kind' | 'id' | 'name'> {
  return { kind: 'task', id: task.id, name: task.description };
}

/** The story touch every task write records: only updated_at moves. */
export function storyTouchChange(story: StoryDoc, now: number): ResourceChange<'story'> {
  return storyUpdateChange(story, { updated_at: story.updated_at }, { updated_at: now });
}

/** A task write's decision: its changes, then the story touch, with the story as primary resource. */
export function taskDecision(type: EventType, task: TaskDoc, story: StoryDoc, context: DecisionContext, changes: DecidedChange[]): Decision {
  return {
    type,
    data: { changes: [...changes, storyTouchChange(story, context.now)], primary_resources: [storyRef(story)] },
    subject: { kind: 'task', id: task.id },
  };
}

/** A task moved up (1) or down (-1) one position by another task's write. */
export function shift(task: TaskDoc, by: 1 | -1): ResourceChange<'task'> {
  return {
    ...taskHead(task),
    change_type: 'update',
    original_values: { position: task.position },
    new_values: { position: task.position + by },
  };
}
