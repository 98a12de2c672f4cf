// Creating comments on a story or an epic: alone (POST .../comments, a `comment_create` event), nested
// in a story or epic create, or with a rejection (update-story.ts), in the same event as their parent's write.
// A comment has text, attachments, or both; it is written by `person_id` (the caller by default; only
// a project owner may write in another member's name). Its writer and the members it mentions start
// following the parent. Its create change records the whole comment as the feed shows it (facts §9.2:
// attachment lists included, the uploaded files as nested objects; spec `ext` naming); the nested
// `file_attachments` are derived from `file_attachment_ids` and never stored on the comment.
// What its deciders (create-comment.ts) share.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, invalidParameter, unauthorized } from '../errors.js';
import type { EventType, DecidedChange, ResourceChange } from '../events.js';
import { attachFileChange } from '../file-attachment/upload-file.js';
import type { FileAttachmentDoc } from '../file-attachment/upload-file.js';
import type { ResourceDoc } from '../resource-state.js';
import { unique } from '../story/story-people.js';
import { storyTimeProblem } from '../story/story-rules.js';
import { allAttachmentIds, assertBounded, filesToAttach, newExtAttachments } from './comment-attachments.js';
import type { ExtAttachment, NewExtAttachment } from './comment-attachments.js';
import { parentKey, parentRef } from './comment-parent.js';
import type { CommentParent } from './comment-parent.js';
import { mentionedUsernames } from './mentions.js';
import type { MentionedPerson } from './mentions.js';

/** The longest comment text accepted, in characters. */
export const MAX_COMMENT_TEXT = 20_000;

export interface CommentDoc extends ResourceDoc {
  story_id?: number;
  epic_id?: number;
  text?: string;
  person_id: number;
  file_attachment_ids: number[];
  ext_attachment_ids: number[];
  attachment_ids: number[];
  ext_attachments: ExtAttachment[];
  commit_identifier?: string;
  commit_type?: string;
  /** Members the text mentions (for notifications). */
  mentioned_person_ids?: number[];
  created_at: number;
  updated_at: number;
}

/** A comment as a request creates it (alone, or nested in a story or epic create). */
export interface NewComment {
  text?: string;
  /** The writer; the caller when absent. */
  person_id?: number;
  /** Uploaded files by id (the API takes them from `file_attachments` objects and `attachment_ids`). */
  file_attachment_ids?: number[];
  ext_attachments?: NewExtAttachment[];
  commit_identifier?: string;
  commit_type?: string;
  /** The people the caller found for the usernames the text mentions (mentions.ts). */
  mentioned_people?: MentionedPerson[];
  /** When it was written, for imports (2005-01-01 to now, as a story's created_at); now by default. */
  created_at?: number;
}

/** Comments written for a parent in one event, and who starts following the parent because of them. */
export interface WrittenComments {
  changes: DecidedChange[];
  /** The new comments' ids, in the order of the inputs. */
  commentIds: number[];
  followerIds: number[];
}

/** The one way every comment decision is built: about the comment's parent. */
export function commentDecision(type: EventType, parent: CommentParent, commentId: number, changes: DecidedChange[]): Decision {
  return { type, data: { changes, primary_resources: [parentRef(parent)] }, subject: { kind: 'comment', id: commentId } };
}

/**
 * The create changes of comments on a parent (which may be created in the same event), each followed
 * by the attach changes of its files. `field` is the request key problems name for nested comments
 * (`comments`, or `comment` for a rejection's); '' names each attribute (a comment posted alone).
 */
