// Comments on stories and on epics (the same routes under either parent, `:parent` = stories | epics):
//
//   GET    /projects/:project_id/:parent/:id/comments                          readers; oldest first
//   POST   /projects/:project_id/:parent/:id/comments                          writers; `text`, `person_id`,
//          `file_attachments` (the upload's objects), `file_attachment_ids`, `attachment_ids`, `ext_attachments`,
//          `commit_identifier`, `commit_type`
//   GET    /projects/:project_id/:parent/:id/comments/:comment_id              readers
//   PUT    /projects/:project_id/:parent/:id/comments/:comment_id              writers; text and attachment edits
//   DELETE /projects/:project_id/:parent/:id/comments/:comment_id              writers
//   DELETE .../comments/:comment_id/file_attachments/:file_attachment_id        writers; detaches and forgets the file
//   DELETE .../comments/:comment_id/ext_attachments/:ext_attachment_id          writers
//
// `@username` mentions are looked up in the people read model and passed to the decider, which makes the
// mentioned members (and the writer) followers of the parent.
import { decideCreateComment } from '../../domain/comment/create-comment.js';
import { decideDeleteComment } from '../../domain/comment/delete-comment.js';
import { decideDeleteCommentAttachment } from '../../domain/comment/delete-comment-attachment.js';
import { decideUpdateComment } from '../../domain/comment/update-comment.js';
import type { UpdateCommentCommand } from '../../domain/comment/update-comment.js';
import { streams } from '../../domain/events.js';
import type { Doc } from '../../ports/read-store.js';
import { commandMeta } from '../command-meta.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { requestSchema } from '../request-schema.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import { COMMENT_EDIT, NEW_COMMENT, mentionedPeople, newCommentsOf } from './comment-request.js';
import type { CommentBody, CommentEditBody } from './comment-request.js';
import { commentResourceType, fileAttachmentResourceType } from './comment-type.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

const checkCreate = requestSchema<CommentBody>(NEW_COMMENT);
const checkEdit = requestSchema<CommentEditBody>(COMMENT_EDIT);

/** A parent kind of comments: its path segment, its read model and the key comments name it by. */
interface CommentParentKind {
  segment: 'stories' | 'epics';
  /** What the reference calls it. */
  noun: 'story' | 'epic';
  collection: 'stories' | 'epics';
  key: 'story_id' | 'epic_id';
}

const PARENTS: readonly CommentParentKind[] = [
  { segment: 'stories', noun: 'story', collection: 'stories', key: 'story_id' },
  { segment: 'epics', noun: 'epic', collection: 'epics', key: 'epic_id' },
];

