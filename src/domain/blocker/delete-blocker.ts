// Deletes a blocker; the story it named no longer lists the blocked story.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { blockerDecision, blockerDeleteChange, blockerOf } from './blocker-changes.js';
import type { BlockerAddress } from './blocker-changes.js';

export function decideDeleteBlocker(command: BlockerAddress, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(command.story_id);
  const blocker = blockerOf(state, story.id, command.blocker_id);
  return blockerDecision('blocker_delete', state, story, null, [blockerDeleteChange(blocker)], context, blocker);
}
