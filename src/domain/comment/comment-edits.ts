// Editing and deleting comments. Only the writer edits a comment (text, attachments added or removed);
// the writer or a project owner deletes it. A file detached from its comment, or whose comment goes,
// loses its metadata in the same event (its blob is swept later, infra/blob-store/unreferenced-blob-sweep.ts).
// Every write touches the parent's updated_at (facts §9.2 comment_update: comment + story update).
// What its deciders (update-comment.ts, delete-comment.ts, delete-comment-attachment.ts) share.
import type { ProjectState } from '../project-state.js';
import { unfound } from '../errors.js';
import type { DecidedChange } from '../events.js';
import { fileDeleteChange } from '../file-attachment/upload-file.js';
import type { FileAttachmentDoc } from '../file-attachment/upload-file.js';
import type { NewExtAttachment } from './comment-attachments.js';
import type { CommentDoc } from './comment-writes.js';
import { assertCommentOf, commentParentOf } from './comment-parent.js';
import type { CommentParent, CommentParentRef } from './comment-parent.js';

/** An uploaded file to attach (by id), or a new ext attachment (no id). */
export type AttachmentToAdd = { id: number } | NewExtAttachment;

/** The delete changes of a comment and of its files' metadata (a comment deleted alone or with its parent). */
export function commentDeleteChanges(state: ProjectState, comment: CommentDoc): DecidedChange[] {
  return [
    { kind: 'comment', change_type: 'delete', id: comment.id, original_values: { ...comment } },
    ...comment.file_attachment_ids.flatMap((id) => fileChangeOf(state, id, fileDeleteChange)),
  ];
}

/** The comments of an epic (a story's are among its contents, project-state.ts storyContents). */
export function commentsOfEpic(state: ProjectState, epicId: number): CommentDoc[] {
  return [...state.comments].filter((comment) => comment.epic_id === epicId);
}

export function commentAt(state: ProjectState, ref: CommentParentRef & { comment_id: number }): { parent: CommentParent; comment: CommentDoc } {
  const parent = commentParentOf(state, ref);
  const comment = state.comments.get(ref.comment_id);
  if (!comment) throw unfound();
  assertCommentOf(parent, comment);
  return { parent, comment };
}

export function fileChangeOf(state: ProjectState, id: number, change: (file: FileAttachmentDoc) => DecidedChange): DecidedChange[] {
  const file = state.fileAttachments.get(id);
  return file ? [change(file)] : [];
}
