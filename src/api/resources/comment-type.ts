// How comments and their uploaded files are rendered (facts §12): the comment and file_attachment
// resource types, and the `comments` association stories and epics share.
//
// A file's `download_url` is the site's download address. An uploaded image gets a thumbnail and a large
// preview behind the log (src/reactions/thumbnails.ts): once they are made it is `thumbnailable` and
// `thumbnail_url` / `big_url` serve them; until then, and for every other file, they answer `"#"` (what
// the service answered while a thumbnail was not made). `width` / `height` are the image's own.
import type { ReadOnlyCollection } from '../../ports/read-store.js';
import type { CommentReadDoc, EpicReadDoc, FileAttachmentReadDoc, StoryReadDoc } from '../../projections/documents.js';
import type { Association, LoadContext, ResourceType } from '../resource-type.js';
import { peopleById } from './story-type.js';
import type { PeopleAsSeen } from '../../queries/email-visibility.js';
import { fileDownloadUrl, fileRenditionUrl, type FileRendition } from './web-addresses.js';

export function commentResourceType(deps: { fileAttachments: ReadOnlyCollection<FileAttachmentReadDoc>; people: PeopleAsSeen }): ResourceType<CommentReadDoc> {
  return {
    name: 'comment',
    kind: 'comment',
    attributes: {
      id: 'integer', story_id: 'integer', epic_id: 'integer', text: 'string', person_id: 'integer', created_at: 'datetime',
      updated_at: 'datetime', file_attachment_ids: 'integer[]', ext_attachment_ids: 'integer[]', attachment_ids: 'integer[]',
      ext_attachments: { type: 'array', items: { type: 'object' } }, commit_identifier: 'string', commit_type: 'string',
    },
    defaults: ['kind', 'id', 'story_id', 'epic_id', 'text', 'person_id', 'created_at', 'updated_at'],
    associations: {
      file_attachments: {
        type: 'file_attachment',
        many: true,
        ids: 'file_attachment_ids',
        async load(docs) {
          const ids = docs.flatMap((doc) => idList(doc.file_attachment_ids));
          const found = new Map((await deps.fileAttachments.find({ id: { $in: ids } })).map((file) => [file.id, file]));
          return docs.map((doc) => idList(doc.file_attachment_ids).flatMap((id) => found.get(id) ?? []));
        },
      },
      person: {
        type: 'person',
        ids: 'person_id',
        alternative: true,
        async load(docs, ctx) {
          const found = await peopleById(deps.people, docs.map((doc) => doc.person_id), ctx);
          return docs.map((doc) => found.get(doc.person_id) ?? null);
        },
      },
    },
  };
}

export function fileAttachmentResourceType(deps: { siteUrl: string; people: PeopleAsSeen; thumbnails: ReadOnlyCollection }): ResourceType<FileAttachmentReadDoc> {
  const download = (doc: FileAttachmentReadDoc) => fileDownloadUrl(deps.siteUrl, doc.id);
  /** The thumbnails documents of the response's files, read once for all of its computed values. */
  const made = (docs: readonly FileAttachmentReadDoc[], ctx: LoadContext) =>
    ctx.scope.memo(docs, 'file-thumbnails', async () => {
      const found = await deps.thumbnails.find({ id: { $in: docs.map((doc) => doc.id) } });
      const byId = new Map(found.filter((doc) => doc.thumbnailable === true).map((doc) => [doc.id, doc]));
      return docs.map((doc) => byId.get(doc.id) ?? null);
    });
  const rendition = (name: FileRendition) => async (docs: readonly FileAttachmentReadDoc[], ctx: LoadContext) =>
    (await made(docs, ctx)).map((thumbnail, i) => (thumbnail ? fileRenditionUrl(deps.siteUrl, docs[i]!.id, name) : '#'));
  const size = (key: 'width' | 'height') => async (docs: readonly FileAttachmentReadDoc[], ctx: LoadContext) =>
    (await made(docs, ctx)).map((thumbnail, i) => docs[i]![key] ?? thumbnail?.[key] ?? null);
  return {
    name: 'file_attachment',
    kind: 'file_attachment',
    attributes: {
      id: 'integer', filename: 'string', created_at: 'datetime', uploader_id: 'integer', size: 'integer', uploaded: 'boolean',
      content_type: 'string', download_url: 'string', thumbnailable: 'boolean', thumbnail_url: 'string', big_url: 'string',
      width: 'integer', height: 'integer',
    },
    // The recorded default keys, with the spec's `height` / `width` (images only: omitted when null) and
    // `content_type` (decided from the file's extension at upload).
    defaults: [
      'kind', 'id', 'filename', 'created_at', 'uploader_id', 'thumbnailable', 'height', 'width', 'size', 'download_url', 'uploaded',
      'big_url', 'thumbnail_url', 'content_type',
    ],
    associations: {
      uploader: {
        type: 'person',
        ids: 'uploader_id',
        alternative: true,
        async load(docs, ctx) {
          const found = await peopleById(deps.people, docs.map((doc) => doc.uploader_id), ctx);
          return docs.map((doc) => found.get(doc.uploader_id) ?? null);
        },
      },
    },
    computed: {
      download_url: async (docs) => docs.map(download),
      thumbnailable: async (docs, ctx) => (await made(docs, ctx)).map((thumbnail) => thumbnail !== null),
      thumbnail_url: rendition('thumbnail'),
      big_url: rendition('big'),
      width: size('width'),
      height: size('height'),
    },
  };
}

/** A story's or an epic's comments, oldest first, from one read for the whole response. */
export function commentsAssociation(comments: ReadOnlyCollection<CommentReadDoc>, parentKey: 'story_id' | 'epic_id'): Association<StoryReadDoc | EpicReadDoc> {
  return {
    type: 'comment',
    many: true,
    ids: 'comment_ids',
    idsFromLoad: true,
    async load(docs) {
      const all = await comments.find({ [parentKey]: { $in: docs.map((doc) => doc.id) } }, { sort: { created_at: 1, id: 1 } });
      return docs.map((doc) => all.filter((comment) => comment[parentKey] === doc.id && comment.project_id === doc.project_id));
    },
  };
}

function idList(value: unknown): number[] {
  return Array.isArray(value) ? (value as number[]) : [];
}
