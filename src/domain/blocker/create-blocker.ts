// Creates a blocker on a story (a story it names as `#<id>` lists the blocked story while it is unresolved).
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { blockerCreateChange, blockerDecision, newBlockers } from './blocker-changes.js';
import type { NewBlocker } from './blocker-changes.js';

export interface CreateBlockerCommand extends NewBlocker {
  story_id: number;
}

export function decideCreateBlocker(command: CreateBlockerCommand, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(command.story_id);
  const [blocker] = newBlockers(story.id, [command], '', context);
  return blockerDecision('blocker_create', state, story, blocker!, [blockerCreateChange(blocker!)], context);
}
