// Edits a blocker's description or resolution; the stories it names before and after are recounted.
import type { ProjectState } from '../project-state.js';
import { changedValues } from '../changed-values.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange } from '../events.js';
import { blockerDecision, blockerDescription, blockerHead, blockerOf, blockerResolved } from './blocker-changes.js';
import type { BlockerAddress, BlockerDoc } from './blocker-changes.js';

export interface UpdateBlockerCommand extends BlockerAddress {
  description?: string;
  resolved?: boolean;
}

export function decideUpdateBlocker(command: UpdateBlockerCommand, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(command.story_id);
  const before = blockerOf(state, story.id, command.blocker_id);
  const after: BlockerDoc = {
    ...before,
    ...(command.description !== undefined ? { description: blockerDescription(command.description, 'description') } : {}),
    ...(command.resolved !== undefined ? { resolved: blockerResolved(command.resolved, 'resolved') } : {}),
    updated_at: context.now,
  };
  const change: DecidedChange = {
    ...blockerHead(after),
    change_type: 'update',
    ...changedValues(before, after, ['description', 'resolved']),
  };
  return blockerDecision('blocker_update', state, story, after, [change], context, before);
}
