// A new comment on a story, as its create change records it (facts §9.2 comment_create: the whole
// comment, attachment lists included, in the spec's `ext` naming). The nested `file_attachments` and
// `ext_attachments` are shown in the change but derived from the id lists, so never stored
// (resource-state.ts DERIVED_KEYS).
import type { ResourceChange } from '../events.js';
import type { ResourceDoc } from '../resource-state.js';

export interface CommentDoc extends ResourceDoc {
  story_id: number;
  text: string;
  person_id: number;
  file_attachment_ids: number[];
  ext_attachment_ids: number[];
  attachment_ids: number[];
  created_at: number;
  updated_at: number;
}

export interface NewStoryComment {
  id: number;
  storyId: number;
  text: string;
  personId: number;
  now: number;
}

/** A text comment without attachments, written by `personId` on `storyId` at `now`. */
export function newStoryComment(comment: NewStoryComment): CommentDoc {
  return {
    id: comment.id,
    story_id: comment.storyId,
    text: comment.text,
    person_id: comment.personId,
    file_attachment_ids: [],
    ext_attachment_ids: [],
    attachment_ids: [],
    created_at: comment.now,
    updated_at: comment.now,
  };
}

export function commentCreateChange(comment: CommentDoc): ResourceChange {
  return {
    kind: 'comment',
    change_type: 'create',
    id: comment.id,
    new_values: {
      id: comment.id,
      story_id: comment.story_id,
      text: comment.text,
      person_id: comment.person_id,
      created_at: comment.created_at,
      updated_at: comment.updated_at,
      file_attachment_ids: comment.file_attachment_ids,
      ext_attachment_ids: comment.ext_attachment_ids,
      attachment_ids: comment.attachment_ids,
      file_attachments: [],
      ext_attachments: [],
    },
  };
}
