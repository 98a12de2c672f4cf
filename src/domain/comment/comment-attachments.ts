// A comment's attachments. Uploaded files (file_attachment documents, from decideUploadFile) are named
// by id and belong to one comment at most; ext attachments (links to documents kept elsewhere, the
// real service's Google attachments) are created with the comment and stored on it, with ids of their
// own. `attachment_ids` lists both kinds, files first.
import type { ProjectState } from '../project-state.js';
import type { DecisionContext } from '../decision.js';
import { invalidField } from '../errors.js';
import type { FileAttachmentDoc } from '../file-attachment/upload-file.js';

/** The most attachments one request may name in one list (bounds every loop over them). */
export const MAX_ATTACHMENTS = 100;

/** A new ext attachment as a request sends it (no id). */
export interface NewExtAttachment {
  title: string;
  ext_id?: string;
  ext_kind?: string;
  alternate_link?: string;
  resource_id?: string;
}

export interface ExtAttachment extends NewExtAttachment {
  kind: 'ext_attachment';
  id: number;
}

/** A list a request sends must not exceed MAX_ATTACHMENTS; refused by name otherwise. */
export function assertBounded(list: readonly unknown[] | undefined, field: string): void {
  if (list !== undefined && list.length > MAX_ATTACHMENTS) {
    throw invalidField(field, `At most ${MAX_ATTACHMENTS} attachments per request.`);
  }
}

/**
 * The uploaded files named by `ids` (without repeats), each of this project and not attached to
 * another comment; `commentId` may already hold them (re-adding a file is not an error).
 */
export function filesToAttach(state: ProjectState, ids: readonly number[], field: string, commentId: number | null): FileAttachmentDoc[] {
  assertBounded(ids, field);
  const files: FileAttachmentDoc[] = [];
  for (const id of new Set(ids)) {
    const file = state.fileAttachments.get(id);
    if (!file) throw invalidField(field, `File attachment ${id} does not exist in this project; upload the file first.`);
    if (file.comment_id !== undefined && file.comment_id !== commentId) {
      throw invalidField(field, `File attachment ${id} is already attached to another comment.`);
    }
    files.push(file);
  }
  return files;
}

/** New ext attachments with fresh ids; a title is required. */
export function newExtAttachments(inputs: readonly NewExtAttachment[], field: string, context: DecisionContext): ExtAttachment[] {
  assertBounded(inputs, field);
  return inputs.map((input) => {
    if (typeof input?.title !== 'string' || input.title.trim() === '') throw invalidField(field, 'An ext attachment needs a title.');
    for (const [key, value] of Object.entries(input)) {
      if (!EXT_ATTACHMENT_KEYS.has(key)) throw invalidField(field, `An ext attachment has no attribute "${key}".`);
      if (typeof value !== 'string') throw invalidField(field, `An ext attachment's ${key} must be a string.`);
    }
    // drawn from the file attachments' ids: a comment's `attachment_ids` hold both kinds, so an id must
    // name one attachment whichever its kind
    return { kind: 'ext_attachment', id: context.nextId('file_attachment'), ...input };
  });
}

/** What a new ext attachment may carry (anything else is refused, never dropped). */
const EXT_ATTACHMENT_KEYS: ReadonlySet<string> = new Set(['title', 'ext_id', 'ext_kind', 'alternate_link', 'resource_id']);

/** All attachment ids of a comment: its files, then its ext attachments. */
export function allAttachmentIds(fileIds: readonly number[], ext: readonly ExtAttachment[]): number[] {
  return [...fileIds, ...ext.map((attachment) => attachment.id)];
}
