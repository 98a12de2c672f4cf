// The embedded blob store: one file per blob under `<root>/<first two hex digits>/<key>`. A put streams
// into `<root>/tmp/<random>` while hashing and counting, fsyncs the file, renames it to its key and
// fsyncs the directory, and only then resolves: an acknowledged upload survives a crash. A put that
// fails (too large, source error) removes its temp file; temp files left by a crash mid-put are removed
// when a store opens, once they are an hour old (a younger one may be another process's put in flight).
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { BlobTooLargeError, isBlobKey } from '../../ports/blob-store.js';
import type { BlobListing, BlobStore, PutOptions, StoredBlob } from '../../ports/blob-store.js';

const TEMP_DIR = 'tmp';
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

export async function openFileBlobStore(root: string): Promise<BlobStore> {
  const temp = join(root, TEMP_DIR);
  await mkdir(temp, { recursive: true });
  await removeAbandonedTempFiles(temp, Date.now() - ABANDONED_AFTER_MS);
  const pathOf = (key: string) => join(root, key.slice(0, 2), key);

  return {
    async put(source: AsyncIterable<Uint8Array> | Readable, options: PutOptions): Promise<StoredBlob> {
      const tempPath = join(temp, randomUUID());
      const file = await open(tempPath, 'wx', 0o600);
      let stored: StoredBlob;
      try {
        stored = await writeHashed(file, source, options.maxBytes);
        await file.sync();
      } catch (error) {
        await file.close().catch(() => undefined);
        await unlink(tempPath).catch(() => undefined);
        throw error;
      }
      await file.close();
      const shard = join(root, stored.key.slice(0, 2));
      const createdShard = (await mkdir(shard, { recursive: true })) !== undefined;
      await rename(tempPath, pathOf(stored.key)); // the same key means the same bytes: replacing is harmless
      await syncDirectory(shard);
      if (createdShard) await syncDirectory(root); // a new shard directory must be durable in the root too
      return stored;
    },

    async get(key: string): Promise<Readable | null> {
      if (!isBlobKey(key)) return null;
      try {
        const handle = await open(pathOf(key), 'r');
        return handle.createReadStream();
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async exists(key: string): Promise<boolean> {
      if (!isBlobKey(key)) return false;
      try {
        return (await stat(pathOf(key))).isFile();
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      if (!isBlobKey(key)) return;
      await rm(pathOf(key), { force: true });
    },

    async *list(): AsyncIterable<BlobListing> {
      for (const shard of await readdir(root)) {
        if (!/^[0-9a-f]{2}$/.test(shard)) continue;
        for (const key of await readdir(join(root, shard))) {
          if (!isBlobKey(key) || !key.startsWith(shard)) continue;
          const info = await stat(join(root, shard, key)).catch(() => null);
          if (info) yield { key, storedAt: info.mtimeMs };
        }
      }
    },

    async close(): Promise<void> {},
  };
}

/** Writes the source to the file, hashing and counting; rejects past `maxBytes`. */
async function writeHashed(
  file: FileHandle,
  source: AsyncIterable<Uint8Array> | Readable,
  maxBytes: number,
): Promise<StoredBlob> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new BlobTooLargeError(maxBytes); // leaving the loop destroys a stream source
    hash.update(chunk);
    await file.write(chunk);
  }
  return { key: hash.digest('hex'), size };
}

async function removeAbandonedTempFiles(temp: string, before: number): Promise<void> {
  for (const name of await readdir(temp)) {
    const info = await stat(join(temp, name)).catch(() => null);
    if (info && info.mtimeMs < before) await rm(join(temp, name), { force: true });
  }
}

async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}
