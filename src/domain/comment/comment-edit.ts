// Editing and deleting comments. Only the writer edits a comment (text, attachments added or removed);
// the writer or a project owner deletes it. A file detached from its comment, or whose comment goes,
// loses its metadata in the same event (its blob is swept later, infra/blob-store/unreferenced-blob-sweep.ts).
// Every write touches the parent's updated_at (facts §9.2 comment_update: comment + story update).
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError, invalidField, unauthorized, unfound } from '../errors.js';
import { changedValues } from '../changed-values.js';
import type { DecidedChange, ResourceChange } from '../events.js';
import { attachFileChange, fileDeleteChange, findFileAttachment } from '../file-attachment/upload-file.js';
import type { FileAttachmentDoc } from '../file-attachment/upload-file.js';
import { allAttachmentIds, assertBounded, filesToAttach, newExtAttachments } from './comment-attachments.js';
import type { NewExtAttachment } from './comment-attachments.js';
import { commentDecision, commentText, mentionedMembers } from './comment-create.js';
import type { CommentDoc } from './comment-create.js';
import { assertCommentOf, commentParentOf, parentTouchChange } from './comment-parent.js';
import type { CommentParent, CommentParentRef } from './comment-parent.js';
import type { MentionedPerson } from './mentions.js';

/** An uploaded file to attach (by id), or a new ext attachment (no id). */
export type AttachmentToAdd = { id: number } | NewExtAttachment;

/** PUT on a comment: at least one of the edits below (facts §2.3, §4.3). */
export interface UpdateCommentCommand extends CommentParentRef {
  comment_id: number;
  /** null or blank clears the text (the comment must keep an attachment then). */
  text?: string | null;
  file_attachment_ids_to_add?: number[];
  file_attachment_ids_to_remove?: number[];
  ext_attachment_ids_to_remove?: number[];
  /** Ids of either kind of attachment. */
  attachment_ids_to_remove?: number[];
  attachments_to_add?: AttachmentToAdd[];
  /** The people the caller found for the usernames the new text mentions (mentions.ts). */
  mentioned_people?: MentionedPerson[];
}

export interface DeleteCommentCommand extends CommentParentRef {
  comment_id: number;
}

/** DELETE .../comments/{id}/file_attachments/{id} or .../ext_attachments/{id}. */
export interface DeleteCommentAttachmentCommand extends CommentParentRef {
  comment_id: number;
  file_attachment_id?: number;
  ext_attachment_id?: number;
}

/** The keys of which a comment PUT needs one, in the order the real service listed them. */
const UPDATE_KEYS = [
  'attachment_ids_to_remove',
  'attachments_to_add',
  'ext_attachment_ids_to_remove',
  'file_attachment_ids_to_add',
  'file_attachment_ids_to_remove',
  'text',
] as const;

