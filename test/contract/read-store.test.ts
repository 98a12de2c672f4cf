// Runs the read store contract against every adapter (SQLite with and without its document cache;
// MongoDB only when STORYLINE_MONGO_URL is set), plus what only the SQLite store promises (one
// transaction per batch, a file shared by processes, a bounded cache) and what only the memory store
// promises: indexed filters do not scan the collection.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { onThrowawayMongoDatabase } from './throwaway-mongo-database.js';
import type { Doc, Filter, FindOptions, IndexSpec, ReadCollection, ReadStore, WriteOp } from '../../src/ports/read-store.js';
import { createMemoryReadStore } from '../../src/infra/read-store/memory-read-store.js';
import { openMongoReadStore } from '../../src/infra/read-store/mongo-read-store.js';
import { openSqliteReadStore } from '../../src/infra/read-store/sqlite-read-store.js';
import { seededRandom } from '../support/seeded-random.js';
import { readStoreContract } from './read-store.contract.js';

readStoreContract('memory', async () => {
  const store = createMemoryReadStore();
  return { store, dispose: () => store.close() };
});

readStoreContract('SQLite', async () => {
  const store = openSqliteReadStore({ path: ':memory:' });
  return { store, dispose: () => store.close() };
});

readStoreContract('SQLite with a cache too small to hold a document', async () => {
  const store = openSqliteReadStore({ path: ':memory:', cacheBytes: 1 });
  return { store, dispose: () => store.close() };
});

readStoreContract('SQLite gathering index entries before its write lock (unsharedIndexBuilds)', async () => {
  const store = openSqliteReadStore({ path: ':memory:', unsharedIndexBuilds: true });
  return { store, dispose: () => store.close() };
});

readStoreContract('SQLite walking a sort index from the first candidate', async () => {
  const store = openSqliteReadStore({ path: ':memory:', sortWalkMinCandidates: 0 });
  return { store, dispose: () => store.close() };
});

const mongoUrl = process.env.STORYLINE_MONGO_URL;
if (mongoUrl) {
  readStoreContract('MongoDB', () => onThrowawayMongoDatabase(mongoUrl, 'storyline_contract', (dbName) => openMongoReadStore({ url: mongoUrl, dbName })));
} else {
  describe.skip('read store contract: MongoDB (skipped: set STORYLINE_MONGO_URL to run it)', () => {
    it('runs the contract against MongoDB');
  });
}

describe('memory read store: indexed filters', () => {
  const projects = 50;
  const perProject = 40;

  async function seeded() {
    const store = createMemoryReadStore();
    const stories = store.collection('stories');
    await stories.ensureIndexes([{ field: 'project_id' }]);
    const docs = Array.from({ length: projects * perProject }, (_, i) => ({
      id: i + 1,
      project_id: (i % projects) + 1,
      estimate: Math.floor(i / projects) % 4,
    }));
    await stories.write(docs.map((doc) => ({ op: 'insert' as const, doc })));
    return stories;
  }

  it('examines only the documents of the project a filter names', async () => {
    const stories = await seeded();
    const before = stories.documentsExamined;
    const found = await stories.find({ project_id: 7, estimate: 2 });
    expect(found).to.have.length(perProject / 4);
    expect(stories.documentsExamined - before).to.equal(perProject);
  });

  it('uses the index for $in, for a top-level $and, and looks ids up directly', async () => {
    const stories = await seeded();
    let before = stories.documentsExamined;
    expect(await stories.count({ project_id: { $in: [1, 2] } })).to.equal(2 * perProject);
    expect(stories.documentsExamined - before).to.equal(2 * perProject);
    before = stories.documentsExamined;
    expect(await stories.count({ $and: [{ project_id: 3 }, { estimate: { $gte: 0 } }] })).to.equal(perProject);
    expect(stories.documentsExamined - before).to.equal(perProject);
    before = stories.documentsExamined;
    expect((await stories.findOne({ id: 1234, project_id: 34 }))?.id).to.equal(1234);
    expect(stories.documentsExamined - before).to.equal(1);
  });

  it('narrows $or by the union of its branches when every branch is indexed, $and by the intersection', async () => {
    const stories = await seeded();
    let before = stories.documentsExamined;
    expect(await stories.count({ $or: [{ project_id: 1 }, { project_id: 2, estimate: 1 }] })).to.equal(perProject + perProject / 4);
    expect(stories.documentsExamined - before).to.equal(2 * perProject);
    before = stories.documentsExamined;
    expect(await stories.count({ $or: [{ project_id: 1 }, { estimate: 1 }] })).to.equal(perProject + (projects - 1) * (perProject / 4));
    expect(stories.documentsExamined - before).to.equal(projects * perProject); // one branch unindexed: a scan
    before = stories.documentsExamined;
    expect(await stories.count({ project_id: 3, $and: [{ id: { $in: [3, 53, 4] } }] })).to.equal(2);
    expect(stories.documentsExamined - before).to.equal(2); // id 4 is not in project 3: never examined
  });

  it('narrows an $elemMatch range of an indexed array to the documents holding a key within it', async () => {
    const store = createMemoryReadStore();
    const words = store.collection('words');
    await words.ensureIndexes([{ field: 'words' }]);
    const vocabulary = ['WEB', 'WEBHOOK', 'WEBS', 'WEC', 'WE', 'LOGIN'];
    await words.write(Array.from({ length: 60 }, (_, i) => ({ op: 'insert' as const, doc: { id: i + 1, words: [vocabulary[i % 6]!, 'LOGIN'] } })));
    const before = words.documentsExamined;
    const found = await words.find({ words: { $elemMatch: { $gte: 'WEB', $lt: 'WEC' } } });
    expect(found).to.have.length(30);
    expect(words.documentsExamined - before).to.equal(30);
    await words.write([{ op: 'update', filter: { id: 5 }, update: { $set: { words: ['WEBINAR'] } } }]);
    expect(await words.count({ words: { $elemMatch: { $gte: 'WEB', $lt: 'WEC' } } })).to.equal(31);
  });

  it('scans when no index applies (the counter is not a constant)', async () => {
    const stories = await seeded();
    const before = stories.documentsExamined;
    await stories.count({ estimate: 1 });
    expect(stories.documentsExamined - before).to.equal(projects * perProject);
  });

  it('keeps serving the index after writes move documents between keys', async () => {
    const stories = await seeded();
    await stories.write([{ op: 'update', filter: { project_id: 1 }, update: { $set: { project_id: 2 } }, many: true }]);
    const before = stories.documentsExamined;
    expect(await stories.count({ project_id: 2 })).to.equal(2 * perProject);
    expect(await stories.count({ project_id: 1 })).to.equal(0);
    expect(stories.documentsExamined - before).to.equal(2 * perProject);
  });
});

