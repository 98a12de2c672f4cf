// Changing a comment's text or attachments: only its writer (or an owner) may; the change records what differs.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError, invalidField, unauthorized } from '../errors.js';
import { changedValues } from '../changed-values.js';
import type { DecidedChange, ResourceChange } from '../events.js';
import { attachFileChange, fileDeleteChange } from '../file-attachment/upload-file.js';
import { allAttachmentIds, assertBounded, filesToAttach, newExtAttachments } from './comment-attachments.js';
import type { NewExtAttachment } from './comment-attachments.js';
import { commentDecision, commentText, mentionedMembers } from './comment-writes.js';
import type { CommentDoc } from './comment-writes.js';
import { parentTouchChange } from './comment-parent.js';
import type { CommentParentRef } from './comment-parent.js';
import type { MentionedPerson } from './mentions.js';
import { type AttachmentToAdd, commentAt, fileChangeOf } from './comment-edits.js';

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

/** Only the comment's changed keys, plus updated_at, as the feed shows them (nulls explicit). */
function commentUpdateChange(before: CommentDoc, after: CommentDoc): ResourceChange<'comment'> {
  return {
    kind: 'comment',
    change_type: 'update',
    id: before.id,
    ...changedValues(before, after, ['text', 'file_attachment_ids', 'ext_attachment_ids', 'attachment_ids', 'ext_attachments', 'mentioned_person_ids']),
  };
}