export function decideUpdateComment(command: UpdateCommentCommand, state: ProjectState, context: DecisionContext): Decision {
  if (!UPDATE_KEYS.some((key) => command[key] !== undefined)) {
    throw new DomainError('invalid_parameter', {
      general_problem: `this endpoint requires at least one of the following parameters: ${UPDATE_KEYS.join(', ')}`,
    });
  }
  const { parent, comment } = commentAt(state, command);
  if (context.actorId !== comment.person_id) throw unauthorized('Only the writer of a comment may edit it.');
  for (const key of UPDATE_KEYS) if (key !== 'text') assertBounded(command[key], key);

  const toAdd = command.attachments_to_add ?? [];
  const fileIdsToAdd = [...(command.file_attachment_ids_to_add ?? []), ...toAdd.flatMap((item) => ('id' in item ? [item.id] : []))];
  const removeIds = new Set([
    ...(command.file_attachment_ids_to_remove ?? []),
    ...(command.ext_attachment_ids_to_remove ?? []),
    ...(command.attachment_ids_to_remove ?? []),
  ]);
  assertOnComment(comment, command);

  const added = filesToAttach(state, fileIdsToAdd, 'file_attachment_ids_to_add', comment.id).filter(
    (file) => file.comment_id !== comment.id,
  );
  const removedFiles = comment.file_attachment_ids.filter((id) => removeIds.has(id));
  const fileIds = [...comment.file_attachment_ids.filter((id) => !removeIds.has(id)), ...added.map((file) => file.id)];
  const newExt = newExtAttachments(
    toAdd.filter((item): item is NewExtAttachment => !('id' in item)),
    'attachments_to_add',
    context,
  );
  const ext = [...comment.ext_attachments.filter((attachment) => !removeIds.has(attachment.id)), ...newExt];
  const text = command.text !== undefined ? commentText(command.text, 'text') : comment.text;
  if (text === undefined && fileIds.length === 0 && ext.length === 0) {
    throw invalidField('text', 'A comment needs text or at least one attachment.');
  }
  const mentioned = command.text !== undefined ? mentionedMembers(state, text, command.mentioned_people ?? []) : [];
  const newlyMentioned = mentioned.filter((id) => !(comment.mentioned_person_ids ?? []).includes(id));

  const after: CommentDoc = {
    ...comment,
    file_attachment_ids: fileIds,
    ext_attachment_ids: ext.map((attachment) => attachment.id),
    attachment_ids: allAttachmentIds(fileIds, ext),
    ext_attachments: ext,
    updated_at: context.now,
  };
  if (text === undefined) delete after.text;
  else after.text = text;
  if (newlyMentioned.length > 0) after.mentioned_person_ids = [...(comment.mentioned_person_ids ?? []), ...newlyMentioned];

  const changes: DecidedChange[] = [
    commentUpdateChange(comment, after),
    ...added.map((file) => attachFileChange(file, comment.id, context.now)),
    ...removedFiles.flatMap((id) => fileChangeOf(state, id, fileDeleteChange)),
    parentTouchChange(parent, context.now, newlyMentioned),
  ];
  return commentDecision('comment_update', parent, comment.id, changes);
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

function commentAt(state: ProjectState, ref: CommentParentRef & { comment_id: number }): { parent: CommentParent; comment: CommentDoc } {
  const parent = commentParentOf(state, ref);
  const comment = state.comments.get(ref.comment_id);
  if (!comment) throw unfound();
  assertCommentOf(parent, comment);
  return { parent, comment };
}

/** Every id a PUT asks to remove must be an attachment of the comment; refused by key otherwise. */
function assertOnComment(comment: CommentDoc, command: UpdateCommentCommand): void {
  const lists: Array<[string, readonly number[] | undefined, readonly number[]]> = [
    ['file_attachment_ids_to_remove', command.file_attachment_ids_to_remove, comment.file_attachment_ids],
    ['ext_attachment_ids_to_remove', command.ext_attachment_ids_to_remove, comment.ext_attachment_ids],
    ['attachment_ids_to_remove', command.attachment_ids_to_remove, comment.attachment_ids],
  ];
  for (const [field, ids, held] of lists) {
    const strangers = (ids ?? []).filter((id) => !held.includes(id));
    if (strangers.length > 0) throw invalidField(field, `Attachment ${strangers.join(', ')} is not on this comment.`);
  }
}

function fileChangeOf(state: ProjectState, id: number, change: (file: FileAttachmentDoc) => DecidedChange): DecidedChange[] {
  const file = findFileAttachment(state, id);
  return file ? [change(file)] : [];
}

/** Only the comment's changed keys, plus updated_at, as the feed shows them (nulls explicit). */
function commentUpdateChange(before: CommentDoc, after: CommentDoc): ResourceChange<'comment'> {
  return {
    kind: 'comment',
    change_type: 'update',
    id: before.id,
    ...changedValues(before, after, ['text', 'file_attachment_ids', 'ext_attachment_ids', 'attachment_ids', 'ext_attachments', 'mentioned_person_ids']),
  };
}