describe('SQLite read store on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-readstore-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('applies a batch over several collections as one transaction: a failing op leaves none of it', async () => {
    const store = openSqliteReadStore({ path: join(dir, 'readmodels.sqlite') });
    try {
      const people = store.collection('people');
      await people.ensureIndexes([{ field: 'email', unique: true }]);
      await people.write([{ op: 'insert', doc: { id: 1, email: 'a@example.com' } }]);
      let failure: unknown;
      try {
        await store.writeAtomically([
          { collection: 'stories', ops: [{ op: 'insert', doc: { id: 7, name: 'seven' } }] },
          { collection: 'people', ops: [{ op: 'update', filter: { id: 1 }, update: { $set: { name: 'A' } } }, { op: 'insert', doc: { id: 2, email: 'a@example.com' } }] },
          { collection: '_checkpoints', ops: [{ op: 'replace', filter: { id: 1 }, doc: { id: 1, position: 9 }, upsert: true }] },
        ]);
      } catch (error) {
        failure = error;
      }
      expect(failure).to.be.instanceOf(Error);
      expect(await store.collection('stories').all()).to.deep.equal([]);
      expect(await store.collection('_checkpoints').all()).to.deep.equal([]);
      expect(await people.all()).to.deep.equal([{ id: 1, email: 'a@example.com' }]);
    } finally {
      await store.close();
    }
  });

  it('keeps documents across a reopen, and a second process sees the first one\'s commits despite its cache', async () => {
    const path = join(dir, 'readmodels.sqlite');
    const first = openSqliteReadStore({ path });
    const second = openSqliteReadStore({ path, staleReadMs: 0 });
    const writer = openSqliteReadStore({ path });
    try {
      expect(first.opened).to.equal('created');
      await first.collection('stories').ensureIndexes([{ field: 'project_id' }]);
      await first.collection('stories').write([{ op: 'insert', doc: { id: 1, project_id: 5, name: 'one' } }]);
      expect(await second.collection('stories').findOne({ id: 1 })).to.deep.equal({ id: 1, project_id: 5, name: 'one' });
      await first.collection('stories').write([{ op: 'update', filter: { id: 1 }, update: { $set: { name: 'uno', project_id: 6 } } }]);
      expect(await second.collection('stories').findOne({ id: 1 })).to.deep.include({ name: 'uno' });
      expect(await second.collection('stories').count({ project_id: 6 })).to.equal(1);
      // A write always builds on the other process's latest commit, whatever its reads may have cached.
      expect(await writer.collection('stories').findOne({ id: 1 })).to.deep.include({ name: 'uno' });
      await first.collection('stories').write([{ op: 'update', filter: { id: 1 }, update: { $inc: { votes: 1 } } }]);
      await writer.collection('stories').write([{ op: 'update', filter: { id: 1 }, update: { $inc: { votes: 1 } } }]);
      expect(await second.collection('stories').findOne({ id: 1 })).to.deep.include({ votes: 2 });
      await first.dropCollection('stories');
      expect(await second.listCollections()).to.deep.equal([]);
    } finally {
      await first.close();
      await second.close();
      await writer.close();
    }
    const reopened = openSqliteReadStore({ path });
    await reopened.collection('labels').write([{ op: 'insert', doc: { id: 3, name: 'kept' } }]);
    await reopened.close();
    const again = openSqliteReadStore({ path });
    try {
      expect(again.opened).to.equal('opened');
      expect(await again.collection('labels').all()).to.deep.equal([{ id: 3, name: 'kept' }]);
    } finally {
      await again.close();
    }
  });

  it('has its WAL checkpointed into the file by its worker thread after commits', async () => {
    const path = join(dir, 'readmodels.sqlite');
    const store = openSqliteReadStore({ path, walCheckpointCheckMs: 10 });
    try {
      for (let id = 1; id <= 50; id++) await store.collection('stories').write([{ op: 'insert', doc: { id, name: `story ${id}` } }]);
      const before = store.walCheckpoints();
      const deadline = Date.now() + 10_000;
      while (store.walCheckpoints() === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(store.walCheckpoints(), 'a checkpoint after the last commit').to.be.greaterThan(before);
      // The file alone (without its WAL) now holds every commit.
      copyFileSync(path, join(dir, 'file-alone.sqlite'));
      const fileAlone = new Database(join(dir, 'file-alone.sqlite'), { readonly: true });
      try {
        expect(fileAlone.prepare('SELECT COUNT(*) FROM "d:stories"').pluck().get()).to.equal(50);
      } finally {
        fileAlone.close();
      }
    } finally {
      await store.close();
    }
  });

  it('empties a file of another format (derived data) and says it was created', async () => {
    const path = join(dir, 'readmodels.sqlite');
    const old = openSqliteReadStore({ path });
    await old.collection('labels').write([{ op: 'insert', doc: { id: 3, name: 'old layout' } }]);
    await old.close();
    const raw = new Database(path);
    raw.prepare("UPDATE _store_meta SET value = '0' WHERE key = 'format'").run();
    raw.close();
    const store = openSqliteReadStore({ path });
    try {
      expect(store.opened).to.equal('created');
      expect(await store.listCollections()).to.deep.equal([]);
    } finally {
      await store.close();
    }
  });

  it('keeps its parsed-document cache within the configured bytes', async () => {
    const store = openSqliteReadStore({ path: ':memory:', cacheBytes: 20_000 });
    try {
      const docs = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, text: 'x'.repeat(500) }));
      await store.collection('big').write(docs.map((doc) => ({ op: 'insert' as const, doc })));
      for (let i = 1; i <= 200; i++) await store.collection('big').findOne({ id: i });
      expect(store.cache.usedBytes).to.be.at.most(20_000).and.greaterThan(10_000);
      expect(await store.collection('big').count({})).to.equal(200);
    } finally {
      await store.close();
    }
  });

  for (const unsharedIndexBuilds of [false, true]) {
    it(`builds the index of documents already stored with the entries their writes would have made, whatever the value${unsharedIndexBuilds ? ', gathered before the write lock' : ''}`, async () => {
      const path = join(dir, 'readmodels.sqlite');
      const store = openSqliteReadStore({ path, unsharedIndexBuilds });
      const values: unknown[] = [
        undefined, null, 0, -3, 2.5, 1e21, 2 ** 60, '', 'text', '\u{1F600}astral', '\uFF21wide', 'lone \uD800 surrogate', 'back\\ud800slash',
        true, false, { nested: 1 }, [], [1, 1, 'a', null, true], [{ id: 5 }, 7], [[1], 2], ['\uDC00'],
      ];
      const docs = values.map((value, i) => (value === undefined ? { id: i + 1 } : { id: i + 1, field: value, 'dotted': { field: value } }));
      const indexes = [{ field: 'field' }, { field: 'dotted.field' }];
      const entries = (name: string) =>
        new Database(path, { readonly: true })
          .prepare(`SELECT field, hex(key) AS key, typeof(key) AS type, id FROM "k:${name}" ORDER BY field, id, hex(key)`)
          .all();
      try {
        const written = store.collection('written');
        await written.ensureIndexes(indexes);
        await written.write(docs.map((doc) => ({ op: 'insert' as const, doc })));
        const built = store.collection('built');
        await built.write(docs.map((doc) => ({ op: 'insert' as const, doc })));
        await built.ensureIndexes(indexes);
        expect(entries('built')).to.have.length.greaterThan(values.length).and.to.deep.equal(entries('written'));
        for (const value of [null, 1, 'a', true, '\uFF21wide', 'lone \uD800 surrogate', '\uDC00', 2 ** 60]) {
          const idsOf = (docs: Doc[]) => docs.map((doc) => doc.id);
          expect(idsOf(await built.find({ field: value }))).to.deep.equal(idsOf(await written.find({ field: value })));
        }
      } finally {
        await store.close();
      }
    });
  }

  describe('counts and pages in SQL when the index decides the filter', () => {
    /** 300 stories of projects 1-3 (ranks descending with the id), indexed by project, none cached. */
    async function storiesOfThreeProjects() {
      const sqlite = openSqliteReadStore({ path: ':memory:' });
      const stories = sqlite.collection('stories');
      await stories.ensureIndexes([{ field: 'project_id' }]);
      await stories.write(Array.from({ length: 300 }, (_, i) => ({ op: 'insert' as const, doc: { id: i + 1, project_id: 1 + (i % 3), rank: `r${2000 - i}` } })));
      sqlite.cache.clear();
      return { sqlite, stories };
    }

    // Values chosen to sit where SQL and the evaluator could disagree: booleans beside 1 and 0, objects
    // (unkeyed), arrays, null and missing fields, mixed types in the sort field.
    const projectValues: unknown[] = [7, 8, 'seven', 1, true, 0, false, null, undefined, [7, 9], [{ nested: 7 }, 7]];
    const rankValues: unknown[] = [3, 1.5, 'b', 'a', null, undefined, [2, 'c'], [], true, { r: 1 }];

    function seededDocs(count: number, keyed: (value: unknown) => boolean): Doc[] {
      const next = seededRandom(1010);
      const pick = (values: unknown[]) => values[Math.floor(next() * values.length)];
      return Array.from({ length: count }, (_, i) => {
        const doc: Doc = { id: i + 1 };
        const project = pick(projectValues.filter(keyed));
        const rank = pick(rankValues);
        if (project !== undefined) doc['project_id'] = project;
        if (rank !== undefined) doc['rank'] = rank;
        return doc;
      });
    }

    async function bothStores(docs: Doc[]) {
      const memory = createMemoryReadStore();
      const sqlite = openSqliteReadStore({ path: ':memory:' });
      for (const store of [memory, sqlite]) {
        await store.collection('stories').ensureIndexes([{ field: 'project_id' }]);
        await store.collection('stories').write(docs.map((doc) => ({ op: 'insert' as const, doc })));
      }
      return { memory, sqlite };
    }

    for (const [name, keyed] of [
      ['without objects in the indexed field', (value: unknown) => !Array.isArray(value) || value.every((item) => typeof item !== 'object')],
      ['with objects in the indexed field (the evaluator decides)', () => true],
    ] as const) {
      it(`finds, sorts, pages and counts as the memory store ${name}`, async () => {
        const { memory, sqlite } = await bothStores(seededDocs(300, keyed));
        try {
          for (const filter of [{}, { project_id: 7 }, { project_id: 'seven' }, { project_id: 1 }, { project_id: 0 }, { project_id: null }, { project_id: 9, id: 5 }]) {
            expect(await sqlite.collection('stories').count(filter), JSON.stringify(filter)).to.equal(await memory.collection('stories').count(filter));
            for (const options of [{}, { sort: { rank: 1 } }, { sort: { rank: -1 }, skip: 3, limit: 10 }, { sort: { id: -1 } }] as FindOptions[]) {
              const expected = await memory.collection('stories').find(filter, options);
              expect(await sqlite.collection('stories').find(filter, options), `${JSON.stringify(filter)} ${JSON.stringify(options)}`).to.deep.equal(expected);
            }
          }
        } finally {
          await memory.close();
          await sqlite.close();
        }
      });
    }

    it('narrows $or and $elemMatch ranges in SQL without losing what the memory store finds', async () => {
      const { memory, sqlite } = await bothStores(seededDocs(300, () => true));
      try {
        for (const filter of [
          { $or: [{ project_id: 7 }, { project_id: 'seven' }] },
          { $or: [{ project_id: null }, { id: { $in: [5, 6] } }] },
          { $or: [{ project_id: { $in: [1, 8] } }, { $and: [{ project_id: 9 }, { project_id: 7 }] }] },
          { project_id: { $elemMatch: { $gte: 7, $lt: 9 } } },
          { project_id: { $elemMatch: { $gt: 'r' } } },
          { $or: [{ project_id: { $elemMatch: { $lte: 0 } } }, { project_id: true }] },
          { $or: [{ project_id: 7 }, { rank: 'a' }] },
        ]) {
          for (const options of [{}, { sort: { rank: 1 }, limit: 7 }] as FindOptions[]) {
            const expected = await memory.collection('stories').find(filter, options);
            expect(await sqlite.collection('stories').find(filter, options), `${JSON.stringify(filter)} ${JSON.stringify(options)}`).to.deep.equal(expected);
          }
          expect(await sqlite.collection('stories').count(filter), JSON.stringify(filter)).to.equal(await memory.collection('stories').count(filter));
        }
      } finally {
        await memory.close();
        await sqlite.close();
      }
    });

    it('pages and counts an equality to 1 in SQL while no document holds a boolean there, and tells true from 1 once one does', async () => {
      const { sqlite, stories } = await storiesOfThreeProjects();
      try {
        const page = await stories.find({ project_id: 1 }, { sort: { rank: 1 }, limit: 10 });
        expect(page.map((doc) => doc.id)).to.deep.equal([298, 295, 292, 289, 286, 283, 280, 277, 274, 271]);
        expect(await stories.count({ project_id: 1 })).to.equal(100);
        expect(sqlite.cache.size, 'only the page parsed').to.equal(10);
        await stories.write([{ op: 'insert', doc: { id: 301, project_id: true, rank: 'a' } }, { op: 'insert', doc: { id: 302, project_id: [false, 7], rank: 'b' } }]);
        expect(await stories.count({ project_id: 1 })).to.equal(100);
        expect(await stories.count({ project_id: 0 })).to.equal(0);
        expect((await stories.find({ project_id: 1 }, { sort: { rank: 1 }, limit: 1 })).map((doc) => doc.id)).to.deep.equal([298]);
        expect((await stories.find({ project_id: true })).map((doc) => doc.id)).to.deep.equal([301]);
        const reopened = sqlite.collection('stories');
        expect(await reopened.count({ project_id: 7 })).to.equal(1);
      } finally {
        await sqlite.close();
      }
    });

    it('tells true from 1 in a file opened again, where the booleans are looked for among the documents keyed 0 or 1', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'storyline-readstore-booleans-'));
      const path = join(dir, 'readmodels.sqlite');
      try {
        const first = openSqliteReadStore({ path, bootId: null });
        await first.collection('stories').ensureIndexes([{ field: 'project_id' }]);
        await first.collection('stories').write([
          ...Array.from({ length: 30 }, (_, i) => ({ op: 'insert' as const, doc: { id: i + 1, project_id: 1 + (i % 3), rank: `r${String(i).padStart(2, '0')}` } })),
          { op: 'insert', doc: { id: 31, project_id: true, rank: 'a' } },
          { op: 'insert', doc: { id: 32, project_id: [false, 7], rank: 'b' } },
        ]);
        await first.close();
        const again = openSqliteReadStore({ path, bootId: null });
        try {
          const stories = again.collection('stories');
          expect(await stories.count({ project_id: 1 })).to.equal(10);
          expect(await stories.count({ project_id: 0 })).to.equal(0);
          expect((await stories.find({ project_id: 1 }, { sort: { rank: 1 }, limit: 2 })).map((doc) => doc.id)).to.deep.equal([1, 4]);
          expect((await stories.find({ project_id: true })).map((doc) => doc.id)).to.deep.equal([31]);
        } finally {
          await again.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('reads only the first documents of a range of an indexed field sorted by it and limited', async () => {
      const { memory, sqlite } = await bothStores([]);
      try {
        for (const store of [memory, sqlite]) {
          const weeks = store.collection('weeks');
          await weeks.ensureIndexes([{ field: 'key' }]);
          await weeks.write(Array.from({ length: 500 }, (_, i) => ({ op: 'insert' as const, doc: { id: i + 1, key: `w${String(1000 + ((i * 7) % 500))}` } })));
        }
        const options: FindOptions = { sort: { key: 1 }, limit: 2 };
        const range = { key: { $gte: 'w1100', $lt: 'w1400' } };
        const examined = memory.collection('weeks').documentsExamined;
        const page = await memory.collection('weeks').find(range, options);
        expect(page.map((doc) => doc['key'])).to.deep.equal(['w1100', 'w1101']);
        expect(memory.collection('weeks').documentsExamined - examined).to.equal(2);
        sqlite.cache.clear();
        expect(await sqlite.collection('weeks').find(range, options)).to.deep.equal(page);
        expect(sqlite.cache.size).to.equal(2);
      } finally {
        await memory.close();
        await sqlite.close();
      }
    });

    it('reads only the candidates of an $or of indexed branches', async () => {
      const { memory, sqlite } = await bothStores(seededDocs(300, (value) => typeof value === 'number' && value > 1));
      try {
        const filter = { $or: [{ project_id: 7 }, { id: { $in: [1, 2, 3] } }] };
        const candidates = new Set([...(await sqlite.collection('stories').find({ project_id: 7 })).map((doc) => doc.id), 1, 2, 3]);
        sqlite.cache.clear();
        expect(await sqlite.collection('stories').count(filter)).to.equal(candidates.size);
        expect(candidates.size).to.be.lessThan(200);
        expect(sqlite.cache.size).to.equal(candidates.size);
      } finally {
        await memory.close();
        await sqlite.close();
      }
    });

    it('caches the documents of a page of more than 16 only when a page reads them again', async () => {
      const { sqlite, stories } = await storiesOfThreeProjects();
      try {
        const page = await stories.find({ project_id: 1 }, { sort: { rank: 1 }, limit: 40 });
        expect(page.map((doc) => doc.id).slice(0, 3)).to.deep.equal([298, 295, 292]);
        expect(sqlite.cache.size, 'read once: not kept').to.equal(0);
        expect(await stories.find({ project_id: 1 }, { sort: { rank: 1 }, limit: 40 })).to.deep.equal(page);
        expect(sqlite.cache.size, 'read again: kept').to.equal(40);
        expect(await stories.find({ project_id: 1 }, { sort: { rank: 1 }, limit: 40 })).to.deep.equal(page);
        expect(await stories.findOne({ id: 1 })).to.deep.equal({ id: 1, project_id: 1, rank: 'r2000' });
        expect(sqlite.cache.size, 'a read by id keeps its document at once').to.equal(41);
        await stories.write([{ op: 'update', filter: { id: 2 }, update: { $set: { rank: 'a' } } }]);
        expect(sqlite.cache.size, 'a write keeps what it stored').to.equal(42);
      } finally {
        await sqlite.close();
      }
    });

    it('parses only the documents of the page it returns', async () => {
      const { memory, sqlite } = await bothStores(seededDocs(300, (value) => typeof value === 'number' && value > 1));
      try {
        const all = await sqlite.collection('stories').count({ project_id: 7 });
        sqlite.cache.clear();
        const page = await sqlite.collection('stories').find({ project_id: 7 }, { sort: { rank: 1 }, skip: 2, limit: 5 });
        expect(all).to.be.greaterThan(20);
        expect(page).to.have.length(5);
        expect(sqlite.cache.size).to.equal(5);
      } finally {
        await memory.close();
        await sqlite.close();
      }
    });
  });
});

