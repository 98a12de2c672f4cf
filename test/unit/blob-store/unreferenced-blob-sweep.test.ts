// The blob sweep over the file blob store and the file_attachments read model: only blobs that no
// attachment names and that are older than the grace period go.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openFileBlobStore } from '../../../src/infra/blob-store/file-blob-store.js';
import { sweepUnreferencedBlobs } from '../../../src/infra/blob-store/unreferenced-blob-sweep.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import { chunked, seededBytes } from '../../contract/blob-store.contract.js';

describe('sweeping unreferenced blobs', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'storyline-sweep-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('removes blobs no attachment names, keeps named ones and recent ones', async () => {
    const blobs = await openFileBlobStore(root);
    const store = createMemoryReadStore();
    const files = store.collection('file_attachments');
    const refs = { fileAttachments: files, fileThumbnails: store.collection('file_thumbnails') };
    const kept = await blobs.put(chunked(seededBytes(1, 100)), { maxBytes: 1000 });
    const orphan = await blobs.put(chunked(seededBytes(2, 100)), { maxBytes: 1000 });
    await files.write([{ op: 'insert', doc: { id: 1, project_id: 5, content_hash: kept.key } }]);

    expect(await sweepUnreferencedBlobs(blobs, refs, { storedBefore: Date.now() - 60_000 })).to.deep.equal([]);
    expect(await blobs.exists(orphan.key), 'inside the grace period').to.equal(true);

    expect(await sweepUnreferencedBlobs(blobs, refs, { storedBefore: Date.now() + 60_000 })).to.deep.equal([orphan.key]);
    expect(await blobs.exists(orphan.key)).to.equal(false);
    expect(await blobs.exists(kept.key)).to.equal(true);
  });

  it('frees a blob once the last attachment naming it is gone', async () => {
    const blobs = await openFileBlobStore(root);
    const store = createMemoryReadStore();
    const files = store.collection('file_attachments');
    const refs = { fileAttachments: files, fileThumbnails: store.collection('file_thumbnails') };
    const shared = await blobs.put(chunked(seededBytes(3, 100)), { maxBytes: 1000 });
    await files.write([
      { op: 'insert', doc: { id: 1, content_hash: shared.key } },
      { op: 'insert', doc: { id: 2, content_hash: shared.key } },
    ]);
    const later = Date.now() + 60_000;
    await files.write([{ op: 'delete', filter: { id: 1 } }]);
    expect(await sweepUnreferencedBlobs(blobs, refs, { storedBefore: later })).to.deep.equal([]);
    await files.write([{ op: 'delete', filter: { id: 2 } }]);
    expect(await sweepUnreferencedBlobs(blobs, refs, { storedBefore: later })).to.deep.equal([shared.key]);
  });

  it('keeps the renditions of a file attachment while it exists, then frees them with it', async () => {
    const blobs = await openFileBlobStore(root);
    const store = createMemoryReadStore();
    const files = store.collection('file_attachments');
    const thumbnails = store.collection('file_thumbnails');
    const refs = { fileAttachments: files, fileThumbnails: thumbnails };
    const source = await blobs.put(chunked(seededBytes(4, 100)), { maxBytes: 1000 });
    const thumbnail = await blobs.put(chunked(seededBytes(5, 50)), { maxBytes: 1000 });
    const big = await blobs.put(chunked(seededBytes(6, 80)), { maxBytes: 1000 });
    await files.write([{ op: 'insert', doc: { id: 7, content_hash: source.key } }]);
    await thumbnails.write([{ op: 'insert', doc: { id: 7, thumbnailable: true, rendition_keys: [thumbnail.key, big.key] } }]);
    const later = Date.now() + 60_000;
    expect(await sweepUnreferencedBlobs(blobs, refs, { storedBefore: later })).to.deep.equal([]);
    await files.write([{ op: 'delete', filter: { id: 7 } }]);
    expect((await sweepUnreferencedBlobs(blobs, refs, { storedBefore: later })).sort()).to.deep.equal([source.key, thumbnail.key, big.key].sort());
  });
});
