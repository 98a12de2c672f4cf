// The API's FileUploads over a blob store: an upload's multipart body goes through the one multipart
// reader (multipart-upload.ts) into the store; a download reads a blob back whole (files are bounded by
// the upload limit).
import { Readable } from 'node:stream';
import type { BlobStore, FileUploads } from '../../ports/blob-store.js';
import { receiveUpload } from './multipart-upload.js';

export function blobFileUploads(blobs: BlobStore, limits: { maxFileBytes: number }): FileUploads {
  return {
    receive({ contentType, bytes }) {
      const headers = { 'content-type': contentType, 'content-length': String(bytes.length) };
      return receiveUpload({ headers, body: Readable.from([bytes]) }, blobs, limits);
    },
    async read(contentHash) {
      const stream = await blobs.get(contentHash);
      if (stream === null) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks);
    },
  };
}
