// Adding an owner to a story (POST .../stories/:id/owners): an update of the story, the owner last.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { decideUpdateStory } from './update-story.js';

export interface StoryOwnerInput {
  story_id: number;
  person_id: number;
}

/** Adds an owner at the end of the story's owners (a story update). */
export function decideAddStoryOwner(input: StoryOwnerInput, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(input.story_id);
  return decideUpdateStory({ story_id: story.id, owner_ids: [...story.owner_ids, input.person_id] }, state, context);
}
