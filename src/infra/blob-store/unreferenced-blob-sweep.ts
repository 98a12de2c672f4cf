// Garbage collection of upload bytes: a blob that no file attachment of any project names (by its
// content hash) any more is removed, once it is older than a grace period, so that a blob whose upload
// event is still being appended (stored, not yet recorded) is never taken. Deleting attachments only
// deletes their metadata (events); this sweep is what frees the bytes. A replay of the log never needs
// a swept blob: events carry metadata only.
import type { BlobStore } from '../../ports/blob-store.js';
import type { ReadCollection } from '../../ports/read-store.js';

export interface BlobSweepOptions {
  /** Only blobs stored before this time (ms since the epoch) may be removed. */
  storedBefore: number;
}

/** Removes unreferenced blobs; returns their keys. */
export async function sweepUnreferencedBlobs(
  blobs: BlobStore,
  fileAttachments: Pick<ReadCollection, 'count'>,
  options: BlobSweepOptions,
): Promise<string[]> {
  const removed: string[] = [];
  for await (const { key, storedAt } of blobs.list()) {
    if (storedAt >= options.storedBefore) continue;
    if ((await fileAttachments.count({ content_hash: key })) > 0) continue;
    await blobs.delete(key);
    removed.push(key);
  }
  return removed;
}
