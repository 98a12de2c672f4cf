// Garbage collection of upload bytes: a blob that no file attachment of any project names (by its
// content hash) any more, and that is no rendition (thumbnail, large preview) of a file attachment that
// still exists, is removed once it is older than a grace period, so that a blob whose upload event is
// still being appended (stored, not yet recorded) is never taken, nor a rendition the thumbnails reaction
// has stored but not yet recorded. Deleting attachments only deletes their metadata (events); this sweep
// is what frees the bytes. A replay of the log never needs a swept blob: events carry metadata only, and
// renditions are made again from their source when their documents are rebuilt.
import type { BlobStore } from '../../ports/blob-store.js';
import type { ReadCollection } from '../../ports/read-store.js';

export interface BlobSweepOptions {
  /** Only blobs stored before this time (ms since the epoch) may be removed. */
  storedBefore: number;
}

/** What names blobs: file attachments (`content_hash`) and their renditions (`rendition_keys`, by file id). */
export interface BlobReferences {
  fileAttachments: Pick<ReadCollection, 'count'>;
  fileThumbnails: Pick<ReadCollection, 'find'>;
}

/** Removes unreferenced blobs; returns their keys. */
export async function sweepUnreferencedBlobs(blobs: BlobStore, references: BlobReferences, options: BlobSweepOptions): Promise<string[]> {
  const removed: string[] = [];
  for await (const { key, storedAt } of blobs.list()) {
    if (storedAt >= options.storedBefore) continue;
    if (await isReferenced(references, key)) continue;
    await blobs.delete(key);
    removed.push(key);
  }
  return removed;
}

async function isReferenced({ fileAttachments, fileThumbnails }: BlobReferences, key: string): Promise<boolean> {
  if ((await fileAttachments.count({ content_hash: key })) > 0) return true;
  const renditionsOf = (await fileThumbnails.find({ rendition_keys: key })).map((doc) => doc.id);
  return renditionsOf.length > 0 && (await fileAttachments.count({ id: { $in: renditionsOf } })) > 0;
}