export function writeComments(
  state: ProjectState,
  parent: { kind: 'story' | 'epic'; id: number },
  inputs: readonly NewComment[],
  field: string,
  context: DecisionContext,
): WrittenComments {
  assertBounded(inputs, field || 'comments');
  const written: WrittenComments = { changes: [], commentIds: [], followerIds: [] };
  const claimed = new Set<number>();
  const key = (name: string) => (field ? field : name);
  for (const input of inputs) {
    const files = filesToAttach(state, input.file_attachment_ids ?? [], key('file_attachments'), null);
    for (const file of files) {
      if (claimed.has(file.id)) throw invalidField(key('file_attachments'), `File attachment ${file.id} is named by two comments.`);
      claimed.add(file.id);
    }
    const ext = newExtAttachments(input.ext_attachments ?? [], key('ext_attachments'), context);
    const text = commentText(input.text, key('text'));
    if (text === undefined && files.length === 0 && ext.length === 0) {
      throw invalidField(key('text'), 'A comment needs text or at least one attachment.');
    }
    const writer = commentWriter(state, input.person_id, key('person_id'), context);
    const createdAt = input.created_at ?? context.now;
    const timeProblem = input.created_at === undefined ? null : storyTimeProblem(key('created_at'), createdAt, context.now);
    if (timeProblem) throw invalidParameter([timeProblem]);
    const mentioned = mentionedMembers(state, text, input.mentioned_people ?? []);
    const comment: CommentDoc = {
      id: context.nextId('comment'),
      ...parentKey(parent),
      ...(text !== undefined ? { text } : {}),
      person_id: writer,
      created_at: createdAt,
      updated_at: createdAt,
      file_attachment_ids: files.map((file) => file.id),
      ext_attachment_ids: ext.map((attachment) => attachment.id),
      attachment_ids: allAttachmentIds(files.map((file) => file.id), ext),
      ext_attachments: ext,
      ...(input.commit_identifier !== undefined ? { commit_identifier: input.commit_identifier } : {}),
      ...(input.commit_type !== undefined ? { commit_type: input.commit_type } : {}),
      ...(mentioned.length > 0 ? { mentioned_person_ids: mentioned } : {}),
    };
    const attached = files.map((file) => ({ ...file, comment_id: comment.id, updated_at: context.now }));
    written.commentIds.push(comment.id);
    written.changes.push(commentCreateChange(comment, attached), ...files.map((file) => attachFileChange(file, comment.id, context.now)));
    written.followerIds = unique([...written.followerIds, writer, ...mentioned]);
  }
  return written;
}

/** The create change of a comment: the whole comment, its uploaded files nested as they are after the write. */
export function commentCreateChange(comment: CommentDoc, files: readonly FileAttachmentDoc[] = []): ResourceChange<'comment'> {
  const { story_id, epic_id, text, person_id, created_at, updated_at, ...rest } = comment;
  return {
    kind: 'comment',
    change_type: 'create',
    id: comment.id,
    new_values: {
      id: comment.id,
      ...(story_id !== undefined ? { story_id } : { epic_id }),
      ...(text !== undefined ? { text } : {}),
      person_id,
      created_at,
      updated_at,
      file_attachment_ids: rest.file_attachment_ids,
      ext_attachment_ids: rest.ext_attachment_ids,
      attachment_ids: rest.attachment_ids,
      file_attachments: files.map((file) => ({ ...file })),
      ext_attachments: rest.ext_attachments,
      ...(rest.commit_identifier !== undefined ? { commit_identifier: rest.commit_identifier } : {}),
      ...(rest.commit_type !== undefined ? { commit_type: rest.commit_type } : {}),
      ...(rest.mentioned_person_ids !== undefined ? { mentioned_person_ids: rest.mentioned_person_ids } : {}),
    },
  };
}

/** The text to store (undefined when absent or blank); refused when too long or not a string. */
export function commentText(text: unknown, field: string): string | undefined {
  if (text === undefined || text === null) return undefined;
  if (typeof text !== 'string') throw invalidField(field, 'text must be a string.');
  if (text.length > MAX_COMMENT_TEXT) throw invalidField(field, `'text' parameter must be ${MAX_COMMENT_TEXT} characters or less.`);
  return text.trim() === '' ? undefined : text;
}

/** The members (not viewers) among the people found for the text's mentions, in mention order. */
export function mentionedMembers(state: ProjectState, text: string | undefined, people: readonly MentionedPerson[]): number[] {
  if (text === undefined) return [];
  const usernames = mentionedUsernames(text);
  const ids: number[] = [];
  for (const username of usernames) {
    const person = people.find((candidate) => candidate.username.toLowerCase() === username);
    const role = person ? state.membershipOf(person.person_id)?.role : undefined;
    if (person && role !== undefined && role !== 'viewer' && !ids.includes(person.person_id)) ids.push(person.person_id);
  }
  return ids;
}

/** The comment's writer: the caller, or (for a project owner) another member named by person_id. */
function commentWriter(state: ProjectState, personId: number | undefined, field: string, context: DecisionContext): number {
  const actor = context.actorId;
  if (personId === undefined || personId === actor) {
    if (actor === null) throw invalidField(field, 'A comment needs a person to write it.');
    return actor;
  }
  if (actor !== null && state.membershipOf(actor)?.role !== 'owner') {
    throw unauthorized('Only project owners may write comments in the name of another person.');
  }
  if (!state.isMember(personId)) throw invalidField(field, `Person ${personId} is not a member of this project.`);
  return personId;
}
