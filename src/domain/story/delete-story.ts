// Deleting a story: the story goes, and with it what lives inside it (its tasks and comments), so the
// project's state keeps no orphans; a task's change is named by its description, as when it goes alone.
// Its labels are recounted.
import type { Decision, DecisionContext } from '../decision.js';
import type { ResourceChange } from '../events.js';
import { storyContents, storyOf, type TaskDoc } from '../project-state.js';
import type { StreamState } from '../resource-state.js';
import { taskDeleteChange } from '../task/task-decisions.js';
import { storyRef, storyWriteChanges } from './story-changes.js';
import { UNMOVED } from './story-order.js';

export interface DeleteStoryInput {
  story_id: number;
}

export function decideDeleteStory(input: DeleteStoryInput, state: StreamState, _context: DecisionContext): Decision {
  const story = storyOf(state, input.story_id);
  const changes: ResourceChange[] = storyWriteChanges(state, {
    before: story,
    after: null,
    createdLabels: [],
    positionBefore: UNMOVED,
    positionAfter: UNMOVED,
  });
  for (const { kind, doc } of storyContents(state, story.id)) {
    changes.push(kind === 'task' ? taskDeleteChange(doc as TaskDoc) : { kind, change_type: 'delete', id: doc.id, original_values: { ...doc } });
  }
  return { type: 'story_delete', data: { changes, primary_resources: [storyRef(story)] }, subject: { kind: 'story', id: story.id } };
}