export function commentResources(deps: ResourceDeps): ResourceModule {
  const comments = deps.read('comments');
  const people = deps.read('people');
  const { writer } = deps;
  const types = [
    commentResourceType({ fileAttachments: deps.read('file_attachments'), people: deps.queries.people }),
    fileAttachmentResourceType({ siteUrl: deps.settings.siteUrl, people: deps.queries.people, thumbnails: deps.queries.fileThumbnails }),
  ];

  function parentRoutes(parent: CommentParentKind): RouteDefinition[] {
    const parents = deps.read(parent.collection);
    const param = parent.key;

    /** The parent named by the path, in the route's project: `{ story_id }` or `{ epic_id }`. */
    async function pathParent(req: ApiRequest): Promise<Record<string, number>> {
      const found = await parents.findOne({ id: idParam(req.params[param]), project_id: req.project!.id });
      if (!found) throw apiError('unfound_resource');
      return { [parent.key]: found.id };
    }

    async function pathComment(req: ApiRequest): Promise<{ ref: Record<string, number>; comment: Doc }> {
      const ref = await pathParent(req);
      const comment = await comments.findOne({ id: idParam(req.params['comment_id']), ...ref, project_id: req.project!.id });
      if (!comment) throw apiError('unfound_resource');
      return { ref, comment };
    }

    const base = `/projects/:project_id/${parent.segment}/:${param}/comments`;
    const an = parent.noun === 'epic' ? 'n' : '';
    return [
      {
        method: 'GET',
        path: base,
        access: 'project:read',
        cacheable: true,
        answers: { type: 'comment', list: true },
        summary: `The comments on a${an} ${parent.noun}, oldest first`,
        async handle(req) {
          const ref = await pathParent(req);
          const value = await comments.find({ ...ref, project_id: req.project!.id }, { sort: { created_at: 1, id: 1 } });
          return { kind: 'resource', type: 'comment', value };
        },
      },
      {
        method: 'POST',
        path: base,
        access: 'project:write',
        input: { body: checkCreate },
        answers: { type: 'comment', created: true },
        summary: `Comment on a${an} ${parent.noun}`,
        async handle(req) {
          const ref = await pathParent(req);
          const [comment] = await newCommentsOf(people, [checkCreate.read(req)]);
          const { doc, version } = await writer.onProject(req.project!.id, decideCreateComment, { ...comment!, ...ref }, commandMeta(req));
          return { kind: 'resource', type: 'comment', value: doc, created: true, projectVersion: version };
        },
      },
      {
        method: 'GET',
        path: `${base}/:comment_id`,
        access: 'project:read',
        cacheable: true,
        answers: { type: 'comment' },
        summary: `A comment on a${an} ${parent.noun}`,
        handle: async (req) => ({ kind: 'resource', type: 'comment', value: (await pathComment(req)).comment }),
      },
      {
        method: 'PUT',
        path: `${base}/:comment_id`,
        access: 'project:write',
        input: { body: checkEdit },
        answers: { type: 'comment' },
        summary: `Edit a comment on a${an} ${parent.noun} (text, attachments)`,
        async handle(req) {
          const { ref, comment } = await pathComment(req);
          const command = await commentEdit(checkEdit.read(req), comment.id, ref);
          const { doc, version } = await writer.onProject(req.project!.id, decideUpdateComment, command, commandMeta(req));
          return { kind: 'resource', type: 'comment', value: doc, projectVersion: version };
        },
      },
      {
        method: 'DELETE',
        path: `${base}/:comment_id`,
        access: 'project:write',
        answers: 'empty',
        summary: `Delete a comment on a${an} ${parent.noun}`,
        async handle(req) {
          const { ref, comment } = await pathComment(req);
          const outcome = await writer.execute(streams.project(req.project!.id), decideDeleteComment, { ...ref, comment_id: comment.id }, commandMeta(req));
          return { kind: 'empty', projectVersion: outcome.version };
        },
      },
      ...(['file_attachment', 'ext_attachment'] as const).map(
        (attachment): RouteDefinition => ({
          method: 'DELETE',
          path: `${base}/:comment_id/${attachment}s/:attachment_id`,
          access: 'project:write',
          answers: 'empty',
          summary: `Remove a${attachment === 'ext_attachment' ? 'n' : ''} ${attachment.replace('_', ' ')} from a comment on a${an} ${parent.noun}`,
          async handle(req) {
            const { ref, comment } = await pathComment(req);
            const command = { ...ref, comment_id: comment.id, [`${attachment}_id`]: idParam(req.params['attachment_id']) };
            const outcome = await writer.execute(streams.project(req.project!.id), decideDeleteCommentAttachment, command, commandMeta(req));
            return { kind: 'empty', projectVersion: outcome.version };
          },
        }),
      ),
    ];
  }

  /** The decider's command for a checked edit; Google attachments are ext attachments here. */
  async function commentEdit(body: CommentEditBody, commentId: number, ref: Record<string, number>): Promise<UpdateCommentCommand> {
    const { google_attachment_ids_to_remove: google, ...edit } = body;
    const command: UpdateCommentCommand = { ...edit, ...ref, comment_id: commentId };
    if (google !== undefined) command.ext_attachment_ids_to_remove = [...(edit.ext_attachment_ids_to_remove ?? []), ...google];
    const mentioned = await mentionedPeople(people, [body.text]);
    if (mentioned.length > 0) command.mentioned_people = mentioned;
    return command;
  }

  return { reference: { tag: 'Comments', description: "Comments on stories and epics, with uploaded files and external attachments." }, routes: PARENTS.flatMap(parentRoutes), types };
}
