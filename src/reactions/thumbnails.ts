// The thumbnails reaction (issue 31 item 9): for every uploaded image (PNG, JPEG, GIF, WebP) it makes a
// thumbnail and a large preview behind the log, so an upload never waits for them: the file's bytes are
// read from the blob store, rendered (ports/image-renditions.ts), and the renditions stored back in the
// blob store under their own content hashes. What it made is kept in collections of its own:
//
//   file_thumbnails      one document per file attachment id: `thumbnailable`, the source's `width` /
//                        `height`, and `thumbnail` / `big` ({ key, content_type, size, width, height });
//                        `rendition_keys` lists both keys (the upload sweep spares blobs named there
//                        while the file attachment exists). An image the renderer cannot read (damaged,
//                        past the pixel limit) or whose bytes are gone gets `thumbnailable: false`.
//   thumbnail_progress   { id: 1, position }: the last event applied; events at or before it are skipped,
//                        and when the collections are lost the log is replayed into them (`resumeAfter`).
//
// A file moved with its story to another project keeps its id: its renditions are not made twice. A
// storage failure (reading the source, storing a rendition) throws, and the runner retries the batch
// with back-off; renditions already stored are content-addressed, so a retry stores nothing twice.
// After each batch that wrote documents `changed()` is called: answers cached by project version show
// thumbnails, which change without a version (api/app.ts keys its byte cache with it).
import { Readable } from 'node:stream';
import type { RecordedEvent } from '../domain/events.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { ImageRendition, ImageRenditions } from '../ports/image-renditions.js';
import type { Doc, WriteOp } from '../ports/read-store.js';
import type { Reaction, ReactionStore } from './reaction.js';
import { reactionProgress } from './reaction-progress.js';

export const FILE_THUMBNAILS = 'file_thumbnails';
const PROGRESS = 'thumbnail_progress';

export interface ThumbnailsDeps {
  own: ReactionStore;
  blobs: BlobStore;
  renditions: ImageRenditions;
  /** The largest source read (the upload limit): a larger blob is not rendered. */
  maxSourceBytes: number;
  /** Called after a batch that made or refused thumbnails. */
  changed(): void;
}

/** A rendition as its file_thumbnails document names it (the blob's key is its content hash). */
export interface StoredRendition {
  key: string;
  content_type: string;
  size: number;
  width: number;
  height: number;
}

/** An uploaded file an event creates, when it is of a type the renderer takes. */
interface ImageFile {
  id: number;
  contentType: string;
  contentHash: string;
}

export function thumbnailsReaction(deps: ThumbnailsDeps): Reaction {
  const thumbnails = deps.own.collection(FILE_THUMBNAILS);
  const progress = reactionProgress(deps.own, PROGRESS, { collection: FILE_THUMBNAILS, fields: [{ field: 'rendition_keys' }] });

  function imagesCreatedBy(event: RecordedEvent): ImageFile[] {
    const files: ImageFile[] = [];
    for (const change of event.data.changes) {
      if (change.kind !== 'file_attachment' || change.change_type !== 'create') continue;
      const contentType = change.new_values?.['content_type'];
      const contentHash = change.new_values?.['content_hash'];
      if (typeof contentType !== 'string' || typeof contentHash !== 'string' || !deps.renditions.contentTypes.has(contentType)) continue;
      files.push({ id: change.id, contentType, contentHash });
    }
    return files;
  }

  async function storeRendition(rendition: ImageRendition): Promise<StoredRendition> {
    const stored = await deps.blobs.put(Readable.from([rendition.bytes]), { maxBytes: rendition.bytes.length });
    return { key: stored.key, content_type: rendition.contentType, size: stored.size, width: rendition.width, height: rendition.height };
  }

  async function thumbnailDoc(file: ImageFile): Promise<Doc> {
    const source = await readBlob(deps.blobs, file.contentHash, deps.maxSourceBytes);
    const made = source === null ? null : await deps.renditions.render(source, file.contentType);
    if (made === null) return { id: file.id, thumbnailable: false };
    const thumbnail = await storeRendition(made.thumbnail);
    const big = await storeRendition(made.big);
    return {
      id: file.id,
      thumbnailable: true,
      width: made.width,
      height: made.height,
      thumbnail,
      big,
      rendition_keys: [thumbnail.key, big.key],
    };
  }

  return {
    name: 'thumbnails',
    resumeAfter: () => progress.applied(),
    async handle(events) {
      const fresh = await progress.fresh(events);
      if (fresh.length === 0) return;
      const ops: WriteOp[] = [];
      const made = new Set<number>();
      for (const file of fresh.flatMap(imagesCreatedBy)) {
        if (made.has(file.id) || (await thumbnails.findOne({ id: file.id }))) continue;
        made.add(file.id);
        ops.push({ op: 'replace', filter: { id: file.id }, doc: await thumbnailDoc(file), upsert: true });
      }
      const recorded = progress.recorded(fresh.at(-1)!.position);
      await deps.own.writeAtomically(ops.length > 0 ? [{ collection: FILE_THUMBNAILS, ops }, recorded] : [recorded]);
      if (ops.length > 0) deps.changed();
    },
  };
}

/** A blob's bytes, or null when it is gone or larger than `maxBytes`. */
async function readBlob(blobs: BlobStore, key: string, maxBytes: number): Promise<Buffer | null> {
  const stream = await blobs.get(key);
  if (stream === null) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Uint8Array).byteLength;
    if (size > maxBytes) {
      stream.destroy();
      return null;
    }
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}
