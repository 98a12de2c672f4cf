// The SQLite read store's cache of parsed documents: bounded by its byte estimate, and a document read
// since the last sweep outlives one that was not (CLOCK, second chance).
import { expect } from 'chai';
import { DocumentCache } from '../../../src/infra/read-store/document-cache.js';

const doc = (id: number) => ({ id });

describe('document cache', () => {
  it('never holds more than its capacity in estimated bytes', () => {
    const cache = new DocumentCache(1_000);
    for (let id = 1; id <= 100; id++) cache.set(1, id, doc(id), 150);
    expect(cache.usedBytes).to.be.at.most(1_000);
    expect(cache.size).to.equal(6);
    expect(cache.get(1, 100)).to.deep.equal({ id: 100 });
    expect(cache.get(1, 1)).to.equal(undefined);
  });

  it('evicts the oldest unread document first and spares one read since', () => {
    const cache = new DocumentCache(300);
    cache.set(1, 1, doc(1), 100);
    cache.set(1, 2, doc(2), 100);
    cache.set(1, 3, doc(3), 100);
    expect(cache.get(1, 1)).to.deep.equal({ id: 1 }); // read: spared by the next sweep
    cache.set(1, 4, doc(4), 100);
    expect(cache.get(1, 2)).to.equal(undefined);
    expect([1, 3, 4].map((id) => cache.get(1, id)?.['id'])).to.deep.equal([1, 3, 4]);
  });

  it('spares a read document only once', () => {
    const cache = new DocumentCache(200);
    cache.set(1, 1, doc(1), 100);
    cache.set(1, 2, doc(2), 100);
    cache.get(1, 1);
    cache.set(1, 3, doc(3), 100); // spares 1 (now younger than 3), drops 2
    cache.set(1, 4, doc(4), 100); // drops 3, the oldest
    cache.set(1, 5, doc(5), 100); // 1 was not read again: dropped
    expect(cache.get(1, 1)).to.equal(undefined);
    expect(cache.get(1, 3)).to.equal(undefined);
    expect([4, 5].map((id) => cache.get(1, id)?.['id'])).to.deep.equal([4, 5]);
  });

  it('replaces a document in place and keeps collections apart', () => {
    const cache = new DocumentCache(1_000);
    cache.set(1, 7, { id: 7, name: 'old' }, 100);
    cache.set(2, 7, { id: 7, name: 'other collection' }, 100);
    cache.set(1, 7, { id: 7, name: 'new' }, 120);
    expect(cache.usedBytes).to.equal(220);
    expect(cache.get(1, 7)?.['name']).to.equal('new');
    cache.deleteCollection(1);
    expect(cache.get(1, 7)).to.equal(undefined);
    expect(cache.get(2, 7)?.['name']).to.equal('other collection');
    expect(cache.usedBytes).to.equal(100);
  });

  it('keeps the newest documents through a long churn of writes and deletes', () => {
    const cache = new DocumentCache(1_000);
    for (let id = 1; id <= 100_000; id++) {
      cache.set(1, id, doc(id), 100);
      if (id % 3 === 0) cache.delete(1, id - 1);
    }
    // The ten newest documents not deleted (every id before a multiple of 3 was).
    const newest = [99_987, 99_988, 99_990, 99_991, 99_993, 99_994, 99_996, 99_997, 99_999, 100_000];
    expect(cache.size).to.equal(newest.length);
    expect(cache.usedBytes).to.equal(100 * newest.length);
    expect(newest.map((id) => cache.get(1, id)?.['id'])).to.deep.equal(newest);
    expect(cache.get(1, 99_998)).to.equal(undefined);
    expect(cache.get(1, 99_986)).to.equal(undefined);
  });

  it('treats a document set again after its deletion as the newest', () => {
    const cache = new DocumentCache(300);
    cache.set(1, 1, doc(1), 100);
    cache.set(1, 2, doc(2), 100);
    cache.delete(1, 1);
    cache.set(1, 3, doc(3), 100);
    cache.set(1, 1, doc(1), 100);
    cache.set(1, 4, doc(4), 100); // drops 2, the oldest held; 1 came back after 3
    expect(cache.get(1, 2)).to.equal(undefined);
    expect([3, 1, 4].map((id) => cache.get(1, id)?.['id'])).to.deep.equal([3, 1, 4]);
    cache.clear();
    cache.set(1, 5, doc(5), 300);
    expect(cache.usedBytes).to.equal(300);
    expect(cache.get(1, 5)).to.deep.equal({ id: 5 });
  });

  it('does not keep a document larger than its capacity', () => {
    const cache = new DocumentCache(100);
    cache.set(1, 1, doc(1), 50);
    cache.set(1, 1, doc(1), 500);
    expect(cache.get(1, 1)).to.equal(undefined);
    expect(cache.usedBytes).to.equal(0);
  });

  it('admits a document missed by a page read from its second miss on, per collection', () => {
    const cache = new DocumentCache(1_000);
    expect(cache.admitsOnRepeat(1, 7)).to.equal(false);
    expect(cache.admitsOnRepeat(2, 7), 'another collection').to.equal(false);
    expect(cache.admitsOnRepeat(1, 7)).to.equal(true);
    expect(cache.admitsOnRepeat(1, 7), 'missed again after an eviction: kept at once').to.equal(true);
    cache.admitsOnRepeat(1, 8);
    cache.clear();
    expect(cache.admitsOnRepeat(1, 8), 'forgotten by clear').to.equal(false);
  });

  it('starts its doorkeeper afresh once it remembers 65,536 misses', () => {
    const cache = new DocumentCache(1_000);
    for (let id = 1; id <= 65_536; id++) cache.admitsOnRepeat(1, id);
    expect(cache.admitsOnRepeat(1, 65_536)).to.equal(true);
    cache.admitsOnRepeat(1, 65_537); // 65,536 keys remembered: this miss starts afresh
    expect(cache.admitsOnRepeat(1, 1)).to.equal(false);
    expect(cache.admitsOnRepeat(1, 65_537)).to.equal(true);
  });
});
