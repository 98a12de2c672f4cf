// Scripted decisions for the activity HTTP tests, shaped like the story, comment, label and task
// deciders' events (facts §9.2): every change carries the values it changed, before and after, plus
// `updated_at`; story changes carry name, story_type and story_priority; story-scoped writes name the
// story as primary resource. Original values are read from the folded stream state, so they are real.
import type { Decide, Decision } from '../../src/domain/decision.js';
import type { ResourceChange, ResourceRef, Values } from '../../src/domain/events.js';
import type { ResourceDoc, StreamState } from '../../src/domain/resource-state.js';

function doc(state: StreamState, kind: 'story' | 'task', id: number): ResourceDoc {
  const found = state.docs.get(kind)?.get(id);
  if (!found) throw new Error(`no ${kind} ${id} in ${state.stream}`);
  return found;
}

export function storyRef(story: ResourceDoc): ResourceRef {
  return { kind: 'story', id: story.id, name: String(story['name']), story_type: String(story['story_type']) };
}

function storyUpdateChange(story: ResourceDoc, next: Values, now: number): ResourceChange {
  const original: Values = {};
  for (const key of Object.keys(next)) original[key] = story[key] ?? null;
  return {
    kind: 'story',
    change_type: 'update',
    id: story.id,
    name: String(next['name'] ?? story['name']),
    story_type: String(story['story_type']),
    original_values: { ...original, updated_at: story['updated_at'] ?? null },
    new_values: { ...next, updated_at: now },
  };
}

export function createStory(id: number, projectId: number, name: string, storyType: string, requesterId: number, rank: string): Decide<StreamState> {
  return (_state, context): Decision => {
    const values: Values = {
      id,
      project_id: projectId,
      name,
      story_type: storyType,
      current_state: 'unscheduled',
      requested_by_id: requesterId,
      owner_ids: [],
      label_ids: [],
      follower_ids: [requesterId],
      blocked_story_ids: [],
      created_at: context.now,
      updated_at: context.now,
      labels: [],
    };
    return {
      type: 'story_create',
      data: {
        changes: [{ kind: 'story', change_type: 'create', id, name, story_type: storyType, new_values: values, rank }],
        primary_resources: [{ kind: 'story', id, name, story_type: storyType }],
      },
    };
  };
}

/** A story update; `extra` adds changes of other resources made by the same request (a comment, a label). */
export function updateStory(id: number, next: Values, extra: (story: ResourceDoc, now: number) => ResourceChange[] = () => []): Decide<StreamState> {
  return (state, context) => {
    const story = doc(state, 'story', id);
    return {
      type: 'story_update',
      data: {
        changes: [storyUpdateChange(story, next, context.now), ...extra(story, context.now)],
        primary_resources: [storyRef(story)],
      },
    };
  };
}

export function moveStory(id: number, next: Values, rank: string): Decide<StreamState> {
  return (state, context) => {
    const story = doc(state, 'story', id);
    return {
      type: 'story_move',
      data: { changes: [{ ...storyUpdateChange(story, next, context.now), rank }], primary_resources: [storyRef(story)] },
    };
  };
}

export function deleteStory(id: number): Decide<StreamState> {
  return (state) => {
    const story = doc(state, 'story', id);
    return {
      type: 'story_delete',
      data: {
        changes: [{ kind: 'story', change_type: 'delete', id, name: String(story['name']), story_type: String(story['story_type']) }],
        primary_resources: [storyRef(story)],
      },
    };
  };
}

function storyTouch(story: ResourceDoc, now: number): ResourceChange {
  return storyUpdateChange(story, {}, now);
}

export function createTask(storyId: number, taskId: number, description: string): Decide<StreamState> {
  return (state, context) => {
    const story = doc(state, 'story', storyId);
    const task: Values = { id: taskId, story_id: storyId, description, complete: false, position: 1, created_at: context.now, updated_at: context.now };
    return {
      type: 'task_create',
      data: {
        changes: [{ kind: 'task', change_type: 'create', id: taskId, new_values: task }, storyTouch(story, context.now)],
        primary_resources: [storyRef(story)],
      },
    };
  };
}

export function updateTask(taskId: number, next: Values): Decide<StreamState> {
  return (state, context) => {
    const task = doc(state, 'task', taskId);
    const story = doc(state, 'story', Number(task['story_id']));
    const original: Values = {};
    for (const key of Object.keys(next)) original[key] = task[key] ?? null;
    return {
      type: 'task_update',
      data: {
        changes: [
          { kind: 'task', change_type: 'update', id: taskId, original_values: { ...original, updated_at: task['updated_at'] }, new_values: { ...next, updated_at: context.now } },
          storyTouch(story, context.now),
        ],
        primary_resources: [storyRef(story)],
      },
    };
  };
}

export function deleteTask(taskId: number): Decide<StreamState> {
  return (state, context) => {
    const task = doc(state, 'task', taskId);
    const story = doc(state, 'story', Number(task['story_id']));
    return {
      type: 'task_delete',
      data: {
        changes: [{ kind: 'task', change_type: 'delete', id: taskId, original_values: { ...task } }, storyTouch(story, context.now)],
        primary_resources: [storyRef(story)],
      },
    };
  };
}

/** A comment change made together with a story update (reject with comment). */
export function commentCreate(commentId: number, text: string, personId: number): (story: ResourceDoc, now: number) => ResourceChange[] {
  return (story, now) => [
    {
      kind: 'comment',
      change_type: 'create',
      id: commentId,
      new_values: { id: commentId, story_id: story.id, text, person_id: personId, created_at: now, updated_at: now, file_attachment_ids: [] },
    },
  ];
}

/** A label created by relabelling a story. */
export function labelCreate(labelId: number, projectId: number, name: string): (story: ResourceDoc, now: number) => ResourceChange[] {
  return (_story, now) => [
    { kind: 'label', change_type: 'create', id: labelId, name, new_values: { id: labelId, project_id: projectId, name, created_at: now, updated_at: now } },
  ];
}

/** The two sides of a move between projects: the source stream's update, the target stream's create. */
export function moveStoryOut(id: number, targetProject: ResourceRef): Decide<StreamState> {
  return (state, context) => {
    const story = doc(state, 'story', id);
    return {
      type: 'story_move_from_project',
      data: {
        changes: [{ kind: 'story', change_type: 'delete', id, name: String(story['name']), story_type: String(story['story_type']), original_values: { project_id: story['project_id'] ?? null }, new_values: { project_id: targetProject.id, updated_at: context.now } }],
        primary_resources: [storyRef(story)],
        secondary_resources: [targetProject],
      },
    };
  };
}

export function moveStoryIn(story: Values, sourceProject: ResourceRef, rank: string): Decide<StreamState> {
  return (_state, context) => {
    const id = Number(story['id']);
    const values: Values = { ...story, updated_at: context.now };
    return {
      type: 'story_move_into_project',
      data: {
        changes: [{ kind: 'story', change_type: 'create', id, name: String(story['name']), story_type: String(story['story_type']), new_values: values, rank }],
        primary_resources: [{ kind: 'story', id, name: String(story['name']), story_type: String(story['story_type']) }],
        secondary_resources: [sourceProject],
      },
    };
  };
}
