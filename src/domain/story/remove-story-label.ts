// Taking a label off a story (DELETE .../labels/:id): an update of the story; unfound when it has no such label.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { unfound } from '../errors.js';
import { decideUpdateStory } from './update-story.js';

export interface StoryLabelRemoval {
  story_id: number;
  label_id: number;
}

/** Removes a label from a story; unfound when the story does not carry it. */
export function decideRemoveStoryLabel(input: StoryLabelRemoval, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(input.story_id);
  if (!story.label_ids.includes(input.label_id)) throw unfound();
  const labelIds = story.label_ids.filter((id) => id !== input.label_id);
  return decideUpdateStory({ story_id: story.id, label_ids: labelIds }, state, context);
}
