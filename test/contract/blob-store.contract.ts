// The blob store contract: every adapter of src/ports/blob-store.ts passes this suite.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { BlobTooLargeError } from '../../src/ports/blob-store.js';
import type { BlobStore } from '../../src/ports/blob-store.js';
import { seededRandom } from '../support/seeded-random.js';

export type OpenBlobStore = () => Promise<{ store: BlobStore; dispose(): Promise<void> }>;

/** `size` seeded pseudo-random bytes. */
export function seededBytes(seed: number, size: number): Buffer {
  const random = seededRandom(seed);
  return Buffer.from(Array.from({ length: size }, () => Math.floor(random() * 256)));
}

/** A source that yields `bytes` in chunks of `chunkSize`. */
export function chunked(bytes: Buffer, chunkSize = 16 * 1024): Readable {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunkSize) chunks.push(bytes.subarray(offset, offset + chunkSize));
  return Readable.from(chunks);
}

/** A source that yields `bytes` then fails, as a client that drops the connection mid-upload. */
function failingAfter(bytes: Buffer): AsyncIterable<Uint8Array> {
  return (async function* () {
    yield bytes;
    throw new Error('connection reset');
  })();
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

async function listedKeys(store: BlobStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const listing of store.list()) keys.push(listing.key);
  return keys.sort();
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export function blobStoreContract(name: string, open: OpenBlobStore): void {
  describe(`blob store contract: ${name}`, function () {
    this.timeout(20_000);
    let store: BlobStore;
    let dispose: () => Promise<void>;

    beforeEach(async () => {
      ({ store, dispose } = await open());
    });
    afterEach(async () => dispose());

    it('stores the exact bytes under their SHA-256 and streams them back', async () => {
      const bytes = seededBytes(1, 300_000);
      const stored = await store.put(chunked(bytes), { maxBytes: 1_000_000 });
      expect(stored).to.deep.equal({ key: sha256(bytes), size: bytes.length });
      expect(await store.exists(stored.key)).to.equal(true);
      const back = await store.get(stored.key);
      expect(back).to.not.equal(null);
      expect(sha256(await readAll(back!))).to.equal(stored.key);
    });

    it('stores an empty blob and blobs of exactly the limit', async () => {
      const empty = await store.put(Readable.from([]), { maxBytes: 10 });
      expect(empty.size).to.equal(0);
      expect(await readAll((await store.get(empty.key))!)).to.have.length(0);
      const exact = await store.put(chunked(seededBytes(2, 10), 3), { maxBytes: 10 });
      expect(exact.size).to.equal(10);
    });

    it('keeps one blob for the same content put twice', async () => {
      const bytes = seededBytes(3, 5000);
      const first = await store.put(chunked(bytes), { maxBytes: 10_000 });
      const second = await store.put(chunked(bytes, 7), { maxBytes: 10_000 });
      expect(second).to.deep.equal(first);
      expect(await listedKeys(store)).to.deep.equal([first.key]);
    });

    it('refuses a source over the limit and leaves nothing behind', async () => {
      const error = await store.put(chunked(seededBytes(4, 50_000), 1000), { maxBytes: 20_000 }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).to.be.instanceOf(BlobTooLargeError);
      expect(await listedKeys(store)).to.deep.equal([]);
      expect(await store.exists(sha256(seededBytes(4, 50_000)))).to.equal(false);
    });

    it('leaves nothing behind when the source fails mid-put', async () => {
      const error = await store.put(failingAfter(seededBytes(5, 4000)), { maxBytes: 1_000_000 }).then(
        () => null,
        (caught: unknown) => caught as Error,
      );
      expect(error?.message).to.equal('connection reset');
      expect(await listedKeys(store)).to.deep.equal([]);
    });

    it('lists stored blobs with the time they were stored', async () => {
      const before = Date.now() - 2000;
      const a = await store.put(chunked(seededBytes(6, 10)), { maxBytes: 100 });
      const b = await store.put(chunked(seededBytes(7, 10)), { maxBytes: 100 });
      const listings = [];
      for await (const listing of store.list()) listings.push(listing);
      expect(listings.map((listing) => listing.key).sort()).to.deep.equal([a.key, b.key].sort());
      for (const listing of listings) expect(listing.storedAt).to.be.greaterThan(before);
    });

    it('deletes a blob; deleting it again or an unknown key is not an error', async () => {
      const stored = await store.put(chunked(seededBytes(8, 100)), { maxBytes: 1000 });
      await store.delete(stored.key);
      await store.delete(stored.key);
      expect(await store.exists(stored.key)).to.equal(false);
      expect(await store.get(stored.key)).to.equal(null);
      expect(await listedKeys(store)).to.deep.equal([]);
    });

    it('answers unknown and malformed keys with nothing, never a path outside the store', async () => {
      expect(await store.get('0'.repeat(64))).to.equal(null);
      expect(await store.exists('0'.repeat(64))).to.equal(false);
      for (const key of ['../../etc/passwd', 'A'.repeat(64), '', '0'.repeat(63)]) {
        expect(await store.get(key)).to.equal(null);
        expect(await store.exists(key)).to.equal(false);
        await store.delete(key);
      }
    });
  });
}
