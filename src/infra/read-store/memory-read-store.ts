// The embedded read store: collections of documents in memory, keyed by id, filtered and updated with
// Mongo filter and update documents (mingo, with direct fast paths for the common shapes; see
// memory-filter.ts and memory-update.ts). Declared indexes are hash indexes; a filter whose equalities,
// `$in`s or `$elemMatch` ranges on `id` or indexed fields narrow it (through `$and` and `$or` too) takes
// its candidates from the indexes instead of scanning (memory-candidates.ts). A find with a budget
// evaluates its candidates in charged slices (charged-evaluation.ts).
// Documents go in and come out as copies: nobody outside holds a reference to a stored document.
import type { Doc, Filter, FindOptions, IndexSpec, ReadBudget, ReadCollection, ReadStore, Update, WriteOp } from '../../ports/read-store.js';
import { ENTRY_UNITS, candidateUnits, visitCharged } from './charged-evaluation.js';
import { copyFound, copyJson } from './json-copy.js';
import { singleSortField, sortDocuments } from './document-order.js';
import { candidatePlan } from './memory-candidates.js';
import { compileFilter, equalityFields, matchesFilter, narrowingOf, soleRangeOn, type DocPredicate } from './memory-filter.js';
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
  /** Top-level fields the indexes read (an update of `a` may change an index on `a.b`). */
  private readonly indexRoots = new Set<string>();
  /** How many stored documents filters have been evaluated against (like Mongo's docsExamined). */
  documentsExamined = 0;

  constructor(readonly name: string) {}

  /** Ids that may match: from `id` and the indexes when the filter allows, else every id. */
  private candidateIds(filter: Filter): Iterable<number> {
    const narrowing = narrowingOf(filter);
    const plan = narrowing === null ? null : candidatePlan(narrowing, this.indexes, this.docs.size);
    return plan === null || plan.size >= this.docs.size ? this.docs.keys() : plan.ids();
  }

  /** Matching stored documents (not copies), in unspecified order. */
  match(filter: Filter): Doc[] {
    const id = filter.id;
    if (typeof id === 'number') {
      const doc = this.matchOne(filter);
      return doc ? [doc] : [];
    }
    const predicate: DocPredicate = compileFilter(filter);
    const matched: Doc[] = [];
    for (const candidate of this.candidateIds(filter)) {
      const doc = this.docs.get(candidate);
      if (!doc) continue;
      this.documentsExamined++;
      if (predicate(doc)) matched.push(doc);
    }
    return matched;
  }

  /**
   * Matching stored documents (not copies), the candidates evaluated in slices charged to `budget`: as
   * index entries when the indexes decide the filter (the SQLite store reads no document then), else as
   * documents tested.
   */
  async matchCharged(filter: Filter, budget: ReadBudget): Promise<Doc[]> {
    await budget.turnIfDue();
    const candidates = typeof filter.id === 'number' ? [filter.id] : [...this.candidateIds(filter)];
    const predicate: DocPredicate = compileFilter(filter);
    const matched: Doc[] = [];
    await visitCharged(candidates, this.decidedByIndexes(filter) ? ENTRY_UNITS : candidateUnits(filter), budget, (id) => {
      const doc = this.docs.get(id); // the current version: writes may land between slices
      if (!doc) return;
      this.documentsExamined++;
      if (predicate(doc)) matched.push(doc);
    });
    return matched;
  }

  /** Whether the filter is nothing but equalities of `id` or indexed fields with strings, numbers or null. */
  private decidedByIndexes(filter: Filter): boolean {
    for (const field in filter) {
      const value = filter[field];
      if (field !== 'id' && !this.indexes.has(field)) return false;
      if (!(typeof value === 'string' || typeof value === 'number' || value === null)) return false;
    }
    return true;
  }

  /** One matching stored document (not a copy), the first candidate found. */
  matchOne(filter: Filter): Doc | undefined {
    const id = filter.id;
    if (typeof id === 'number') {
      // The projector's hot path: one document by id, no index planning, no allocation.
      const doc = this.docs.get(id);
      if (!doc) return undefined;
      this.documentsExamined++;
      return matchesFilter(doc, filter) ? doc : undefined;
    }
    const predicate: DocPredicate = compileFilter(filter);
    for (const candidate of this.candidateIds(filter)) {
      const doc = this.docs.get(candidate);
      if (!doc) continue;
      this.documentsExamined++;
      if (predicate(doc)) return doc;
    }
    return undefined;
  }

  /**
   * The page of a filter that is one range on an indexed field, sorted by that field, walked in index
   * order (only the documents up to the page's end are tested); null when that does not apply.
   */
  pageInKeyOrder(filter: Filter, options: FindOptions): Doc[] | null {
    const order = options.limit && options.limit > 0 ? singleSortField(options.sort) : null;
    const range = order && soleRangeOn(filter, order.field);
    const index = range ? this.indexes.get(range.field) : undefined;
    if (!order || !range || !index || index.multikey) return null;
    const predicate = compileFilter(filter);
    const end = Math.max(0, options.skip ?? 0) + options.limit!;
    const page: Doc[] = [];
    for (const id of index.idsInKeyOrder(range.low, range.high, order.direction)) {
      const doc = this.docs.get(id);
      if (!doc) continue;
      this.documentsExamined++;
      if (predicate(doc)) page.push(doc);
      if (page.length >= end) break;
    }
    return page.slice(Math.max(0, options.skip ?? 0));
  }

  /** The first match by id order. */
  matchFirst(filter: Filter): Doc | undefined {
    if (typeof filter.id === 'number') return this.matchOne(filter);
    let lowest: Doc | undefined;
    for (const doc of this.match(filter)) if (!lowest || doc.id < lowest.id) lowest = doc;
    return lowest;
  }

  insert(doc: Doc): void {
    for (const index of this.indexes.values()) index.checkUnique(doc);
    this.docs.set(doc.id, doc);
    for (const index of this.indexes.values()) index.add(doc);
  }

  /** Stores `after` in place of `before` (same id), moving their index entries. */
  replaceStored(before: Doc, after: Doc): void {
    for (const index of this.indexes.values()) index.checkUnique(after);
    for (const index of this.indexes.values()) index.remove(before);
    this.docs.set(after.id, after);
    for (const index of this.indexes.values()) index.add(after);
  }

  remove(doc: Doc): void {
    this.docs.delete(doc.id);
    for (const index of this.indexes.values()) index.remove(doc);
  }

  /** Whether an update may move a document between index keys (writes a field an index reads). */
  touchesIndexes(update: Update): boolean {
    if (this.indexes.size === 0) return false;
    for (const operator in update) {
      const operands = update[operator];
      if (typeof operands !== 'object' || operands === null) return true;
      for (const path in operands) {
        if (this.indexRoots.has(rootOf(path))) return true;
        const target = (operands as Record<string, unknown>)[path];
        if (operator === '$rename' && typeof target === 'string' && this.indexRoots.has(rootOf(target))) return true;
      }
    }
    return false;
  }

  addIndex(index: HashIndex): void {
    for (const doc of this.docs.values()) {
      index.checkUnique(doc);
      index.add(doc);
    }
    this.indexes.set(index.field, index);
    this.indexRoots.add(rootOf(index.field));
  }
}

