// Removing one attachment (an uploaded file or an external one) from a comment.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { unfound } from '../errors.js';
import type { CommentParentRef } from './comment-parent.js';
import { commentAt } from './comment-edits.js';
import { decideUpdateComment } from './update-comment.js';

/** DELETE .../comments/{id}/file_attachments/{id} or .../ext_attachments/{id}. */
export interface DeleteCommentAttachmentCommand extends CommentParentRef {
  comment_id: number;
  file_attachment_id?: number;
  ext_attachment_id?: number;
}

/** Removes one attachment of a comment (a comment update); unfound when the comment does not hold it. */
export function decideDeleteCommentAttachment(
  command: DeleteCommentAttachmentCommand,
  state: ProjectState,
  context: DecisionContext,
): Decision {
  const { comment } = commentAt(state, command);
  const { file_attachment_id: fileId, ext_attachment_id: extId } = command;
  if (fileId !== undefined && comment.file_attachment_ids.includes(fileId)) {
    return decideUpdateComment({ ...command, file_attachment_ids_to_remove: [fileId] }, state, context);
  }
  if (extId !== undefined && comment.ext_attachment_ids.includes(extId)) {
    return decideUpdateComment({ ...command, ext_attachment_ids_to_remove: [extId] }, state, context);
  }
  throw unfound();
}
