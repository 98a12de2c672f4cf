// The read store contract: every adapter of src/infra/read-store/port.ts passes this suite.
import { expect } from 'chai';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Doc, Filter, FindOptions, ReadBudget, ReadCollection, ReadStore } from '../../src/ports/read-store.js';

export type OpenReadStore = () => Promise<{ store: ReadStore; dispose(): Promise<void> }>;

const stories: Doc[] = [
  { id: 1, project_id: 10, name: 'one', estimate: 1, label_ids: [5, 6], current_state: 'started' },
  { id: 2, project_id: 10, name: 'two', estimate: 3, label_ids: [], current_state: 'unstarted' },
  { id: 3, project_id: 20, name: 'three', estimate: 2, label_ids: [5], owner: { id: 7 } },
  { id: 4, project_id: 20, name: 'four', label_ids: [7], current_state: 'started' },
  { id: 5, project_id: 10, name: 'five', estimate: 3, current_state: 'accepted', accepted_at: 1_700_000_000_000 },
];

const ids = (docs: Doc[]) => docs.map((doc) => doc.id);

/** A budget of `allowance` units that asks for a turn of the event loop after every `turnEvery` units charged. */
function chargedBudget(allowance: number, turnEvery: number): ReadBudget & { charged: number } {
  let sinceTurn = 0;
  const budget = {
    charged: 0,
    afford(units: number) {
      if (budget.charged + units > allowance) throw new Error('too costly');
    },
    async charge(units: number) {
      budget.afford(units);
      budget.charged += units;
      sinceTurn += units;
      await budget.turnIfDue();
    },
    async turnIfDue() {
      if (sinceTurn < turnEvery) return;
      sinceTurn = 0;
      await nextTurn();
    },
  };
  return budget;
}