function rootOf(path: string): string {
  const dot = path.indexOf('.');
  return dot < 0 ? path : path.slice(0, dot);
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
    const walked = options.budget ? null : data.pageInKeyOrder(filter, options);
    if (walked) return walked.map((doc) => copyFound(doc, options.fields));
    const matched = sortDocuments(options.budget ? await data.matchCharged(filter, options.budget) : data.match(filter), options.sort);
    const start = Math.max(0, options.skip ?? 0);
    const end = options.limit && options.limit > 0 ? start + options.limit : matched.length;
    return matched.slice(start, end).map((doc) => copyFound(doc, options.fields));
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
    for (const { field, unique = false, within } of indexes) {
      // An order within a scope: this store sorts its matches in memory whatever their number.
      if (within !== undefined || field === 'id' || data.indexes.has(field)) continue;
      data.addIndex(new HashIndex(data.name, field, unique));
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
      if (op.many) for (const doc of data.match(op.filter)) data.remove(doc);
      else {
        const doc = data.matchOne(op.filter);
        if (doc) data.remove(doc);
      }
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
  const one = many ? undefined : data.matchOne(filter);
  const matched = many ? data.match(filter) : one ? [one] : [];
  if (matched.length === 0) {
    if (!upsert) return;
    const seeded = applyUpdate(copyJson(equalityFields(filter)) as Doc, update, true);
    return insertDoc(data, seeded);
  }
  // An update that leaves indexed fields alone is applied in place; one that may change them is applied
  // to a copy, so the old index keys can be removed and a refused (unique) update changes nothing.
  const inPlace = !data.touchesIndexes(update);
  for (const doc of matched) {
    if (!inPlace) data.replaceStored(doc, applyUpdate(copyJson(doc), update, false));
    else {
      const next = applyUpdate(doc, update, false); // mingo's path returns a new object
      if (next !== doc) data.docs.set(doc.id, next);
    }
  }
}

function replaceDoc(data: CollectionData, filter: Filter, replacement: Doc, upsert: boolean): void {
  const doc = copyJson(replacement) as Record<string, unknown>;
  assertDocId(doc);
  const current = data.matchOne(filter);
  if (!current) {
    if (upsert) insertDoc(data, doc);
    return;
  }
  if (current.id !== doc.id) throw new InvalidUpdateError('a replacement cannot change the document id');
  data.replaceStored(current, doc);
}

/** Stores a whole document by id, replacing the stored one (putDocuments). */
function putDoc(data: CollectionData, replacement: Doc): void {
  const doc = copyJson(replacement) as Record<string, unknown>;
  assertDocId(doc);
  const current = data.docs.get(doc.id);
  if (current) data.replaceStored(current, doc);
  else data.insert(doc);
}

export interface MemoryReadStore extends ReadStore {
  collection(name: string): MemoryReadCollection;
  /**
   * Removes the documents of these ids from `collection` and returns them as stored, not copied (ids
   * it does not hold are passed over): how a rebuild's working set hands its documents on.
   */
  takeDocuments(collection: string, ids: Iterable<number>): Doc[];
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
    // In order, in one synchronous run: nothing else sees a half-applied batch, and a memory store does
    // not outlive a crash. A failing op (a unique key) leaves the ops before it applied, as write() does.
    async writeAtomically(writes) {
      for (const { collection, ops } of writes) {
        const data = resolve(collection, true)!;
        for (const op of ops) applyOp(data, op);
      }
    },
    async putDocuments(name, docs) {
      const data = resolve(name, true)!;
      for (const doc of docs) putDoc(data, doc);
    },
    takeDocuments(name, ids) {
      const data = collections.get(name);
      const taken: Doc[] = [];
      if (!data) return taken;
      for (const id of ids) {
        const doc = data.docs.get(id);
        if (!doc) continue;
        data.remove(doc);
        taken.push(doc);
      }
      return taken;
    },
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
