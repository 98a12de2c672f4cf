// Adding a label to a story (POST .../stories/:id/labels): an update of the story, through its decider.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { LabelReference } from '../label/label-references.js';
import { decideUpdateStory } from './update-story.js';

export interface StoryLabelInput {
  story_id: number;
  /** An existing label's id, or a name (a label is created when none has it). */
  label: LabelReference;
}

/** Adds a label to a story (a story update; adding a label it has already only touches it). */
export function decideAddStoryLabel(input: StoryLabelInput, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(input.story_id);
  const current: LabelReference[] = story.label_ids.map((id) => ({ id }));
  return decideUpdateStory({ story_id: story.id, labels: [...current, input.label] }, state, context);
}
