// Receiving an upload (POST /projects/{id}/uploads): a multipart/form-data body, parsed by busboy, whose
// one part `file` streams straight into the blob store (never buffered whole, never into the event log).
// What it resolves to is what the upload decision records. Content type comes from the file's
// extension, not from the part's Content-Type (spec); an image's width and height come from its header.
// Failures are the catalogue's error hashes:
// - a body that is not multipart: 415 content_format_not_found;
// - a malformed body, no `file` part, an empty file name: 400 invalid_upload;
// - another part or a second file: 400 invalid_parameter naming it (nothing is silently dropped);
// - a file over the limit: 413 request_entity_too_large, and nothing of it is stored.
// The request is settled at the first failure; the rest of the body is read and discarded. A blob stored
// for a request that then fails (a stray part after the file) is left to the unreferenced-blob sweep.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { FileInfo } from 'busboy';
import { lookup } from 'mime-types';
import { DomainError, invalidField } from '../../domain/errors.js';
import type { UploadFileCommand } from '../../domain/file-attachment/upload-file.js';
import { BlobTooLargeError } from '../../ports/blob-store.js';
import { imageDimensions, keepingHead } from './image-dimensions.js';
import type { BlobStore } from '../../ports/blob-store.js';

export interface UploadRequest {
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** The uploaded file as stored: exactly what the upload decision takes (its command). */
export type ReceivedFile = UploadFileCommand;

export interface UploadLimits {
  maxFileBytes: number;
}

const FILE_PART = 'file';
const MAX_FILENAME_LENGTH = 255;
/** Parts besides the file are refused, but only after the parser has read (and bounded) them. */
const MAX_OTHER_PARTS = 8;

export function receiveUpload(request: UploadRequest, blobs: BlobStore, limits: UploadLimits): Promise<ReceivedFile> {
  return new Promise<ReceivedFile>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, defParamCharset: 'utf8', limits: { files: 1, fields: MAX_OTHER_PARTS, parts: MAX_OTHER_PARTS + 1, fileSize: limits.maxFileBytes + 1 } });
    } catch {
      request.body.resume();
      reject(new DomainError('content_format_not_found', { general_problem: 'An upload must be sent as multipart/form-data.' }));
      return;
    }
    let settled = false;
    let stored: Promise<ReceivedFile> | null = null;
    let fileStream: Readable | null = null;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      fileStream?.destroy(new Error('upload abandoned')); // a put still reading it aborts and removes its temp
      request.body.unpipe(parser);
      request.body.resume(); // read and discard the rest of the body
      // answer once the put has finished cleaning up (or stored the blob, left to the sweep)
      const putSettled = stored === null ? Promise.resolve() : stored.then(() => undefined, () => undefined);
      void putSettled.then(() => reject(asUploadError(error)));
    };

    parser.on('file', (name: string, file: Readable, info: FileInfo) => {
      file.on('error', () => undefined); // the put reads its errors; late ones must not go unhandled
      if (settled) {
        file.resume();
        return;
      }
      if (name !== FILE_PART) {
        file.resume();
        fail(invalidField(name, `An upload takes one part, "${FILE_PART}"; "${name}" is not one.`));
        return;
      }
      const filename = info.filename?.trim() ?? '';
      if (filename === '' || filename.length > MAX_FILENAME_LENGTH) {
        file.resume();
        fail(invalidUpload(`The file name must be 1 to ${MAX_FILENAME_LENGTH} characters.`));
        return;
      }
      fileStream = file;
      const contentType = contentTypeOf(filename);
      const head: Uint8Array[] = [];
      const source = contentType.startsWith('image/') ? keepingHead(file, head) : file;
      stored = blobs.put(source, { maxBytes: limits.maxFileBytes }).then((blob) => ({
        filename,
        content_type: contentType,
        size: blob.size,
        content_hash: blob.key,
        ...(head.length > 0 ? imageDimensions(Buffer.concat(head)) : null),
      }));
      stored.catch(fail);
    });
    parser.on('field', (name: string) =>
      fail(
        name === FILE_PART // a `file` part without a file name arrives as a field
          ? invalidUpload(`The "${FILE_PART}" part must be a file with a name.`)
          : invalidField(name, `An upload takes one part, "${FILE_PART}"; "${name}" is not one.`),
      ),
    );
    parser.on('partsLimit', () => fail(invalidParameterForExtraPart()));
    parser.on('filesLimit', () => fail(invalidParameterForExtraPart()));
    parser.on('fieldsLimit', () => fail(invalidParameterForExtraPart()));
    parser.on('error', (error: unknown) => fail(error));
    parser.on('close', () => {
      if (settled) return;
      if (stored === null) {
        fail(invalidUpload(`The upload has no "${FILE_PART}" part.`));
        return;
      }
      stored.then((file) => {
        if (settled) return;
        settled = true;
        resolve(file);
      }, fail);
    });
    request.body.on('error', fail);
    request.body.pipe(parser);
  });
}

/** The content type a file name's extension stands for; unknown extensions are plain bytes. */
export function contentTypeOf(filename: string): string {
  return lookup(filename) || 'application/octet-stream';
}

function invalidUpload(problem: string): DomainError {
  return new DomainError('invalid_upload', { general_problem: problem });
}

function invalidParameterForExtraPart(): DomainError {
  return invalidField(FILE_PART, `An upload takes exactly one part, "${FILE_PART}".`);
}

function asUploadError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof BlobTooLargeError) {
    return new DomainError('request_entity_too_large', {
      general_problem: `The file is larger than the upload limit of ${error.maxBytes} bytes.`,
    });
  }
  // busboy's parse errors (truncated body, bad boundary, malformed part headers) and a dropped connection
  const message = error instanceof Error ? error.message : String(error);
  return invalidUpload(`The multipart body could not be read: ${message}.`);
}
