// The read store port: collections of JSON documents with integer `id`s, queried and updated with Mongo
// filter and update documents. Adapters (infra/read-store/): sqlite-read-store.ts (embedded default, on
// disk), memory-read-store.ts (tests, evaluated by mingo), mongo-read-store.ts (MongoDB). Every adapter passes test/contract/read-store.contract.ts.

/**
 * A stored document as the store sees it. Readers see a collection's own document type
 * (projections/documents.ts): `ReadCollection<StoryReadDoc>` hands out stories.
 */
export type Doc = Record<string, unknown> & { id: number };
export type Filter = Record<string, unknown>;
export type Update = Record<string, unknown>;
export type SortSpec = Record<string, 1 | -1>;
/**
 * A filter turned into a test of one document, with the semantics the read stores give it (MongoDB's):
 * for a query that tests conditions on documents it read with `fields` (the search, by sets).
 */
export type FilterTest = (filter: Filter) => (doc: Doc) => boolean;

/** The top-level fields of a document type (what `fields` may name). */
export type FieldOf<D extends Doc> = keyof D & string;

export interface FindOptions<D extends Doc = Doc> {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
  /**
   * Only `id` and these top-level fields of each document found (a field the document lacks is left out),
   * as a MongoDB inclusion projection; `[]` returns ids alone. Sorting, skip and limit see whole documents.
   * For totals over many matches: the store copies what is asked, not every document.
   */
  fields?: readonly FieldOf<D>[];
  /**
   * The work this read may do for its request (a search): the store charges it for what it examines and
   * evaluates the candidates in slices, awaiting each charge (see ReadBudget). With a budget the store
   * evaluates every candidate (no walk of an index in sort order that stops at the page's end): for
   * reads that want all the matches.
   */
  budget?: ReadBudget;
}

/**
 * What one request may spend on reads, and where those reads let other work run. A store charges what
 * it examines (the embedded stores: index entries read, documents read and the conditions tested on
 * them, in the units of infra/read-store/charged-evaluation.ts), a slice of candidates at a time and
 * before evaluating them; a store that evaluates elsewhere (MongoDB) charges the documents it returns.
 * `charge` throws the budget's own error once the allowance would be exceeded, and otherwise resolves,
 * after a turn of the event loop when enough work has run since the last one. `afford` throws the same
 * error without charging: a store asks it for all its candidates at once, so a read too costly is
 * refused before any of its work. `turnIfDue` gives that turn without charging: an embedded store
 * calls it before a read's first statement, which it cannot slice, so that statement does not run in
 * one stretch with the work before it.
 */
export interface ReadBudget {
  afford(units: number): void;
  charge(units: number): Promise<void>;
  turnIfDue(): Promise<void>;
}

/**
 * One write of a batch; batches are applied in order (not atomically). `id` is unique and immutable in
 * every collection: an insert, an upsert or a replace-with-upsert that would create a second document
 * with an existing id is skipped, not an error (the projector's replay guard relies on this). Upserts
 * seed the new document with the filter's equality fields, as MongoDB does. `find` without a sort
 * returns documents in id order; every sort ends with `id` ascending as the tie-breaker.
 */
export type WriteOp =
  | { op: 'insert'; doc: Doc }
  | { op: 'upsert'; filter: Filter; update: Update }
  | { op: 'update'; filter: Filter; update: Update; many?: boolean }
  | { op: 'replace'; filter: Filter; doc: Doc; upsert?: boolean }
  | { op: 'delete'; filter: Filter; many?: boolean };

export interface IndexSpec {
  /** A field whose equality (or `$in`) in a filter narrows the candidates without a scan. */
  field: string;
  unique?: boolean;
  /**
   * Makes this an index of `field`'s order within each value of `within` (a number field; not unique):
   * a page of the documents equal to a number at `within`, sorted ascending by `field`, is read in that
   * order without reading every one of them (a project's stories page by rank). It narrows nothing by
   * `field` itself. A store that sorts in memory anyway may pass it over.
   */
  within?: string;
}

/** A collection of documents of type `D` (`Doc`: untyped, as the adapters store them). */
export interface ReadCollection<D extends Doc = Doc> {
  readonly name: string;
  /** With `fields`, each document holds `id` and those fields alone: read no other field of it. */
  find(filter: Filter, options?: FindOptions<D>): Promise<D[]>;
  findOne(filter: Filter): Promise<D | null>;
  count(filter: Filter): Promise<number>;
  write(ops: WriteOp[]): Promise<void>;
  ensureIndexes(indexes: IndexSpec[]): Promise<void>;
  /** Every document, in id order (for comparisons and snapshots). */
  all(): Promise<D[]>;
}

/** The writes of one batch to one collection. */
export interface CollectionWrites {
  collection: string;
  ops: WriteOp[];
}

export interface ReadStore {
  collection(name: string): ReadCollection;
  /**
   * Applies writes to several collections, in the order given, as one unit: the projector passes a
   * batch's documents and its checkpoint together, so that after a crash either both are stored or
   * neither (SQLite: one transaction) or the checkpoint, written last, never runs ahead of the
   * documents it covers (adapters without transactions; replays are no-ops behind the `_pos` guard).
   */
  writeAtomically(writes: readonly CollectionWrites[]): Promise<void>;
  /**
   * Stores whole documents in `collection` (created if missing) as one unit, each replacing the stored
   * document of its id or added: no filter, no update operator, no replay guard, the collection's
   * indexes kept. The bulk load of an offline rebuild, which folds a fresh generation in memory and
   * writes each final document once (infra/projector/rebuild-working-set.ts).
   */
  putDocuments(collection: string, docs: readonly Doc[]): Promise<void>;
  dropCollection(name: string): Promise<void>;
  listCollections(): Promise<string[]>;
  close(): Promise<void>;
}

/** The read side of a live collection: projections alone write read models. */
export type ReadOnlyCollection<D extends Doc = Doc> = Omit<ReadCollection<D>, 'write' | 'ensureIndexes'>;
