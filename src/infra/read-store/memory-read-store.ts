// The embedded read store: collections of documents in memory, keyed by id, filtered and updated with
// Mongo filter and update documents (mingo, with direct fast paths for the common shapes; see
// memory-filter.ts and memory-update.ts). Declared indexes are hash indexes; a filter with a top-level
// equality or `$in` on `id` or an indexed field takes its candidates from the index instead of scanning.
// Documents go in and come out as copies: nobody outside holds a reference to a stored document.
import type { Doc, Filter, FindOptions, IndexSpec, ReadCollection, ReadStore, Update, WriteOp } from './port.js';
import { copyJson } from './json-copy.js';
import { documentComparator } from './document-order.js';
import { compileFilter, equalityFields, keyConditions, type DocPredicate } from './memory-filter.js';
import { HashIndex } from './memory-index.js';
import { InvalidUpdateError, applyUpdate, assertOperatorUpdate } from './memory-update.js';

export class InvalidDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidDocumentError';
  }
}

function assertDocId(doc: Record<string, unknown>): asserts doc is Doc {
  if (!Number.isSafeInteger(doc.id)) throw new InvalidDocumentError(`a document needs an integer id, got ${JSON.stringify(doc.id)}`);
}

/** The documents of one collection and their indexes. */
class CollectionData {
  readonly docs = new Map<number, Doc>();
  readonly indexes = new Map<string, HashIndex>();
  /** How many stored documents filters have been evaluated against (like Mongo's docsExamined). */
  documentsExamined = 0;

  constructor(readonly name: string) {}

  /** Ids that may match: from `id` or an index when the filter allows, else every id. */
  private candidateIds(filter: Filter): Iterable<number> {
    let best: Iterable<number> | null = null;
    let bestSize = Infinity;
    for (const { field, values } of keyConditions(filter)) {
      if (field === 'id') {
        if (values.length < bestSize) {
          best = values.filter((value): value is number => typeof value === 'number');
          bestSize = values.length;
        }
        continue;
      }
      const index = this.indexes.get(field);
      if (!index) continue;
      const size = index.estimate(values);
      if (size < bestSize) {
        best = index.candidates(values);
        bestSize = size;
      }
    }
    return best ?? this.docs.keys();
  }

  /** Matching stored documents (not copies), in unspecified order; `first` stops at the first match. */
  match(filter: Filter, first = false): Doc[] {
    const predicate: DocPredicate = compileFilter(filter);
    const matched: Doc[] = [];
    for (const id of this.candidateIds(filter)) {
      const doc = this.docs.get(id);
      if (!doc) continue;
      this.documentsExamined++;
      if (predicate(doc)) {
        matched.push(doc);
        if (first) break;
      }
    }
    return matched;
  }

  /** The first match by id order. */
  matchFirst(filter: Filter): Doc | undefined {
    const keyed = keyConditions(filter).some(({ field }) => field === 'id');
    if (keyed) return this.match(filter, true)[0];
    let lowest: Doc | undefined;
    for (const doc of this.match(filter)) if (!lowest || doc.id < lowest.id) lowest = doc;
    return lowest;
  }

  insert(doc: Doc): void {
    for (const index of this.indexes.values()) index.checkUnique(doc);
    this.docs.set(doc.id, doc);
    for (const index of this.indexes.values()) index.add(doc);
  }

  /** Swaps `before` for `after` (the same id), keeping the indexes right; `after` may be `before` mutated. */
  replaceStored(beforeKeys: Map<HashIndex, Doc>, after: Doc): void {
    for (const index of this.indexes.values()) index.checkUnique(after);
    for (const [index, snapshot] of beforeKeys) index.remove(snapshot);
    this.docs.set(after.id, after);
    for (const index of beforeKeys.keys()) index.add(after);
  }

  remove(doc: Doc): void {
    this.docs.delete(doc.id);
    for (const index of this.indexes.values()) index.remove(doc);
  }

  /** Snapshot of the indexed fields of a doc about to change in place (only the fields indexes read). */
  indexSnapshot(doc: Doc): Map<HashIndex, Doc> {
    const snapshot = new Map<HashIndex, Doc>();
    for (const index of this.indexes.values()) {
      const field = index.field.split('.')[0]!;
      snapshot.set(index, { id: doc.id, [field]: copyJson(doc[field]) });
    }
    return snapshot;
  }
}

class MemoryCollection implements ReadCollection {
  constructor(
    readonly name: string,
    private readonly resolve: (create: boolean) => CollectionData | undefined,
  ) {}