describe('SQLite read store: a page sorted by an indexed field', () => {
  const projects = 6;

  /** Sort values of every kind the walk must either order as Mongo does or leave to the other plan. */
  function sortValue(random: () => number, kind: string, i: number): unknown {
    const text = () => `r${Math.floor(random() * 40).toString(36)}${random() < 0.3 ? 'Z' : 'a'}`;
    switch (kind) {
      case 'text':
        return text();
      case 'text and numbers, null and missing':
        return [text(), Math.floor(random() * 10), null, undefined, 2.5][i % 5];
      case 'numbers of both signs':
        return [Math.round((random() - 0.5) * 2000) / 8, -0, 0, -1e300, 1e-300][i % 5];
      case 'text with characters SQLite orders differently':
        return [text(), `x\u{1F600}${i % 3}`, `x\uFF10${i % 3}`, 'xé'][i % 4];
      case 'booleans':
        return [true, false, 0, 1, text()][i % 5];
      case 'arrays and objects':
        return [text(), [text(), text()], { at: i % 3 }][i % 3];
      default:
        throw new Error(kind);
    }
  }

  async function seeded(kind: string, seed: number, indexes: IndexSpec[]) {
    const random = seededRandom(seed);
    const walking = openSqliteReadStore({ path: ':memory:', sortWalkMinCandidates: 0 });
    const memory = createMemoryReadStore();
    const docs: Doc[] = [];
    for (let i = 1; i <= 300; i++) {
      const doc: Doc = { id: 1 + Math.floor(random() * 100_000), project_id: 1 + (i % projects), estimate: i % 4 };
      const rank = sortValue(random, kind, i);
      if (rank !== undefined) doc['rank'] = rank;
      if (!docs.some((other) => other.id === doc.id)) docs.push(doc);
    }
    for (const store of [walking, memory]) {
      const stories = store.collection('stories');
      await stories.ensureIndexes(indexes);
      await stories.write(docs.map((doc) => ({ op: 'insert' as const, doc: structuredClone(doc) })));
    }
    return { walking, memory, docs, dispose: async () => Promise.all([walking.close(), memory.close()]) };
  }

  const queries: Array<{ filter: Record<string, unknown>; options: FindOptions }> = [
    { filter: { project_id: 2 }, options: { sort: { rank: 1 }, limit: 10 } },
    { filter: { project_id: 3 }, options: { sort: { rank: 1 }, skip: 15, limit: 10 } },
    { filter: { project_id: 4, estimate: { $lt: 3 } }, options: { sort: { rank: 1 }, skip: 3, limit: 5 } },
    { filter: { project_id: { $in: [1, 5] } }, options: { sort: { rank: 1 }, limit: 200, fields: ['id', 'rank'] } },
    { filter: {}, options: { sort: { rank: 1 }, skip: 290, limit: 20 } },
    { filter: { project_id: 6 }, options: { sort: { rank: -1 }, limit: 10 } },
  ];

  // Walks expected per seed: the rank index walks every ascending query (5) when its keys allow; the
  // index of rank within project_id walks the queries on one project (3) whose stories it can order
  // (with arrays and objects, only project 4's ranks are all text).
  for (const [kind, walks, scopedWalks] of [
    ['text', 5, 3],
    ['text and numbers, null and missing', 5, 3],
    ['numbers of both signs', 5, 3],
    ['text with characters SQLite orders differently', 0, 0],
    ['booleans', 0, 0],
    ['arrays and objects', 0, 1],
  ] as const) {
    for (const [indexed, indexes, expectedWalks] of [
      ['the rank index', [{ field: 'project_id' }, { field: 'rank' }], walks],
      ['the index of rank within project_id', [{ field: 'project_id' }, { field: 'rank', within: 'project_id' }], scopedWalks],
    ] as const) {
      it(`answers as the memory store does for ${kind}, walking ${indexed} ${expectedWalks} times of 6`, async () => {
        for (const seed of [1, 2, 3]) {
          const { walking, memory, dispose } = await seeded(kind, seed, [...indexes]);
          try {
            for (const { filter, options } of queries) {
              const expected = await memory.collection('stories').find(filter, options);
              expect(await walking.collection('stories').find(filter, options), JSON.stringify({ seed, filter, options })).to.deep.equal(expected);
            }
            expect(walking.sortIndexWalks()).to.equal(expectedWalks);
          } finally {
            await dispose();
          }
        }
      });
    }
  }

  it('walks rank within project_id as the writes leave it: ranks changed, stories moved between projects or deleted', async () => {
    const scoped: IndexSpec[] = [{ field: 'project_id' }, { field: 'rank', within: 'project_id' }];
    const { walking, memory, docs, dispose } = await seeded('text', 4, scoped);
    try {
      const random = seededRandom(5);
      for (let round = 0; round < 5; round++) {
        const ops: WriteOp[] = docs.slice(round * 40, round * 40 + 40).map((doc, i): WriteOp => {
          switch (i % 4) {
            case 0:
              return { op: 'update', filter: { id: doc.id }, update: { $set: { rank: `q${Math.floor(random() * 50)}` } } };
            case 1:
              return { op: 'update', filter: { id: doc.id }, update: { $set: { project_id: 1 + (i % projects), rank: `m${i}` } } };
            case 2:
              return { op: 'update', filter: { id: doc.id }, update: { $unset: { rank: '' } } };
            default:
              return { op: 'delete', filter: { id: doc.id } };
          }
        });
        for (const store of [walking, memory]) await store.collection('stories').write(structuredClone(ops));
        for (const project of [1, 2, 3, 4, 5, 6]) {
          for (const options of [{ sort: { rank: 1 }, limit: 7 }, { sort: { rank: 1 }, skip: 20, limit: 30 }] satisfies FindOptions[]) {
            const expected = await memory.collection('stories').find({ project_id: project }, options);
            expect(await walking.collection('stories').find({ project_id: project }, options), JSON.stringify({ round, project, options })).to.deep.equal(expected);
          }
        }
      }
      expect(walking.sortIndexWalks()).to.equal(5 * 6 * 2);
    } finally {
      await dispose();
    }
  });

  it('reads only the documents of the page when it walks rank within project_id', async () => {
    const { walking, dispose } = await seeded('text', 6, [{ field: 'project_id' }, { field: 'rank', within: 'project_id' }]);
    try {
      walking.cache.clear();
      const page = await walking.collection('stories').find({ project_id: 3 }, { sort: { rank: 1 }, skip: 10, limit: 5 });
      expect(page).to.have.length(5);
      expect(await walking.collection('stories').count({ project_id: 3 })).to.be.greaterThan(40);
      // A page of more than 16 documents keeps them only on a second miss (DocumentCache): these 5 are kept.
      expect(walking.cache.size).to.equal(5);
    } finally {
      await dispose();
    }
  });

  it('leaves a walk that meets too many entries of other documents for the plan that reads every candidate', async () => {
    const store = openSqliteReadStore({ path: ':memory:', sortWalkMinCandidates: 0 });
    try {
      const stories = store.collection('stories');
      await stories.ensureIndexes([{ field: 'project_id' }, { field: 'rank' }]);
      const others = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, project_id: 1, rank: `a${String(i).padStart(3, '0')}` }));
      const late = [{ id: 500, project_id: 2, rank: 'z2' }, { id: 501, project_id: 2, rank: 'z1' }];
      await stories.write([...others, ...late].map((doc) => ({ op: 'insert' as const, doc })));
      expect(await stories.find({ project_id: 2 }, { sort: { rank: 1 }, limit: 10 })).to.deep.equal([late[1], late[0]]);
      expect(store.sortIndexWalks()).to.equal(0);
      expect((await stories.find({ project_id: 1 }, { sort: { rank: 1 }, skip: 20, limit: 3 })).map((doc) => doc.id)).to.deep.equal([21, 22, 23]);
      expect(store.sortIndexWalks()).to.equal(1);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite read store: a conjunction driven by its smallest lookup', () => {
  // One project of 3,000 documents (its project_id lookup holds more entries than a driving lookup may),
  // tags from rare to common, and id lists short and long: whichever part drives, the answer is the
  // memory store's.
  async function seeded(store: ReadStore): Promise<ReadCollection> {
    const docs = store.collection('docs');
    await docs.ensureIndexes([{ field: 'project_id' }, { field: 'tags' }, { field: 'state' }]);
    const random = seededRandom(20261128);
    const rows: Doc[] = Array.from({ length: 3200 }, (_, i) => ({
      id: i + 1,
      project_id: i < 3000 ? 1 : 2,
      tags: [`T${Math.floor(random() * random() * 400)}`, `T${Math.floor(random() * 400)}`],
      state: ['started', 'finished', 'accepted'][i % 3]!,
      rank: `r${Math.floor(random() * 1e6)}`,
      ...(i % 7 === 0 ? { note: { nested: true } } : {}),
    }));
    await docs.write(rows.map((doc) => ({ op: 'insert' as const, doc })));
    return docs;
  }

  it('answers as the memory store does, the small lookup driving or not', async () => {
    const sqlite = openSqliteReadStore({ path: ':memory:' });
    const memory = createMemoryReadStore();
    const [inSqlite, inMemory] = [await seeded(sqlite), await seeded(memory)];
    const few = Array.from({ length: 40 }, (_, i) => 1 + i * 73);
    const many = Array.from({ length: 2000 }, (_, i) => 1 + i);
    const filters: Filter[] = [
      { project_id: 1, tags: 'T399' },
      { project_id: 1, tags: 'T0' },
      { project_id: 1, tags: { $in: ['T3', 'T250', 'nothing'] } },
      { project_id: 1, tags: 'nothing' },
      { project_id: 2, tags: 'T1' },
      { project_id: 1, id: { $in: few }, tags: 'T0' },
      { project_id: 1, id: { $in: many }, tags: 'T1' },
      { project_id: 1, id: { $in: few }, state: 'accepted' },
      { project_id: 1, tags: 'T5', state: { $in: ['started', 'finished'] } },
      { project_id: 1, tags: 'T7', $or: [{ state: 'accepted' }, { tags: 'T8' }] },
      { project_id: 1, tags: 'T9', id: { $gte: 100, $lt: 2500 } },
      { project_id: 1, tags: { $elemMatch: { $gte: 'T39', $lt: 'T3:' } } },
      { project_id: { $in: [1, 2] }, tags: 'T11', note: { $exists: false } },
    ];
    const options: FindOptions[] = [{}, { fields: [] }, { sort: { rank: 1 }, limit: 5 }, { sort: { rank: -1 }, skip: 3, limit: 20 }];
    try {
      for (const filter of filters) {
        expect(await inSqlite.count(filter), JSON.stringify(filter)).to.equal(await inMemory.count(filter));
        for (const option of options) {
          expect(await inSqlite.find(filter, option), `${JSON.stringify(filter)} ${JSON.stringify(option)}`).to.deep.equal(await inMemory.find(filter, option));
        }
      }
    } finally {
      await sqlite.close();
      await memory.close();
    }
  });
});
