// The working set of an offline rebuild, against the same writes applied to a store directly: whatever
// it moves out and brings back, the documents it leaves in the read store are the same, for random
// batches of inserts, replaces, upserts, updates and deletes by id, and writes filtered by other fields
// (which bring a whole collection back).
import { expect } from 'chai';
import { RebuildWorkingSet } from '../../../src/infra/projector/rebuild-working-set.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import { openSqliteReadStore } from '../../../src/infra/read-store/sqlite-read-store.js';
import type { CollectionWrites, ReadStore, WriteOp } from '../../../src/ports/read-store.js';
import { seededRandom } from '../../support/seeded-random.js';

function randomBatches(seed: number, count: number, withOtherFilters: boolean, shape = { ids: 40, opsPerBatch: 6 }): CollectionWrites[][] {
  const random = seededRandom(seed);
  const id = () => 1 + Math.floor(random() * shape.ids);
  const tag = () => ['a', 'b', 'c'][Math.floor(random() * 3)]!;
  const op = (late: boolean): WriteOp => {
    const roll = random();
    if (roll < 0.25) return { op: 'insert', doc: { id: id(), n: 1, tag: tag() } };
    if (roll < 0.4) return { op: 'replace', filter: { id: id() }, doc: { id: 0, n: 10, tag: tag(), list: [1, 2] }, upsert: true };
    if (roll < 0.55) return { op: 'upsert', filter: { id: id() }, update: { $set: { tag: tag() }, $inc: { n: 1 } } };
    if (roll < 0.75) return { op: 'update', filter: { id: id() }, update: { $inc: { n: 2 }, $push: { list: 3 } } };
    if (roll < 0.9 || !(withOtherFilters && late)) return { op: 'delete', filter: { id: id() } };
    return { op: 'update', filter: { tag: tag() }, update: { $inc: { n: 100 } }, many: true };
  };
  // Writes filtered by other fields only in the second half: documents have moved out and back by then.
  return Array.from({ length: count }, (_, batch) =>
    ['one', 'two'].map((collection) => ({
      collection,
      ops: Array.from({ length: 1 + Math.floor(random() * shape.opsPerBatch) }, () => {
        const next = op(batch >= count / 2);
        if (next.op === 'replace') next.doc.id = next.filter.id as number; // a replacement keeps its id
        return next;
      }),
    })),
  );
}

async function contents(store: ReadStore): Promise<string> {
  return JSON.stringify({ one: await store.collection('one').all(), two: await store.collection('two').all() });
}

describe('rebuild working set', () => {
  const stores = [
    { label: 'the memory store', open: () => createMemoryReadStore() },
    { label: 'the SQLite store', open: () => openSqliteReadStore({ path: ':memory:', cacheBytes: 4096 }) },
  ];
  for (const { label, open } of stores) {
    for (const withOtherFilters of [false, true]) {
      it(`leaves in ${label} what the writes give applied directly${withOtherFilters ? ', with writes filtered by other fields' : ''}, moving documents out at every turn`, async () => {
        for (const seed of [1, 2, 3, 4, 5]) {
          const batches = randomBatches(seed, 120, withOtherFilters);
          const direct = createMemoryReadStore();
          for (const writes of batches) await direct.writeAtomically(writes);

          const target = open();
          const workingSet = new RebuildWorkingSet(target, { heapBudgetBytes: 1, heapUsed: () => 1e12 });
          for (const writes of batches) await workingSet.apply(writes);
          await workingSet.flush();
          expect(await contents(target), `seed ${seed}`).to.equal(await contents(direct));
          expect(workingSet.evicted, `seed ${seed}`).to.be.greaterThan(0);
          expect(workingSet.reloaded, `seed ${seed}`).to.be.greaterThan(0);
          await target.close();
        }
      });
    }
  }

  it('leaves the same documents over thousands of them moving out and back, with writes filtered by other fields', async () => {
    // ~16,000 documents come in over 400 batches of up to 40 ops per collection while at most a few
    // hundred stay in memory: thousands move out, and come back when written again.
    const batches = randomBatches(11, 400, true, { ids: 5_000, opsPerBatch: 40 });
    const direct = createMemoryReadStore();
    for (const writes of batches) await direct.writeAtomically(writes);
    const target = openSqliteReadStore({ path: ':memory:' });
    const workingSet = new RebuildWorkingSet(target, { heapBudgetBytes: 1, heapUsed: () => 1e12 });
    for (const writes of batches) await workingSet.apply(writes);
    await workingSet.flush();
    expect(await contents(target)).to.equal(await contents(direct));
    expect(workingSet.evicted).to.be.greaterThan(3_000);
    expect(workingSet.reloaded).to.be.greaterThan(100);
    await target.close();
  });

  it('writes out the documents of a collection written once per document as they age, below its budget too, and keeps one that rewrites', async () => {
    const batches: CollectionWrites[][] = Array.from({ length: 40 }, (_, batch) => [
      { collection: 'one', ops: Array.from({ length: 100 }, (_, i): WriteOp => ({ op: 'insert', doc: { id: 1 + batch * 100 + i, batch } })) },
      { collection: 'two', ops: [{ op: 'upsert', filter: { id: 1 + (batch % 5) }, update: { $inc: { n: 1 } } }] },
    ]);
    const direct = createMemoryReadStore();
    for (const writes of batches) await direct.writeAtomically(writes);
    const target = openSqliteReadStore({ path: ':memory:' });
    const workingSet = new RebuildWorkingSet(target, { heapBudgetBytes: 10, heapUsed: () => 5 });
    for (const writes of batches) await workingSet.apply(writes);
    const written = (await target.collection('one').all()).length;
    expect(written).to.equal(workingSet.streamed).and.to.be.greaterThan(2000);
    expect(await target.collection('two').all()).to.deep.equal([]);
    await workingSet.flush();
    expect(await contents(target)).to.equal(await contents(direct));
    expect(workingSet).to.include({ evicted: 0, reloaded: 0 });
    await target.close();
  });

  it('moves nothing out below its budget', async () => {
    const target = createMemoryReadStore();
    const workingSet = new RebuildWorkingSet(target, { heapBudgetBytes: 10, heapUsed: () => 5 });
    for (const writes of randomBatches(9, 50, false)) await workingSet.apply(writes);
    expect(await target.collection('one').all()).to.deep.equal([]);
    await workingSet.flush();
    expect(workingSet).to.include({ evicted: 0, reloaded: 0 });
    expect((await target.collection('one').all()).length).to.be.greaterThan(0);
  });
});
