// Deleting a comment, and its uploaded files' metadata with it.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { unauthorized } from '../errors.js';
import type { DecidedChange } from '../events.js';
import { commentDecision } from './comment-writes.js';
import { parentTouchChange } from './comment-parent.js';
import type { CommentParentRef } from './comment-parent.js';
import { commentDeleteChanges, commentAt } from './comment-edits.js';

export interface DeleteCommentCommand extends CommentParentRef {
  comment_id: number;
}

export function decideDeleteComment(command: DeleteCommentCommand, state: ProjectState, context: DecisionContext): Decision {
  const { parent, comment } = commentAt(state, command);
  const actor = context.actorId;
  if (actor !== null && actor !== comment.person_id && state.membershipOf(actor)?.role !== 'owner') {
    throw unauthorized('Only the writer of a comment or a project owner may delete it.');
  }
  const changes: DecidedChange[] = [
    ...commentDeleteChanges(state, comment),
    parentTouchChange(parent, context.now, []),
  ];
  return commentDecision('comment_delete', parent, comment.id, changes);
}
