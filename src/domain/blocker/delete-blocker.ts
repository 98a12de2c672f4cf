// Deletes a blocker; the story it named no longer lists the blocked story.
import type { Decision, DecisionContext } from '../decision.js';
import { storyOf } from '../project-state.js';
import type { StreamState } from '../resource-state.js';
import { blockerDecision, blockerDeleteChange, blockerOf } from './blocker-changes.js';
import type { BlockerAddress } from './blocker-changes.js';

export function decideDeleteBlocker(command: BlockerAddress, state: StreamState, context: DecisionContext): Decision {
  const story = storyOf(state, command.story_id);
  const blocker = blockerOf(state, story.id, command.blocker_id);
  return blockerDecision('blocker_delete', state, story, null, [blockerDeleteChange(blocker)], context, blocker);
}
