// The scale-out read store: the same port over MongoDB (official driver). Every collection gets a
// unique index on `id`; Mongo's own `_id` never leaves this file. Writes are one ordered bulkWrite per
// batch; an insert or upsert that would create a second document with an existing id is skipped, as
// the port requires (the projector's replay guard relies on it).
import { MongoBulkWriteError, MongoClient, MongoServerError } from 'mongodb';
import type { AnyBulkWriteOperation, Collection, Db, Document } from 'mongodb';
import type { Doc, Filter, FindOptions, IndexSpec, ReadCollection, ReadStore, WriteOp } from '../../ports/read-store.js';
import { withIdTieBreaker } from './document-order.js';

export interface MongoReadStoreOptions {
  url: string;
  dbName: string;
}

const ID_INDEX = 'id_1';
const NAMESPACE_NOT_FOUND = 26;
const DUPLICATE_KEY = 11000;
const WITHOUT_MONGO_ID = { projection: { _id: 0 } } as const;

function toBulkOperation(op: WriteOp): AnyBulkWriteOperation<Document> {
  switch (op.op) {
    case 'insert':
      return { insertOne: { document: { ...op.doc } } };
    case 'upsert':
      return { updateOne: { filter: op.filter, update: op.update, upsert: true } };
    case 'update':
      return op.many
        ? { updateMany: { filter: op.filter, update: op.update } }
        : { updateOne: { filter: op.filter, update: op.update } };
    case 'replace':
      return { replaceOne: { filter: op.filter, replacement: { ...op.doc }, upsert: op.upsert ?? false } };
    case 'delete':
      return op.many ? { deleteMany: { filter: op.filter } } : { deleteOne: { filter: op.filter } };
    default: {
      const unknown: never = op;
      throw new Error(`unknown write op ${JSON.stringify(unknown)}`);
    }
  }
}

/** The index in the batch of a write refused only because its id exists already; null otherwise. */
function duplicateIdIndex(error: unknown): number | null {
  if (!(error instanceof MongoBulkWriteError)) return null;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  if (writeErrors.length !== 1) return null;
  const [writeError] = writeErrors;
  if (writeError?.code !== DUPLICATE_KEY || !writeError.errmsg?.includes(`index: ${ID_INDEX} `)) return null;
  return writeError.index;
}

class MongoReadCollection implements ReadCollection {
  constructor(
    readonly name: string,
    private readonly collection: Collection<Document>,
    private readonly indexesReady: Map<string, Promise<unknown>>,
  ) {}

  private ensureIdIndex(): Promise<unknown> {
    let ready = this.indexesReady.get(this.name);
    if (!ready) {
      ready = this.collection.createIndex({ id: 1 }, { name: ID_INDEX, unique: true });
      ready.catch(() => this.indexesReady.delete(this.name));
      this.indexesReady.set(this.name, ready);
    }
    return ready;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    const projection = options.fields ? { _id: 0, id: 1, ...Object.fromEntries(options.fields.map((field) => [field, 1])) } : WITHOUT_MONGO_ID.projection;
    const cursor = this.collection.find(filter, { projection, sort: withIdTieBreaker(options.sort) });
    if (options.skip && options.skip > 0) cursor.skip(options.skip);
    if (options.limit && options.limit > 0) cursor.limit(options.limit);
    const found = (await cursor.toArray()) as unknown as Doc[];
    // MongoDB examines documents in its own process: this one pays for (and charges) what it receives.
    await options.budget?.charge(found.length);
    return found;
  }

  async findOne(filter: Filter): Promise<Doc | null> {
    return (await this.collection.findOne(filter, { ...WITHOUT_MONGO_ID, sort: { id: 1 } })) as unknown as Doc | null;
  }

  async count(filter: Filter): Promise<number> {
    return this.collection.countDocuments(filter);
  }

  async all(): Promise<Doc[]> {
    return this.find({});
  }

  async ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    await this.ensureIdIndex();
    const specs = indexes
      .filter(({ field }) => field !== 'id')
      .map(({ field, unique = false, within }) =>
        within === undefined ? { key: { [field]: 1 }, name: `${field}_1`, unique } : { key: { [within]: 1, [field]: 1 }, name: `${within}_1_${field}_1`, unique: false },
      );
    if (specs.length > 0) await this.collection.createIndexes(specs);
  }

  /** Whole documents replacing the stored ones by id (ReadStore.putDocuments). */
  async putDocuments(docs: readonly Doc[]): Promise<void> {
    await this.ensureIdIndex();
    if (docs.length === 0) return;
    await this.collection.bulkWrite(
      docs.map((doc) => ({ replaceOne: { filter: { id: doc.id }, replacement: { ...doc }, upsert: true } })),
      { ordered: false },
    );
  }

  async write(ops: WriteOp[]): Promise<void> {
    if (ops.length === 0) return;
    await this.ensureIdIndex();
    let remaining = ops.map(toBulkOperation);
    while (remaining.length > 0) {
      try {
        await this.collection.bulkWrite(remaining, { ordered: true });
        return;
      } catch (error) {
        const skipped = duplicateIdIndex(error);
        if (skipped === null) throw error;
        remaining = remaining.slice(skipped + 1);
      }
    }
  }
}

export async function openMongoReadStore(options: MongoReadStoreOptions): Promise<ReadStore> {
  const client = await MongoClient.connect(options.url);
  const db: Db = client.db(options.dbName);
  const indexesReady = new Map<string, Promise<unknown>>();
  const collection = (name: string) => new MongoReadCollection(name, db.collection(name), indexesReady);
  return {
    collection,
    // No transaction (it would need a replica set): the collections are written one after the other in
    // the order given, so the checkpoint the projector puts last never runs ahead of its documents, and
    // what a crash leaves half-written is replayed as no-ops behind the `_pos` guard.
    async writeAtomically(writes) {
      for (const { collection: name, ops } of writes) await collection(name).write(ops);
    },
    async putDocuments(name, docs) {
      await collection(name).putDocuments(docs);
    },
    async dropCollection(name) {
      indexesReady.delete(name); // a collection created again gets its id index again
      try {
        await db.dropCollection(name);
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND)) throw error;
      }
    },
    async listCollections() {
      const collections = await db.listCollections({}, { nameOnly: true }).toArray();
      return collections
        .map(({ name }) => name)
        .filter((name) => !name.startsWith('system.'))
        .sort();
    },
    async close() {
      await client.close();
    },
  };
}
