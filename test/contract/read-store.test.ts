// Runs the read store contract against every adapter (MongoDB only when STORYLINE_MONGO_URL is set),
// plus what only the memory store promises: indexed filters do not scan the collection.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { createMemoryReadStore } from '../../src/infra/read-store/memory-read-store.js';
import { openMongoReadStore } from '../../src/infra/read-store/mongo-read-store.js';
import { readStoreContract } from './read-store.contract.js';

readStoreContract('memory', async () => {
  const store = createMemoryReadStore();
  return { store, dispose: () => store.close() };
});

const mongoUrl = process.env.STORYLINE_MONGO_URL;
if (mongoUrl) {
  readStoreContract('MongoDB', async () => {
    const dbName = `storyline_contract_${randomUUID().replaceAll('-', '')}`;
    const store = await openMongoReadStore({ url: mongoUrl, dbName });
    return {
      store,
      async dispose() {
        await store.close();
        const client = await MongoClient.connect(mongoUrl);
        await client.db(dbName).dropDatabase();
        await client.close();
      },
    };
  });
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
