// Uploaded files (spec: uploads; facts §2.2: one multipart part `file`).
//
//   POST /projects/:project_id/uploads                       writers; multipart part `file` -> file_attachment
//   GET  /file_attachments/:file_attachment_id/download      readers of the file's project; at the site root
//                                                            and under every API prefix; `inline=true`
//   GET  /file_attachments/:file_attachment_id/thumbnail     an image's thumbnail / large preview, once the
//   GET  /file_attachments/:file_attachment_id/big           thumbnails reaction made them (else 404); the
//                                                            same access, mounts and headers, shown inline
//
// The bytes go to the blob store as the body is read (the injected `FileUploads`, implemented in infra
// over src/infra/blob-store/multipart-upload.ts); the upload decider records the metadata as one event.
// A client attaches the upload afterwards: POST a comment with `file_attachments: [<the upload's object>]`.
// Downloads are answered as attachments (save dialog) unless `inline=true` asks for a type that cannot
// run script (src/api/file-download.ts: the served type, the isolation headers, the neutralised name).
// A file whose comment was deleted is gone (404); its bytes wait for the sweep.
import { decideUploadFile } from '../../domain/file-attachment/upload-file.js';
import { invalidField } from '../../domain/errors.js';
import { isXhr, missingCredentials } from '../authentication.js';
import { commandMeta } from '../command-meta.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { ANY_MEDIA_TYPE } from '../route-answer.js';
import type { ApiRequest, ApiResult, RouteDefinition, RouteRequest } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import { FILE_RENDITIONS, type FileRendition } from './web-addresses.js';

export function uploadResources(deps: ResourceDeps): ResourceModule {
  const files = deps.read('file_attachments');
  const { writer } = deps;

  /** The project of a download, for its access check; anonymous callers cannot probe which files exist. */
  const fileProject = {
    level: 'project:read' as const,
    async of(req: RouteRequest): Promise<number> {
      const found = await files.findOne({ id: idParam(req.params['file_attachment_id']) });
      if (!found) throw req.actor ? apiError('unfound_resource') : missingCredentials(isXhr(req));
      return found.project_id;
    },
  };

  async function download(req: ApiRequest): Promise<ApiResult> {
    const file = await files.findOne({ id: idParam(req.params['file_attachment_id']), project_id: req.project!.id });
    if (!file) throw apiError('unfound_resource');
    const inline = inlineParameter(req.query['inline']);
    const bytes = await deps.uploads.read(file.content_hash);
    if (bytes === null) throw apiError('unfound_resource');
    return { kind: 'raw', contentType: file.content_type, body: bytes, filename: file.filename, inline };
  }

  /** A rendition of an image (src/reactions/thumbnails.ts): served inline, named after the file. */
  const renditionOf = (name: FileRendition) => async (req: ApiRequest): Promise<ApiResult> => {
    const file = await files.findOne({ id: idParam(req.params['file_attachment_id']), project_id: req.project!.id });
    const made = file ? await deps.queries.fileThumbnails.findOne({ id: file.id }) : null;
    const rendition = made?.thumbnailable === true ? (made[name] as { key: string; content_type: string }) : null;
    const bytes = rendition ? await deps.uploads.read(rendition.key) : null;
    if (!file || !rendition || bytes === null) throw apiError('unfound_resource');
    return { kind: 'raw', contentType: rendition.content_type, body: bytes, filename: file.filename, inline: true };
  };

  const fileRoutes = (mount: 'root' | 'versioned'): RouteDefinition[] => [
    {
      method: 'GET',
      path: '/file_attachments/:file_attachment_id/download',
      access: 'public',
      project: fileProject,
      mount,
      input: { query: { type: 'object', properties: { inline: { type: 'boolean', default: false, description: 'Shown in the browser rather than saved (types that cannot run script only).' } } } },
      answers: { raw: ANY_MEDIA_TYPE },
      summary: 'Download an uploaded file',
      handle: download,
    },
    ...FILE_RENDITIONS.map((name): RouteDefinition => ({
      method: 'GET',
      path: `/file_attachments/:file_attachment_id/${name}`,
      access: 'public',
      project: fileProject,
      mount,
      answers: { raw: 'image/*' },
      summary: `An uploaded image's ${name === 'big' ? 'large preview' : name} (404 until it is made)`,
      handle: renditionOf(name),
    })),
  ];

  const routes: RouteDefinition[] = [
    {
      method: 'POST',
      path: '/projects/:project_id/uploads',
      access: 'project:write',
      input: {
        body: {
          raw: 'multipart/form-data',
          schema: { type: 'object', properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file (one part named file).' } }, required: ['file'] },
        },
      },
      answers: { type: 'file_attachment', created: true },
      summary: 'Upload a file (then attach it to a comment)',
      async handle(req) {
        const received = await deps.uploads.receive(req.rawBody ?? { contentType: '', bytes: Buffer.alloc(0) });
        const { doc, version } = await writer.onProject(req.project!.id, decideUploadFile, received, commandMeta(req));
        return { kind: 'resource', type: 'file_attachment', value: doc, created: true, projectVersion: version };
      },
    },
    ...fileRoutes('root'),
    ...fileRoutes('versioned'),
  ];
  return { reference: { tag: 'Uploads', description: "Uploading files and downloading them (with image previews)." }, routes, types: [] };
}

function inlineParameter(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalidField('inline', "'inline' must be a boolean value");
}
