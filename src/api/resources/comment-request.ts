// The bodies of comment writes (alone, or nested in a story or epic create) and their conversion to the
// deciders' commands: uploaded files given as the upload's objects (`file_attachments`), or by id
// (`file_attachment_ids`, `attachment_ids`), ext attachments as new objects, and the people the text
// `@mentions` looked up by username in the people read model (usernames live outside the project's stream).
import type { SchemaObject } from 'ajv';
import type { AttachmentToAdd } from '../../domain/comment/comment-edits.js';
import type { NewComment } from '../../domain/comment/comment-writes.js';
import type { MentionedPerson } from '../../domain/comment/mentions.js';
import { mentionedUsernames } from '../../domain/comment/mentions.js';
import { LIST_LIMITS, TEXT_LIMITS } from '../../domain/input-limits.js';
import type { ReadOnlyCollection } from '../../ports/read-store.js';
import { text } from '../request-schema.js';

const integer = { type: 'integer' } as const;
const attachmentIds = { type: 'array', items: integer, maxItems: LIST_LIMITS.comment_attachments } as const;
const shortText = text(TEXT_LIMITS.short_text);

/** A new ext attachment (Google Drive and the like): no id. */
const NEW_EXT_ATTACHMENT: SchemaObject = {
  type: 'object',
  properties: {
    title: text(TEXT_LIMITS.short_text),
    ext_id: shortText,
    ext_kind: shortText,
    alternate_link: text(TEXT_LIMITS.attachment_link),
    resource_id: shortText,
    id: false,
  },
  required: ['title'],
  additionalProperties: false,
};

/** An uploaded file as the upload answered it: only its `id` matters, the rest is the upload's own record. */
const UPLOADED_FILE: SchemaObject = { type: 'object', properties: { id: integer }, required: ['id'] };

/** A comment to create (POST .../comments, or one of a story's or an epic's nested `comments`). */
export const NEW_COMMENT: SchemaObject = {
  type: 'object',
  properties: {
    text: text(TEXT_LIMITS.comment_text, true),
    person_id: integer,
    file_attachments: { type: 'array', items: UPLOADED_FILE, maxItems: LIST_LIMITS.comment_attachments },
    file_attachment_ids: attachmentIds,
    attachment_ids: attachmentIds,
    ext_attachments: { type: 'array', items: NEW_EXT_ATTACHMENT, maxItems: LIST_LIMITS.comment_attachments },
    commit_identifier: shortText,
    commit_type: shortText,
    id: false,
  },
  additionalProperties: false,
};

/** A comment PUT: text and attachment edits (facts §2.3: at least one of them, checked by the decider). */
export const COMMENT_EDIT: SchemaObject = {
  type: 'object',
  properties: {
    text: text(TEXT_LIMITS.comment_text, true),
    file_attachment_ids_to_add: attachmentIds,
    file_attachment_ids_to_remove: attachmentIds,
    ext_attachment_ids_to_remove: attachmentIds,
    google_attachment_ids_to_remove: attachmentIds,
    attachment_ids_to_remove: attachmentIds,
    attachments_to_add: { type: 'array', items: { anyOf: [UPLOADED_FILE, NEW_EXT_ATTACHMENT] }, maxItems: LIST_LIMITS.comment_attachments },
  },
  additionalProperties: false,
};

/** A checked comment body, as NEW_COMMENT let it through. */
export interface CommentBody {
  text?: string | null;
  person_id?: number;
  file_attachments?: { id: number }[];
  file_attachment_ids?: number[];
  attachment_ids?: number[];
  ext_attachments?: NewComment['ext_attachments'];
  commit_identifier?: string;
  commit_type?: string;
}

/** A checked comment edit, as COMMENT_EDIT let it through. */
export interface CommentEditBody {
  text?: string | null;
  file_attachment_ids_to_add?: number[];
  file_attachment_ids_to_remove?: number[];
  ext_attachment_ids_to_remove?: number[];
  google_attachment_ids_to_remove?: number[];
  attachment_ids_to_remove?: number[];
  attachments_to_add?: AttachmentToAdd[];
}

/** The commands for checked comment bodies, with the people their texts mention (one people read for all). */
export async function newCommentsOf(people: ReadOnlyCollection, bodies: readonly CommentBody[]): Promise<NewComment[]> {
  const mentioned = await mentionedPeople(people, bodies.map((body) => body.text));
  return bodies.map((body) => newComment(body, mentioned));
}

function newComment(body: CommentBody, mentioned: readonly MentionedPerson[]): NewComment {
  const fileIds = [...(body.file_attachments ?? []).map((file) => file.id), ...(body.file_attachment_ids ?? []), ...(body.attachment_ids ?? [])];
  const comment: NewComment = {};
  if (typeof body.text === 'string') comment.text = body.text;
  if (body.person_id !== undefined) comment.person_id = body.person_id;
  if (fileIds.length > 0) comment.file_attachment_ids = [...new Set(fileIds)];
  if (body.ext_attachments !== undefined) comment.ext_attachments = body.ext_attachments;
  if (body.commit_identifier !== undefined) comment.commit_identifier = body.commit_identifier;
  if (body.commit_type !== undefined) comment.commit_type = body.commit_type;
  if (mentioned.length > 0) comment.mentioned_people = [...mentioned];
  return comment;
}

/** The people (by username) the texts `@mention`, from one read of the people read model. */
export async function mentionedPeople(people: ReadOnlyCollection, texts: readonly (string | null | undefined)[]): Promise<MentionedPerson[]> {
  const usernames = [...new Set(texts.flatMap((text) => (typeof text === 'string' ? mentionedUsernames(text) : [])))];
  if (usernames.length === 0) return [];
  const found = await people.find({ username: { $in: usernames } });
  return found.map((person) => ({ username: String(person.username), person_id: person.id }));
}
