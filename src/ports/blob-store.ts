// The blob store port: the bytes of uploaded files, kept apart from the event log (events record only an
// attachment's metadata and content hash). Blobs are content-addressed: the key is the lower-case hex
// SHA-256 of the bytes, so the same file uploaded twice is stored once and a key names exactly one
// content. Adapters (infra/blob-store/): file-blob-store.ts (files under the data directory, the
// embedded default) and gridfs-blob-store.ts (MongoDB GridFS). Every adapter passes
// test/contract/blob-store.contract.ts.
import type { Readable } from 'node:stream';
import type { UploadFileCommand } from '../domain/file-attachment/upload-file.js';

export interface PutOptions {
  /** The largest blob accepted; a longer source is aborted and leaves nothing behind. */
  maxBytes: number;
}

export interface StoredBlob {
  /** Lower-case hex SHA-256 of the bytes. */
  key: string;
  size: number;
}

export interface BlobListing {
  key: string;
  /** ms since the epoch when the blob was stored (the garbage collector spares recent ones). */
  storedAt: number;
}

export interface BlobStore {
  /**
   * Streams `source` into the store. Resolves only once the blob is durable (a crash after that keeps
   * it); rejects with BlobTooLargeError past `maxBytes`, or with the source's error, and then nothing
   * of the attempt remains.
   */
  put(source: AsyncIterable<Uint8Array> | Readable, options: PutOptions): Promise<StoredBlob>;
  /** The bytes of a blob as a stream, or null when there is none under that key (or it is malformed). */
  get(key: string): Promise<Readable | null>;
  exists(key: string): Promise<boolean>;
  /** Removes a blob; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;
  /** Every stored blob (for garbage collection). */
  list(): AsyncIterable<BlobListing>;
  close(): Promise<void>;
}

/** A put whose source was longer than its `maxBytes`. */
export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the blob exceeds ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

/** Whether a string can be a blob key (64 lower-case hex digits); adapters refuse anything else. */
export function isBlobKey(key: string): boolean {
  return /^[0-9a-f]{64}$/.test(key);
}

/**
 * Where uploads go and downloads come from, as the API sees them: implemented over a BlobStore by
 * infra/blob-store/file-uploads.ts. `receive` stores the one `file` part of a multipart body and answers
 * what the upload decider records (415 / 400 / 413 error hashes for bodies it refuses, nothing stored
 * then); `read` answers a stored file's bytes by content hash, or null.
 */
export interface FileUploads {
  receive(body: { contentType: string; bytes: Buffer }): Promise<UploadFileCommand>;
  read(contentHash: string): Promise<Buffer | null>;
}
