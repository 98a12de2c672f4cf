// Creating a comment on a story or an epic: its text, files and mentions checked, its parent touched.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { commentParentOf, parentTouchChange } from './comment-parent.js';
import type { CommentParentRef } from './comment-parent.js';
import { type NewComment, commentDecision, writeComments } from './comment-writes.js';

export interface CreateCommentCommand extends NewComment, CommentParentRef {}

export function decideCreateComment(command: CreateCommentCommand, state: ProjectState, context: DecisionContext): Decision {
  const parent = commentParentOf(state, command);
  const written = writeComments(state, { kind: parent.kind, id: parent.doc.id }, [command], '', context);
  const changes = [...written.changes, parentTouchChange(parent, context.now, written.followerIds)];
  return commentDecision('comment_create', parent, written.commentIds[0]!, changes);
}