export function readStoreContract(name: string, open: OpenReadStore): void {
  describe(`read store contract: ${name}`, function () {
    this.timeout(20_000);
    let store: ReadStore;
    let dispose: () => Promise<void>;
    let coll: ReadCollection;

    beforeEach(async () => {
      ({ store, dispose } = await open());
      coll = store.collection('stories');
      await coll.ensureIndexes([{ field: 'project_id' }, { field: 'label_ids' }]);
      await coll.write(stories.map((doc) => ({ op: 'insert', doc: structuredClone(doc) })));
    });
    afterEach(async () => dispose());

    describe('find', () => {
      it('filters by equality, $in, ranges, $exists, $ne and array membership', async () => {
        expect(ids(await coll.find({ project_id: 10 }))).to.deep.equal([1, 2, 5]);
        expect(ids(await coll.find({ id: { $in: [4, 2, 99, 4] } }))).to.deep.equal([2, 4]);
        expect(ids(await coll.find({ estimate: { $gt: 1, $lt: 3 } }))).to.deep.equal([3]);
        expect(ids(await coll.find({ estimate: { $gte: 3 } }))).to.deep.equal([2, 5]);
        expect(ids(await coll.find({ estimate: { $exists: false } }))).to.deep.equal([4]);
        expect(ids(await coll.find({ accepted_at: { $exists: true } }))).to.deep.equal([5]);
        expect(ids(await coll.find({ current_state: { $ne: 'started' } }))).to.deep.equal([2, 3, 5]);
        expect(ids(await coll.find({ label_ids: 5 }))).to.deep.equal([1, 3]);
        expect(ids(await coll.find({ label_ids: { $in: [6, 7] } }))).to.deep.equal([1, 4]);
        expect(ids(await coll.find({ 'owner.id': 7 }))).to.deep.equal([3]);
        expect(ids(await coll.find({ $or: [{ project_id: 20 }, { estimate: 1 }] }))).to.deep.equal([1, 3, 4]);
        expect(ids(await coll.find({ project_id: 10, current_state: { $in: ['started', 'accepted'] } }))).to.deep.equal([1, 5]);
        expect(await coll.find({ project_id: 99 })).to.deep.equal([]);
      });

      it('answers long $in lists (many ids, array members, missing values) as short ones', async () => {
        const many = (values: unknown[]) => [...values, ...Array.from({ length: 20 }, (_, i) => 1000 + i)];
        expect(ids(await coll.find({ id: { $in: many([4, 2]) } }))).to.deep.equal([2, 4]);
        expect(ids(await coll.find({ estimate: { $in: many([3]) } }))).to.deep.equal([2, 5]);
        expect(ids(await coll.find({ label_ids: { $in: many([6, 7]) } }))).to.deep.equal([1, 4]);
        expect(ids(await coll.find({ estimate: { $in: many([null]) } }))).to.deep.equal([4]);
        expect(ids(await coll.find({ current_state: { $nin: many(['started']) } }))).to.deep.equal([2, 3, 5]);
      });

      it('treats a null equality as "null or missing"', async () => {
        expect(ids(await coll.find({ current_state: null }))).to.deep.equal([3]);
      });

      it('combines $and, $or and $nor, negating missing fields and empty arrays as MongoDB does', async () => {
        expect(ids(await coll.find({ $and: [{ project_id: 10 }, { $or: [{ estimate: 1 }, { current_state: 'accepted' }] }] }))).to.deep.equal([1, 5]);
        expect(ids(await coll.find({ $nor: [{ current_state: 'accepted', accepted_at: { $lt: 1_800_000_000_000 } }] }))).to.deep.equal([1, 2, 3, 4]);
        expect(ids(await coll.find({ project_id: 10, $nor: [{ label_ids: { $exists: true, $ne: [] } }] }))).to.deep.equal([2, 5]);
        expect(ids(await coll.find({ $and: [{ $or: [{ project_id: 10 }, { project_id: 20 }] }, { $nor: [{ estimate: { $gte: 3 } }] }] }))).to.deep.equal([1, 3, 4]);
        expect(ids(await coll.find({ $or: [{ label_ids: 7 }, { id: { $in: [2] } }] }))).to.deep.equal([2, 4]);
        expect(ids(await coll.find({ $or: [{ 'owner.id': 7 }, { estimate: { $exists: false } }] }))).to.deep.equal([3, 4]);
        expect(ids(await coll.find({ $or: [{ project_id: 10, estimate: 3 }, { label_ids: { $in: [5] } }], current_state: { $ne: 'accepted' } }))).to.deep.equal([1, 2, 3]);
      });

      it('tests arrays of scalars element by element: equality, $in, $nin, $ne, $ne [] and $elemMatch ranges', async () => {
        expect(ids(await coll.find({ label_ids: { $exists: true, $ne: [] } }))).to.deep.equal([1, 3, 4]);
        expect(ids(await coll.find({ label_ids: { $nin: [5] } }))).to.deep.equal([2, 4, 5]);
        expect(ids(await coll.find({ label_ids: { $ne: 5 } }))).to.deep.equal([2, 4, 5]);
        expect(ids(await coll.find({ label_ids: { $elemMatch: { $gte: 6, $lt: 8 } } }))).to.deep.equal([1, 4]);
        expect(ids(await coll.find({ label_ids: { $elemMatch: { $gt: 5, $lte: 6 } } }))).to.deep.equal([1]);
        expect(ids(await coll.find({ current_state: { $exists: false } }))).to.deep.equal([3]);
      });

      it('narrows $or branches and $elemMatch ranges of indexed fields without losing a match', async () => {
        await coll.ensureIndexes([{ field: 'words' }]);
        await coll.write([
          { op: 'insert', doc: { id: 6, project_id: 10, words: ['dash', 'dashboard', 'date'] } },
          { op: 'insert', doc: { id: 7, project_id: 10, words: ['data', '\u{1F600}smile', '\uFF21wide'] } },
          // objects at an indexed field: never keyed, always candidates, decided by the filter
          { op: 'insert', doc: { id: 8, project_id: { nested: 10 }, words: [{ text: 'dash' }], label_ids: [{ id: 5 }] } },
        ]);
        const prefix = (low: string, high: string) => ({ words: { $elemMatch: { $gte: low, $lt: high } } });
        expect(ids(await coll.find(prefix('dash', 'dasi')))).to.deep.equal([6]);
        expect(ids(await coll.find(prefix('da', 'db')))).to.deep.equal([6, 7]);
        expect(ids(await coll.find({ words: { $elemMatch: { $gt: 'date' } } }))).to.deep.equal([7]);
        expect(ids(await coll.find({ $or: [{ words: 'date' }, { label_ids: 7 }] }))).to.deep.equal([4, 6]);
        expect(ids(await coll.find({ project_id: 10, $or: [{ words: 'data' }, { label_ids: { $in: [5] } }] }))).to.deep.equal([1, 7]);
        expect(ids(await coll.find({ $or: [{ $and: [{ words: 'dash' }, { words: 'date' }] }, { id: { $in: [2] } }] }))).to.deep.equal([2, 6]);
        expect(ids(await coll.find({ $or: [{ words: 'dash' }, prefix('\u{1F600}', '\u{1F601}')] }))).to.deep.equal([6, 7]);
        expect(ids(await coll.find({ $or: [{ 'label_ids.id': 5 }, { words: { text: 'dash' } }] }))).to.deep.equal([8]);
        expect(ids(await coll.find({ $or: [{ project_id: { nested: 10 } }, { words: 'nothing' }] }))).to.deep.equal([8]);
      });

      it('answers an $in of more ids than SQL takes parameters', async () => {
        const many = Array.from({ length: 40_000 }, (_, i) => i + 1);
        expect(ids(await coll.find({ id: { $in: many } }))).to.deep.equal([1, 2, 3, 4, 5]);
        expect(ids(await coll.find({ project_id: 20, $or: [{ id: { $in: many } }, { label_ids: 99 }] }))).to.deep.equal([3, 4]);
        expect(await coll.count({ id: { $in: many }, project_id: 10 })).to.equal(3);
      });

      it('returns only id and the fields asked for, after sorting, skipping and limiting whole documents', async () => {
        expect(await coll.find({ project_id: 10 }, { sort: { estimate: -1 }, fields: ['estimate', 'current_state'] })).to.deep.equal([
          { id: 2, estimate: 3, current_state: 'unstarted' },
          { id: 5, estimate: 3, current_state: 'accepted' },
          { id: 1, estimate: 1, current_state: 'started' },
        ]);
        expect(await coll.find({ project_id: 20 }, { fields: ['estimate', 'nowhere'] })).to.deep.equal([{ id: 3, estimate: 2 }, { id: 4 }]);
        expect(await coll.find({}, { sort: { name: 1 }, skip: 1, limit: 2, fields: [] })).to.deep.equal([{ id: 4 }, { id: 1 }]);
        const [listed] = await coll.find({ id: 1 }, { fields: ['label_ids'] });
        expect(listed).to.deep.equal({ id: 1, label_ids: [5, 6] });
        (listed!.label_ids as number[]).push(99);
        expect(await coll.findOne({ id: 1 })).to.deep.equal(stories[0]);
      });

      it('matches $regex on strings only, with and without the i option', async () => {
        expect(ids(await coll.find({ name: { $regex: '^t', $options: 'i' } }))).to.deep.equal([2, 3]);
        expect(ids(await coll.find({ name: { $regex: 'O' } }))).to.deep.equal([]);
        expect(ids(await coll.find({ name: { $regex: 'O', $options: 'i' } }))).to.deep.equal([1, 2, 4]);
        expect(ids(await coll.find({ name: { $regex: '(?<![a-z])f(?![x])', $options: 'i' } }))).to.deep.equal([4, 5]);
        expect(ids(await coll.find({ estimate: { $regex: '1' } }))).to.deep.equal([]);
        expect(ids(await coll.find({ nowhere: { $regex: 'x' } }))).to.deep.equal([]);
        expect(ids(await coll.find({ project_id: 10, $nor: [{ name: { $regex: 'e$' } }] }))).to.deep.equal([2]);
      });

      it('returns whole documents without any store-internal field', async () => {
        expect(await coll.findOne({ id: 3 })).to.deep.equal(stories[2]);
        expect(await coll.findOne({ id: 99 })).to.equal(null);
      });

      it('sorts by one or several fields, ties broken by id, then skips and limits', async () => {
        expect(ids(await coll.find({}, { sort: { estimate: -1 } }))).to.deep.equal([2, 5, 3, 1, 4]);
        expect(ids(await coll.find({}, { sort: { estimate: 1 } }))).to.deep.equal([4, 1, 3, 2, 5]);
        expect(ids(await coll.find({}, { sort: { project_id: -1, name: 1 } }))).to.deep.equal([4, 3, 5, 1, 2]);
        expect(ids(await coll.find({}, { sort: { id: -1 }, skip: 1, limit: 2 }))).to.deep.equal([4, 3]);
        expect(ids(await coll.find({}, { sort: { id: -1, estimate: 1 } }))).to.deep.equal([5, 4, 3, 2, 1]);
        expect(ids(await coll.find({ project_id: 10 }, { skip: 1 }))).to.deep.equal([2, 5]);
        expect(ids(await coll.find({}, { limit: 2 }))).to.deep.equal([1, 2]);
      });

      it('pages a range of an indexed field sorted by it as a sort of every match would, arrays and other types included', async () => {
        const weeks = store.collection('weeks');
        await weeks.ensureIndexes([{ field: 'key' }]);
        const keyed = [
          { id: 1, key: '1:a:2801' }, { id: 2, key: '1:a:2799' }, { id: 3, key: '1:a:2799' }, { id: 4, key: '1:o' },
          { id: 5, key: '10:a:2700' }, { id: 6, key: 7 }, { id: 7 }, { id: 8, key: '1:a:2900' },
        ];
        await weeks.write(keyed.map((doc) => ({ op: 'insert' as const, doc })));
        const range = { key: { $gte: '1:a:1826', $lte: '1:a:2850' } };
        expect(ids(await weeks.find(range, { sort: { key: 1 }, limit: 1 }))).to.deep.equal([2]);
        expect(ids(await weeks.find(range, { sort: { key: 1 }, skip: 1, limit: 2 }))).to.deep.equal([3, 1]);
        expect(ids(await weeks.find(range, { sort: { key: -1 }, limit: 2 }))).to.deep.equal([1, 2]);
        expect(await weeks.find(range, { sort: { key: 1 }, limit: 1, fields: ['key'] })).to.deep.equal([{ id: 2, key: '1:a:2799' }]);
        expect(ids(await weeks.find({ key: { $gt: 5 } }, { sort: { key: 1 }, limit: 5 }))).to.deep.equal([6]);
        // An array sorts by its smallest element ascending, its largest descending, whatever the range.
        await weeks.write([{ op: 'insert', doc: { id: 9, key: ['0', '1:a:2800'] } }]);
        expect(ids(await weeks.find(range, { sort: { key: 1 }, limit: 2 }))).to.deep.equal([9, 2]);
        expect(ids(await weeks.find(range, { sort: { key: -1 }, limit: 1 }))).to.deep.equal([1]);
      });

      it('with a budget: answers as without one, charges what it reads, and refuses a read beyond it', async () => {
        const finds: Array<[Filter, FindOptions]> = [
          [{ project_id: 10 }, {}],
          [{ project_id: 10, current_state: { $in: ['started', 'accepted'] } }, { sort: { estimate: -1 } }],
          [{ $or: [{ project_id: 20 }, { estimate: 1 }] }, { fields: ['name'] }],
          [{ label_ids: 5 }, { fields: [] }],
          [{ project_id: 10 }, { sort: { name: 1 }, skip: 1, limit: 1 }],
          [{ id: 4 }, {}],
        ];
        for (const [filter, options] of finds) {
          const budget = chargedBudget(Infinity, Infinity);
          expect(await coll.find(filter, { ...options, budget }), JSON.stringify(filter)).to.deep.equal(await coll.find(filter, options));
          expect(budget.charged, JSON.stringify(filter)).to.be.greaterThan(0);
        }
        const refused = await coll.find({ project_id: 10 }, { budget: chargedBudget(1, Infinity) }).then(() => null, (error: unknown) => error);
        expect(refused).to.be.instanceOf(Error).with.property('message', 'too costly');
      });

      it('with a budget: gives the event loop a turn when the budget asks for one', async () => {
        const order: string[] = [];
        setImmediate(() => order.push('a turn of the event loop'));
        await coll.find({ project_id: 10 }, { budget: chargedBudget(Infinity, 1) }).then(() => order.push('found'));
        expect(order).to.deep.equal(['a turn of the event loop', 'found']);
      });

      it('findOne returns the lowest id among matches', async () => {
        expect((await coll.findOne({ project_id: 20 }))?.id).to.equal(3);
      });

      it('counts', async () => {
        expect(await coll.count({})).to.equal(5);
        expect(await coll.count({ project_id: 20 })).to.equal(2);
        expect(await coll.count({ label_ids: 5, project_id: 10 })).to.equal(1);
      });

      it('hands out copies: changing a returned or an inserted document does not change the store', async () => {
        const found = (await coll.findOne({ id: 1 }))!;
        (found.label_ids as number[]).push(99);
        found.name = 'changed';
        const [listed] = await coll.find({ id: 1 });
        (listed!.label_ids as number[]).length = 0;
        const inserted: Doc = { id: 9, tags: ['a'] };
        await coll.write([{ op: 'insert', doc: inserted }]);
        (inserted.tags as string[]).push('b');
        const update = { $set: { nested: { deep: [1] } } };
        await coll.write([{ op: 'update', filter: { id: 9 }, update }]);
        update.$set.nested.deep.push(2);
        expect(await coll.findOne({ id: 1 })).to.deep.equal(stories[0]);
        expect(await coll.findOne({ id: 9 })).to.deep.equal({ id: 9, tags: ['a'], nested: { deep: [1] } });
      });
    });

    describe('write', () => {
      it('inserts, and skips an insert whose id already exists', async () => {
        await coll.write([
          { op: 'insert', doc: { id: 6, project_id: 30 } },
          { op: 'insert', doc: { id: 1, project_id: 30, name: 'again' } },
        ]);
        expect(await coll.findOne({ id: 6 })).to.deep.equal({ id: 6, project_id: 30 });
        expect(await coll.findOne({ id: 1 })).to.deep.equal(stories[0]);
      });

      it('upserts: seeds a new document from the filter equalities, updates an existing one', async () => {
        await coll.write([
          { op: 'upsert', filter: { id: 7, project_id: 30 }, update: { $set: { name: 'new' }, $setOnInsert: { created: 1 } } },
          { op: 'upsert', filter: { id: 1 }, update: { $set: { name: 'uno' }, $setOnInsert: { created: 1 } } },
        ]);
        expect(await coll.findOne({ id: 7 })).to.deep.equal({ id: 7, project_id: 30, name: 'new', created: 1 });
        expect(await coll.findOne({ id: 1 })).to.deep.equal({ ...stories[0], name: 'uno' });
      });

      it('skips an upsert whose filter misses a document whose id exists', async () => {
        await coll.write([{ op: 'upsert', filter: { id: 1, estimate: { $lt: 0 } }, update: { $set: { name: 'x' } } }]);
        expect(await coll.findOne({ id: 1 })).to.deep.equal(stories[0]);
        expect(await coll.count({})).to.equal(5);
      });

      it('updates one or many with $set, $unset, $inc, $push and dotted paths', async () => {
        await coll.write([
          { op: 'update', filter: { id: 1 }, update: { $set: { name: 'uno' }, $unset: { current_state: '' }, $inc: { estimate: 2 } } },
          { op: 'update', filter: { project_id: 20 }, update: { $set: { flagged: true } }, many: true },
          { op: 'update', filter: { id: 2 }, update: { $push: { label_ids: 8 }, $set: { 'owner.id': 9 } } },
          { op: 'update', filter: { id: 99 }, update: { $set: { name: 'nobody' } } },
        ]);
        expect(await coll.findOne({ id: 1 })).to.deep.equal({ id: 1, project_id: 10, name: 'uno', estimate: 3, label_ids: [5, 6] });
        expect(ids(await coll.find({ flagged: true }))).to.deep.equal([3, 4]);
        expect(await coll.findOne({ id: 2 })).to.deep.include({ label_ids: [8], owner: { id: 9 } });
        expect(await coll.count({})).to.equal(5);
      });

      it('updates a single document when many is not set', async () => {
        await coll.write([{ op: 'update', filter: { project_id: 10 }, update: { $set: { touched: true } } }]);
        expect(await coll.count({ touched: true })).to.equal(1);
      });

      it('replaces, with and without upsert', async () => {
        await coll.write([
          { op: 'replace', filter: { id: 2 }, doc: { id: 2, name: 'replaced' } },
          { op: 'replace', filter: { id: 8 }, doc: { id: 8, name: 'ignored' } },
          { op: 'replace', filter: { id: 9 }, doc: { id: 9, name: 'upserted' }, upsert: true },
        ]);
        expect(await coll.findOne({ id: 2 })).to.deep.equal({ id: 2, name: 'replaced' });
        expect(await coll.findOne({ id: 8 })).to.equal(null);
        expect(await coll.findOne({ id: 9 })).to.deep.equal({ id: 9, name: 'upserted' });
      });

      it('deletes one or many', async () => {
        await coll.write([{ op: 'delete', filter: { project_id: 10 } }]);
        expect(await coll.count({ project_id: 10 })).to.equal(2);
        await coll.write([{ op: 'delete', filter: { project_id: 10 }, many: true }, { op: 'delete', filter: { id: 3 } }]);
        expect(ids(await coll.all())).to.deep.equal([4]);
      });

      it('applies a batch in order', async () => {
        await coll.write([
          { op: 'insert', doc: { id: 10, n: 1 } },
          { op: 'update', filter: { id: 10 }, update: { $inc: { n: 1 } } },
          { op: 'delete', filter: { id: 10 } },
          { op: 'insert', doc: { id: 10, n: 5 } },
          { op: 'update', filter: { id: 10 }, update: { $inc: { n: 1 } } },
        ]);
        expect(await coll.findOne({ id: 10 })).to.deep.equal({ id: 10, n: 6 });
      });
    });

    describe('indexes', () => {
      it('stay consistent when an update, a replace or a delete changes the indexed field', async () => {
        await coll.write([
          { op: 'update', filter: { id: 1 }, update: { $set: { project_id: 20 } } },
          { op: 'update', filter: { id: 3 }, update: { $unset: { project_id: '' } } },
          { op: 'replace', filter: { id: 4 }, doc: { id: 4, project_id: 10, label_ids: [5] } },
          { op: 'update', filter: { id: 2 }, update: { $push: { label_ids: 5 } } },
          { op: 'delete', filter: { id: 5 } },
        ]);
        expect(ids(await coll.find({ project_id: 10 }))).to.deep.equal([2, 4]);
        expect(ids(await coll.find({ project_id: 20 }))).to.deep.equal([1]);
        expect(ids(await coll.find({ project_id: null }))).to.deep.equal([3]);
        expect(ids(await coll.find({ label_ids: 5 }))).to.deep.equal([1, 2, 3, 4]);
        expect(ids(await coll.find({ project_id: { $in: [10, 20] } }))).to.deep.equal([1, 2, 4]);
      });

      it('stay consistent on a nested field when its parent object is replaced or renamed', async () => {
        await coll.ensureIndexes([{ field: 'owner.id' }]);
        await coll.write([
          { op: 'update', filter: { id: 3 }, update: { $set: { owner: { id: 8 } } } },
          { op: 'update', filter: { id: 4 }, update: { $set: { 'owner.id': 7 } } },
          { op: 'update', filter: { id: 1 }, update: { $set: { boss: { id: 7 } } } },
          { op: 'update', filter: { id: 1 }, update: { $rename: { boss: 'owner' } } },
        ]);
        expect(ids(await coll.find({ 'owner.id': 7 }))).to.deep.equal([1, 4]);
        expect(ids(await coll.find({ 'owner.id': 8 }))).to.deep.equal([3]);
      });

      it('can be declared after documents exist, and twice', async () => {
        await coll.ensureIndexes([{ field: 'current_state' }, { field: 'project_id' }]);
        expect(ids(await coll.find({ current_state: 'started' }))).to.deep.equal([1, 4]);
      });

      it('refuse a second document with the same value of a unique field', async () => {
        const people = store.collection('people');
        await people.ensureIndexes([{ field: 'email', unique: true }]);
        await people.write([{ op: 'insert', doc: { id: 1, email: 'a@example.com' } }]);
        let failure: unknown;
        try {
          await people.write([{ op: 'insert', doc: { id: 2, email: 'a@example.com' } }]);
        } catch (error) {
          failure = error;
        }
        expect(failure).to.be.instanceOf(Error);
        expect(ids(await people.all())).to.deep.equal([1]);
      });
    });

    describe('putDocuments', () => {
      it('adds and replaces whole documents by id, keeping the indexes, and creates a collection without documents', async () => {
        const replaced = { id: 1, project_id: 20, name: 'one again', label_ids: [7] };
        await store.putDocuments('stories', [replaced, { id: 9, project_id: 10, name: 'nine', label_ids: [5] }]);
        replaced.name = 'changed by the caller afterwards';
        expect(await coll.findOne({ id: 1 })).to.deep.equal({ id: 1, project_id: 20, name: 'one again', label_ids: [7] });
        expect(ids(await coll.find({ project_id: 10 }))).to.deep.equal([2, 5, 9]);
        expect(ids(await coll.find({ project_id: 20 }))).to.deep.equal([1, 3, 4]);
        expect(ids(await coll.find({ label_ids: 5 }))).to.deep.equal([3, 9]);
        expect(ids(await coll.find({ label_ids: 7 }))).to.deep.equal([1, 4]);

        await store.putDocuments('fresh', []);
        expect(await store.listCollections()).to.include('fresh');
        await store.putDocuments('fresh', [{ id: 3, n: 1 }, { id: 2, n: 2 }]);
        await store.putDocuments('fresh', [{ id: 3, n: 3 }]);
        expect(await store.collection('fresh').all()).to.deep.equal([{ id: 2, n: 2 }, { id: 3, n: 3 }]);
        await store.collection('fresh').ensureIndexes([{ field: 'n' }]);
        expect(ids(await store.collection('fresh').find({ n: 3 }))).to.deep.equal([3]);
      });
    });

    describe('collections', () => {
      it('lists the collections written to and drops them', async () => {
        await store.collection('labels').write([{ op: 'insert', doc: { id: 1, name: 'x' } }]);
        expect(await store.listCollections()).to.include.members(['labels', 'stories']);
        await store.dropCollection('labels');
        expect(await store.listCollections()).to.not.include('labels');
        expect(await store.collection('labels').all()).to.deep.equal([]);
        await store.dropCollection('never-existed');
      });

      it('all() returns every document in id order', async () => {
        await coll.write([{ op: 'insert', doc: { id: 0, name: 'zero' } }]);
        expect(ids(await coll.all())).to.deep.equal([0, 1, 2, 3, 4, 5]);
      });
    });
  });
}