  /** How many stored documents this collection's filters have examined so far (for index tests). */
  get documentsExamined(): number {
    return this.resolve(false)?.documentsExamined ?? 0;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    const data = this.resolve(false);
    if (!data) return [];
    const matched = data.match(filter).sort(documentComparator(options.sort));
    const start = Math.max(0, options.skip ?? 0);
    const end = options.limit && options.limit > 0 ? start + options.limit : matched.length;
    return matched.slice(start, end).map(copyJson);
  }

  async findOne(filter: Filter): Promise<Doc | null> {
    const found = this.resolve(false)?.matchFirst(filter);
    return found ? copyJson(found) : null;
  }

  async count(filter: Filter): Promise<number> {
    return this.resolve(false)?.match(filter).length ?? 0;
  }

  async all(): Promise<Doc[]> {
    const data = this.resolve(false);
    if (!data) return [];
    return [...data.docs.values()].sort((a, b) => a.id - b.id).map(copyJson);
  }

  async ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    const data = this.resolve(true)!;
    for (const { field, unique = false } of indexes) {
      if (field === 'id' || data.indexes.has(field)) continue;
      const index = new HashIndex(data.name, field, unique);
      for (const doc of data.docs.values()) {
        index.checkUnique(doc);
        index.add(doc);
      }
      data.indexes.set(field, index);
    }
  }

  async write(ops: WriteOp[]): Promise<void> {
    const data = this.resolve(true)!;
    for (const op of ops) applyOp(data, op);
  }
}

function applyOp(data: CollectionData, op: WriteOp): void {
  switch (op.op) {
    case 'insert':
      return insertDoc(data, copyJson(op.doc));
    case 'upsert':
      return updateDocs(data, op.filter, op.update, false, true);
    case 'update':
      return updateDocs(data, op.filter, op.update, op.many ?? false, false);
    case 'replace':
      return replaceDoc(data, op.filter, op.doc, op.upsert ?? false);
    case 'delete':
      for (const doc of op.many ? data.match(op.filter) : data.match(op.filter, true).slice(0, 1)) data.remove(doc);
      return;
    default: {
      const unknown: never = op;
      throw new InvalidDocumentError(`unknown write op ${JSON.stringify(unknown)}`);
    }
  }
}

/** An insert whose id already exists is skipped (the port's rule for replays). */
function insertDoc(data: CollectionData, doc: Record<string, unknown>): void {
  assertDocId(doc);
  if (data.docs.has(doc.id)) return;
  data.insert(doc);
}

function updateDocs(data: CollectionData, filter: Filter, update: Update, many: boolean, upsert: boolean): void {
  assertOperatorUpdate(update);
  const matched = many ? data.match(filter) : data.match(filter, true);
  if (matched.length === 0) {
    if (!upsert) return;
    const seeded = applyUpdate(copyJson(equalityFields(filter)) as Doc, update, true);
    return insertDoc(data, seeded);
  }
  // With a unique index the update may still be refused after it is applied: apply it to a copy then.
  const hasUnique = [...data.indexes.values()].some((index) => index.unique);
  for (const doc of matched) {
    const snapshot = data.indexSnapshot(doc);
    const next = applyUpdate(hasUnique ? copyJson(doc) : doc, update, false);
    data.replaceStored(snapshot, next);
  }
}

function replaceDoc(data: CollectionData, filter: Filter, replacement: Doc, upsert: boolean): void {
  const doc = copyJson(replacement) as Record<string, unknown>;
  assertDocId(doc);
  const [current] = data.match(filter, true);
  if (!current) {
    if (upsert) insertDoc(data, doc);
    return;
  }
  if (current.id !== doc.id) throw new InvalidUpdateError('a replacement cannot change the document id');
  const snapshot = data.indexSnapshot(current);
  data.replaceStored(snapshot, doc);
}

export interface MemoryReadStore extends ReadStore {
  collection(name: string): MemoryReadCollection;
}

export type MemoryReadCollection = ReadCollection & { readonly documentsExamined: number };

export function createMemoryReadStore(): MemoryReadStore {
  const collections = new Map<string, CollectionData>();
  const resolve = (name: string, create: boolean): CollectionData | undefined => {
    let data = collections.get(name);
    if (!data && create) collections.set(name, (data = new CollectionData(name)));
    return data;
  };
  return {
    collection: (name) => new MemoryCollection(name, (create) => resolve(name, create)),
    async dropCollection(name) {
      collections.delete(name);
    },
    async listCollections() {
      return [...collections.keys()].sort();
    },
    async close() {
      collections.clear();
    },
  };
}
