// Recording an upload: the metadata of a file whose bytes the blob store already holds durably (the
// bytes never enter the event log; the content hash is the blob's key). The upload is an event of its
// own on the project stream (`file_attachment_create`), before any comment uses it; attaching it to a
// comment later sets its `comment_id`. No thumbnails are made: every file is `thumbnailable: false`;
// images whose header gives them carry `width` and `height`.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField } from '../errors.js';
import type { EventType, DecidedChange, ResourceRef, ResourceChange } from '../events.js';
import type { ResourceDoc } from '../resource-state.js';

export interface FileAttachmentDoc extends ResourceDoc {
  project_id: number;
  filename: string;
  content_type: string;
  size: number;
  /** The blob store key: lower-case hex SHA-256 of the bytes. */
  content_hash: string;
  uploader_id: number;
  thumbnailable: boolean;
  uploaded: boolean;
  width?: number;
  height?: number;
  created_at: number;
  updated_at: number;
  /** The comment the file is attached to; absent until a comment takes it. */
  comment_id?: number;
}

/** A file the blob store holds, as the upload endpoint received it (infra/blob-store/multipart-upload.ts). */
export interface UploadFileCommand {
  filename: string;
  content_type: string;
  size: number;
  content_hash: string;
  /** Of an image whose header gives them (infra/blob-store/image-dimensions.ts). */
  width?: number;
  height?: number;
}

export function decideUploadFile(command: UploadFileCommand, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  if (context.actorId === null) throw invalidField('file', 'An upload needs a person to upload it.');
  const file: FileAttachmentDoc = {
    id: context.nextId('file_attachment'),
    project_id: state.projectId,
    filename: command.filename,
    content_type: command.content_type,
    size: command.size,
    content_hash: command.content_hash,
    uploader_id: context.actorId,
    thumbnailable: false,
    uploaded: true,
    ...(command.width !== undefined && command.height !== undefined ? { width: command.width, height: command.height } : {}),
    created_at: context.now,
    updated_at: context.now,
  };
  return fileAttachmentDecision('file_attachment_create', file, [
    { kind: 'file_attachment', change_type: 'create', id: file.id, name: file.filename, new_values: { ...file } },
  ]);
}

export function fileAttachmentRef(file: FileAttachmentDoc): ResourceRef {
  return { kind: 'file_attachment', id: file.id, name: file.filename };
}

function fileAttachmentDecision(type: EventType, file: FileAttachmentDoc, changes: DecidedChange[]): Decision {
  return { type, data: { changes, primary_resources: [fileAttachmentRef(file)] }, subject: { kind: 'file_attachment', id: file.id } };
}

/** The change that attaches an uploaded file to a comment. */
export function attachFileChange(file: FileAttachmentDoc, commentId: number, now: number): ResourceChange<'file_attachment'> {
  return {
    kind: 'file_attachment',
    change_type: 'update',
    id: file.id,
    name: file.filename,
    original_values: { comment_id: null, updated_at: file.updated_at },
    new_values: { comment_id: commentId, updated_at: now },
  };
}

/** The change that removes a file's metadata (detached from its comment, or its comment deleted). */
export function fileDeleteChange(file: FileAttachmentDoc): ResourceChange<'file_attachment'> {
  return { kind: 'file_attachment', change_type: 'delete', id: file.id, name: file.filename, original_values: { ...file } };
}
