// The scaled-out blob store: MongoDB GridFS through the official driver. A put uploads under a temporary
// name while hashing and counting (journaled, majority-acknowledged writes), then renames the file to
// its key, or drops it when a file with that key is already stored (and stamps that one as stored now); a put that fails aborts the upload,
// which deletes its chunks. Temporary files older than an hour (a process died mid-put) are removed when
// the store opens.
import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, MongoClient } from 'mongodb';
import type { GridFSBucketWriteStream } from 'mongodb';
import { BlobTooLargeError, isBlobKey } from '../../ports/blob-store.js';
import type { BlobListing, BlobStore, PutOptions, StoredBlob } from '../../ports/blob-store.js';

export interface GridFsOptions {
  url: string;
  dbName: string;
  /** GridFS bucket name (collections `<bucket>.files`, `<bucket>.chunks`); default `uploads`. */
  bucketName?: string;
}

const TEMPORARY_PREFIX = 'tmp-';
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

export async function openGridFsBlobStore(options: GridFsOptions): Promise<BlobStore> {
  const client = await MongoClient.connect(options.url);
  const bucketName = options.bucketName ?? 'uploads';
  const db = client.db(options.dbName);
  const bucket = new GridFSBucket(db, { bucketName, writeConcern: { w: 'majority', journal: true } });
  await removeAbandonedUploads(bucket, Date.now() - ABANDONED_AFTER_MS);

  const files = db.collection(`${bucketName}.files`);
  const filesNamed = (key: string) => bucket.find({ filename: key }).toArray();

  return {
    async put(source: AsyncIterable<Uint8Array> | Readable, putOptions: PutOptions): Promise<StoredBlob> {
      const upload = bucket.openUploadStream(`${TEMPORARY_PREFIX}${randomUUID()}`);
      const hash = createHash('sha256');
      let size = 0;
      try {
        await pipeline(async function* () {
          for await (const chunk of source as AsyncIterable<Uint8Array>) {
            size += chunk.byteLength;
            if (size > putOptions.maxBytes) throw new BlobTooLargeError(putOptions.maxBytes);
            hash.update(chunk);
            yield chunk;
          }
        }, upload);
      } catch (error) {
        await discard(bucket, upload);
        throw error;
      }
      const key = hash.digest('hex');
      if ((await filesNamed(key)).length > 0) {
        // the bytes are there already: keep them, stamped as stored now so the sweep's grace period restarts
        await bucket.delete(upload.id);
        await files.updateMany({ filename: key }, { $set: { uploadDate: new Date() } });
      } else {
        await bucket.rename(upload.id, key);
      }
      return { key, size };
    },

    async get(key: string): Promise<Readable | null> {
      if (!isBlobKey(key)) return null;
      const [file] = await filesNamed(key);
      return file ? bucket.openDownloadStream(file._id) : null;
    },

    async exists(key: string): Promise<boolean> {
      return isBlobKey(key) && (await filesNamed(key)).length > 0;
    },

    async delete(key: string): Promise<void> {
      if (!isBlobKey(key)) return;
      for (const file of await filesNamed(key)) await bucket.delete(file._id);
    },

    async *list(): AsyncIterable<BlobListing> {
      for await (const file of bucket.find({})) {
        if (isBlobKey(file.filename)) yield { key: file.filename, storedAt: file.uploadDate.getTime() };
      }
    },

    async close(): Promise<void> {
      await client.close();
    },
  };
}

/**
 * Removes what a failed upload wrote: its chunks and, if it got that far, its file document
 * (bucket.delete removes the chunks even when there is no file document, and then rejects).
 */
async function discard(bucket: GridFSBucket, upload: GridFSBucketWriteStream): Promise<void> {
  await upload.abort().catch(() => undefined);
  await bucket.delete(upload.id).catch(() => undefined);
}

async function removeAbandonedUploads(bucket: GridFSBucket, before: number): Promise<void> {
  const abandoned = bucket.find({ filename: { $regex: `^${TEMPORARY_PREFIX}` }, uploadDate: { $lt: new Date(before) } });
  for await (const file of abandoned) await bucket.delete(file._id).catch(() => undefined);
}
