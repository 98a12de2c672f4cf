// Removing an owner from a story (DELETE .../owners/:id): an update of the story; unfound for a non-owner.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { unfound } from '../errors.js';
import { type StoryOwnerInput } from './add-story-owner.js';
import { decideUpdateStory } from './update-story.js';

/** Removes an owner; unfound when the person does not own the story. */
export function decideRemoveStoryOwner(input: StoryOwnerInput, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(input.story_id);
  if (!story.owner_ids.includes(input.person_id)) throw unfound();
  const owners = story.owner_ids.filter((id) => id !== input.person_id);
  return decideUpdateStory({ story_id: story.id, owner_ids: owners }, state, context);
}
