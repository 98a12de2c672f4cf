// The embedded read store on disk: every collection in a SQLite file of its own (`readmodels.sqlite`
// beside the log; derived data, deletable), with the same Mongo filter / update / sort semantics as the
// memory adapter, because it evaluates them with the same code (memory-filter.ts, memory-update.ts,
// document-order.ts).
//
// - Layout: per collection a table `d:<name>` (id INTEGER PRIMARY KEY, doc TEXT: the JSON document) and,
//   when it declares indexes, a table `k:<name>` of index entries (field number, key, id) whose primary
//   key is the SQLite index. An entry per indexed value rather than one column per field, because
//   indexed fields may hold arrays (`label_ids`, `subjects`: Mongo's multikey semantics); the keys are
//   the memory index's (memory-index.ts: arrays indexed per element, a missing field under null, an
//   object value "unkeyed" and always a candidate).
// - Queries: equality, `$in` and numeric ranges on `id` or on indexed fields select the candidate ids in
//   SQL, through `$and`, `$or` (a UNION of its branches, when each narrows) and `$elemMatch` ranges (a
//   range of index keys: a word's beginning in the text index); a conjunction is driven by its smallest
//   lookup when that one is small (the others probed per candidate); every candidate is then tested with
//   the memory evaluator, so SQL only has to narrow, never to agree with Mongo exactly. A find with a
//   budget (FindOptions) evaluates its candidates in charged slices (findCharged). Sorting, skip and
//   limit run on the matches with the memory comparator.
//   When SQL decides the filter exactly (equalities on `id` / indexed fields, see decidedBySql), a count
//   counts candidate ids and a page is ordered by the sort fields SQLite reads from the JSON, so only
//   the page's documents are parsed (a stories page does not parse every story of its project).
// - Writes: `writeAtomically` runs in ONE SQLite transaction (the projector commits a batch's documents
//   with its checkpoint). Inside it, writes by id are applied to parsed documents and stored once per
//   document at the end (a document touched by many events of a batch is serialised once); a filter
//   that is not by id first stores what is pending, then asks SQL.
// - A read-only store (`readOnly`) reads beside the file's one writer (the search worker): it never writes
//   and checks `data_version` before every read, so it sees each of the writer's commits.
// - Parsed hot documents are kept in a DocumentCache bounded in bytes. A commit by another process
//   (the CLI beside the server) changes `PRAGMA data_version`, which empties the cache and re-reads the
//   collection list before the next write, and before a read at most 50 ms later. A failed transaction empties it too (documents are
//   updated in place).
// - Durability: WAL written without syncs (unsynced-writes.ts): a process that dies loses nothing; a
//   file that was open when the system went down is deleted and built again from the log at the next
//   start. Commits never split a batch from its checkpoint. The WAL is checkpointed by a worker thread
//   (wal-checkpointer.ts), not inside the serving thread's commits.
import Database from 'better-sqlite3';
import type { Doc, Filter, FindOptions, IndexSpec, ReadBudget, ReadCollection, ReadStore, SortSpec, Update, WriteOp, CollectionWrites } from '../../ports/read-store.js';
import { DOCUMENT_UNITS, ENTRY_UNITS, candidateUnits, visitCharged } from './charged-evaluation.js';
import { copyFound, copyJson } from './json-copy.js';
import { documentComparator, singleSortField, sortDocuments } from './document-order.js';
import { DocumentCache, estimatedDocumentBytes } from './document-cache.js';
import { compileFilter, equalityFields, matchesFilter, narrowingOf, rangeConditions, soleRangeOn, type Narrowing, type RangeBound } from './memory-filter.js';
import { DuplicateKeyError, indexKeysOf, type HashIndex, type IndexKeys } from './memory-index.js';
import { candidatePlan } from './memory-candidates.js';
import { InvalidDocumentError } from './memory-read-store.js';
import { InvalidUpdateError, applyUpdate, assertOperatorUpdate } from './memory-update.js';
import { scopedKeysOf, scopeKeyRange } from './scoped-index-keys.js';
import { SAFETY_PAGES, WalCheckpointer } from './wal-checkpointer.js';
import { currentBootId, deleteDatabaseFiles, endUnsyncedWrites, startUnsyncedWrites, tornByRestart } from './unsynced-writes.js';

/** The layout of the file; a file of another format is deleted and rebuilt from the log. */
export const READ_STORE_FORMAT = 1;

export interface SqliteReadStoreOptions {
  /** File path, or ':memory:' (tests). */
  path: string;
  /** Budget of the parsed-document cache, in estimated heap bytes (default DEFAULT_READ_CACHE_BYTES). */
  cacheBytes?: number;
  /** How long a write waits for another process's write lock (default 10 s). */
  busyTimeoutMs?: number;
  /** How long reads may miss another process's commits (default 50 ms; writes never do). */
  staleReadMs?: number;
  /**
   * Candidates from which a page sorted by one indexed field walks that field's index in key order
   * instead of reading the sort field of every candidate (default SORT_WALK_MIN_CANDIDATES).
   */
  sortWalkMinCandidates?: number;
  /** How often the checkpoint worker of a file looks for commits (default: wal-checkpointer.ts). */
  walCheckpointCheckMs?: number;
  /**
   * The running system's boot id (default: the kernel's); a file is written without syncs only when
   * there is one (unsynced-writes.ts). Null: written with synchronous=NORMAL.
   */
  bootId?: string | null;
  /**
   * The caller promises that no other connection writes a collection while this store builds indexes on
   * it (the workers of a parallel rebuild, each folding collections of its own): an index build then
   * reads the documents and gathers their entries BEFORE it takes the file's write lock, and holds the
   * lock only to insert them, so other connections' writes do not wait seconds behind it.
   */
  unsharedIndexBuilds?: boolean;
  /**
   * A reader beside the file's one writer (another thread or process): the file must exist and is never
   * written (no format check, no unsynced-writes mark, no checkpoints; writes fail), and reads follow the
   * writer's commits (staleReadMs defaults to 0 then).
   */
  readOnly?: boolean;
}

export interface SqliteReadStore extends ReadStore {
  /** What the file was opened as: `created` (new or rebuilt because its format changed) or `opened`. */
  readonly opened: 'created' | 'opened';
  readonly cache: DocumentCache;
  /** Pages answered by walking a sort index (walkSortIndex): what tests and benchmarks check the plan by. */
  readonly sortIndexWalks: () => number;
  /** WAL checkpoints the worker has taken (wal-checkpointer.ts; always 0 in memory). */
  readonly walCheckpoints: () => number;
}

// Markers of the index entries: primary-key columns of a WITHOUT ROWID table cannot hold NULL.
const UNKEYED = Buffer.from([0]);
const NULL_KEY = Buffer.from([1]);
/**
 * Default budget of the parsed-document cache: 16 MiB, which with the response cache's 16 MiB and
 * SQLite's 8 MiB page cache keeps a server on the disk bench's log near its RSS target after the mixed
 * load, where 32 MiB caches did not (docs/benchmarks.md, "Figures behind constants in the source").
 */
export const DEFAULT_READ_CACHE_BYTES = 16 * 1024 * 1024;
/**
 * A read of more documents than this, each chosen before it is read (by SQL order or an index walk), is
 * a page read: the documents it misses are cached only on their second miss (DocumentCache). Scans that
 * evaluate a filter on every candidate keep caching what they read: they come back for the same ones.
 */
const PAGE_READ_DOCUMENTS = 16;
/** Prepared candidate queries kept per collection (filters of many shapes would otherwise pile up). */
const MAX_PREPARED_QUERIES = 64;
/** How long reads trust that no other process has committed to the file. */
const DEFAULT_STALE_READ_MS = 50;
/** Candidate id lists remembered per collection between its writes. */
const MAX_REMEMBERED_CANDIDATES = 256;

function quoted(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** A key as SQLite stores it: booleans as 0/1 (SQL only narrows; the evaluator decides), null as a marker. */
function sqlKey(key: unknown): unknown {
  if (key === null) return NULL_KEY;
  return typeof key === 'boolean' ? (key ? 1 : 0) : key;
}

/** A key as a value that Set and === compare by content (a scoped index's keys are byte strings). */
function comparableKey(key: unknown): unknown {
  return Buffer.isBuffer(key) ? `bytes:${key.toString('hex')}` : sqlKey(key);
}

function sameKeys(a: IndexKeys, b: IndexKeys): boolean {
  if (a.unkeyed !== b.unkeyed || a.keys.length !== b.keys.length) return false;
  for (let i = 0; i < a.keys.length; i++) if (a.keys[i] !== b.keys[i] && comparableKey(a.keys[i]) !== comparableKey(b.keys[i])) return false;
  return true;
}

/** The keys of `from` that `other` lacks, compared as SQLite stores them (true and 1 are one entry). */
function keysMissingFrom(from: IndexKeys, other: IndexKeys | null): IndexKeys {
  if (!other) return from;
  const held = new Set(other.keys.map(comparableKey));
  return { keys: from.keys.filter((key) => !held.has(comparableKey(key))), unkeyed: from.unkeyed && !other.unkeyed };
}

/** The entries of `doc` in `index`: its keys at the field, or for a scoped index (`within`) its ordered scope keys. */
function entryKeysOf(doc: Doc, index: IndexSpec): IndexKeys {
  return index.within === undefined ? indexKeysOf(doc, index.field) : scopedKeysOf(doc, index.within, index.field);
}

/** Whether two index specs are the same index. */
function sameIndex(a: IndexSpec, b: IndexSpec): boolean {
  return a.field === b.field && a.within === b.within;
}

function assertDocId(doc: Record<string, unknown>): asserts doc is Doc {
  if (!Number.isSafeInteger(doc.id)) throw new InvalidDocumentError(`a document needs an integer id, got ${JSON.stringify(doc.id)}`);
}

/** A document written in the current transaction and not yet stored. `doc` null: deleted. */
interface PendingDocument {
  doc: Doc | null;
  /** The index keys of the stored version (null: no stored version), to move its entries. */
  storedKeys: IndexKeys[] | null;
}

interface Statements {
  selectDoc: Database.Statement<[number], { doc: string }>;
  storeDoc: Database.Statement<[number, string]>;
  deleteDoc: Database.Statement<[number]>;
  insertKey: Database.Statement<[number, unknown, number]>;
  deleteKey: Database.Statement<[number, unknown, number]>;
  keyHolder: Database.Statement<[number, unknown, number], { id: number }>;
  anyUnkeyed: Database.Statement<[number, unknown], { id: number }>;
}

/** One collection of the file: its tables, indexes, prepared statements and pending writes. */
class StoredCollection {
  private statements: Statements | null = null;
  /** Candidate queries by their SQL (their shape depends on the filter's shape). */
  private readonly candidateQueries = new Map<string, Database.Statement>();
  /**
   * Candidate ids by query and parameters, until this collection's next write: the lookups every
   * request repeats (a person's memberships, a project's stories) cost a map lookup, not a query.
   */
  private readonly candidateResults = new Map<string, number[]>();
  /** Index entries of lookups (entriesUpTo) by field and keys, until this collection's next write. */
  private readonly lookupEntries = new Map<string, { entries: number; exact: boolean }>();
  readonly pending = new Map<number, PendingDocument>();
  /**
   * By index number: whether some document holds several keys (an array) or an object at that field.
   * Found once by SQL, then kept true by the writes that make it so (a removal never clears it).
   */
  private readonly multikey = new Map<number, boolean>();
  /**
   * By index number: whether some document holds `true` or `false` there (keyed as 1 and 0, so SQL
   * cannot tell them from those numbers). Found once by SQL, then kept true by the writes that make it so.
   */
  private readonly booleans = new Map<number, boolean>();
  /**
   * By index number: whether some key is text SQLite orders unlike JavaScript (a character from U+D800
   * up: UTF-8 bytes and UTF-16 code units disagree there). Found once by SQL, then kept true by writes.
   */
  private readonly misorderedText = new Map<number, boolean>();

  constructor(
    readonly serial: number,
    readonly name: string,
    readonly indexes: IndexSpec[],
    private readonly db: Database.Database,
    private readonly cache: DocumentCache,
  ) {}

  get docsTable(): string {
    return quoted(`d:${this.name}`);
  }

  get keysTable(): string {
    return quoted(`k:${this.name}`);
  }

  get sql(): Statements {
    return (this.statements ??= {
      selectDoc: this.db.prepare(`SELECT doc FROM ${this.docsTable} WHERE id = ?`),
      storeDoc: this.db.prepare(`INSERT INTO ${this.docsTable} (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`),
      deleteDoc: this.db.prepare(`DELETE FROM ${this.docsTable} WHERE id = ?`),
      insertKey: this.db.prepare(`INSERT OR IGNORE INTO ${this.keysTable} (field, key, id) VALUES (?, ?, ?)`),
      deleteKey: this.db.prepare(`DELETE FROM ${this.keysTable} WHERE field = ? AND key = ? AND id = ?`),
      keyHolder: this.db.prepare(`SELECT id FROM ${this.keysTable} WHERE field = ? AND key = ? AND id <> ? LIMIT 1`),
      anyUnkeyed: this.db.prepare(`SELECT id FROM ${this.keysTable} WHERE field = ? AND key = ? LIMIT 1`),
    });
  }

  createTables(): void {
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${this.docsTable} (id INTEGER PRIMARY KEY, doc TEXT NOT NULL)`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${this.keysTable} (field INTEGER NOT NULL, key, id INTEGER NOT NULL, PRIMARY KEY (field, key, id)) WITHOUT ROWID`);
  }

  keysOf(doc: Doc): IndexKeys[] {
    return this.indexes.map((index) => entryKeysOf(doc, index));
  }

  /** The number of the index that narrows by `field` (not a scoped one), or -1. */
  indexOn(field: string): number {
    return this.indexes.findIndex((index) => index.field === field && index.within === undefined);
  }

  /**
   * The ids of the documents whose `within` is `scope`, in the order of `field` (ties by id), read lazily
   * from the scoped index `number`; null when a document of that scope holds a value the index cannot
   * order (scoped-index-keys.ts).
   */
  idsInScope(number: number, scope: number): Iterable<number> | null {
    const { low, high, unordered } = scopeKeyRange(scope);
    if (this.sql.anyUnkeyed.get(number, unordered)) return null;
    return this.prepared(`SELECT id FROM ${this.keysTable} WHERE field = ? AND key >= ? AND key < ? ORDER BY key ASC, id ASC`)
      .pluck()
      .iterate(number, low, high) as Iterable<number>;
  }

  /**
   * The current version of a document by id: pending, cached or stored (the cache's own object). A
   * document read from the file is cached, or with `byPage` only on its second miss (DocumentCache).
   */
  load(id: number, byPage = false): Doc | undefined {
    const pending = this.pending.get(id);
    if (pending) return pending.doc ?? undefined;
    const cached = this.cache.get(this.serial, id);
    if (cached) return cached;
    const row = this.sql.selectDoc.get(id);
    if (!row) return undefined;
    const doc = JSON.parse(row.doc) as Doc;
    if (!byPage || this.cache.admitsOnRepeat(this.serial, id)) this.cache.set(this.serial, id, doc, estimatedDocumentBytes(row.doc.length));
    return doc;
  }

  /** Marks a document about to change: the keys of its stored version are taken before the change. */
  touch(doc: Doc): void {
    if (this.pending.has(doc.id)) return;
    this.pending.set(doc.id, { doc, storedKeys: this.indexes.length > 0 ? this.keysOf(doc) : null });
  }

  /** Records `doc` as the pending version of its id (touch() first when a stored version exists). */
  put(doc: Doc): void {
    const pending = this.pending.get(doc.id);
    if (pending) pending.doc = doc;
    else this.pending.set(doc.id, { doc, storedKeys: null });
  }

  remove(doc: Doc): void {
    this.touch(doc);
    this.pending.get(doc.id)!.doc = null;
  }

  /** Stores every pending document and moves its index entries (old entries first, then new ones). */
  flush(): void {
    if (this.pending.size === 0) return;
    this.candidateResults.clear();
    this.lookupEntries.clear();
    const sql = this.sql;
    const entries = [...this.pending];
    this.pending.clear();
    const newKeys = new Map<number, IndexKeys[]>();
    for (const [id, { doc, storedKeys }] of entries) {
      const keys = doc && this.indexes.length > 0 ? this.keysOf(doc) : null;
      if (keys) newKeys.set(id, keys);
      if (!storedKeys) continue;
      // Only the entries that changed move: a multikey field (words, subjects, labels) rarely changes whole.
      for (let field = 0; field < storedKeys.length; field++) {
        if (keys && sameKeys(storedKeys[field]!, keys[field]!)) continue;
        this.deleteEntries(field, keysMissingFrom(storedKeys[field]!, keys?.[field] ?? null), id);
      }
    }
    for (const [id, { doc, storedKeys }] of entries) {
      if (!doc) {
        sql.deleteDoc.run(id);
        this.cache.delete(this.serial, id);
        continue;
      }
      const json = JSON.stringify(doc);
      sql.storeDoc.run(id, json);
      this.cache.set(this.serial, id, doc, estimatedDocumentBytes(json.length));
      const keys = newKeys.get(id);
      if (!keys) continue;
      for (let field = 0; field < keys.length; field++) {
        if (storedKeys && sameKeys(storedKeys[field]!, keys[field]!)) continue;
        this.insertEntries(field, keysMissingFrom(keys[field]!, storedKeys?.[field] ?? null), id);
      }
    }
  }

  /**
   * Stores whole documents of a collection WITHOUT indexes by id, one statement each (putDocuments'
   * bulk load: nothing parsed, nothing cached; the cached version of an id, if any, is dropped).
   */
  storeWhole(docs: readonly Doc[]): void {
    this.candidateResults.clear();
    this.lookupEntries.clear();
    const store = this.sql.storeDoc;
    for (const doc of docs) {
      assertDocId(doc);
      store.run(doc.id, JSON.stringify(doc));
      this.cache.delete(this.serial, doc.id);
    }
  }

  insertEntries(field: number, { keys, unkeyed }: IndexKeys, id: number): void {
    const { unique, field: path } = this.indexes[field]!;
    if (keys.length > 1 || unkeyed) this.multikey.set(field, true);
    for (const key of keys) {
      if (typeof key === 'boolean') this.booleans.set(field, true);
      else if (typeof key === 'string' && ORDERED_UNLIKE_SQLITE.test(key)) this.misorderedText.set(field, true);
      const stored = sqlKey(key);
      if (unique && key !== null && this.sql.keyHolder.get(field, stored, id)) throw new DuplicateKeyError(this.name, path, key);
      this.sql.insertKey.run(field, stored, id);
    }
    if (unkeyed) this.sql.insertKey.run(field, UNKEYED, id);
  }

  /** Whether index `field` may hold a document under several keys or unkeyed (see `multikey`). */
  isMultikey(field: number): boolean {
    let known = this.multikey.get(field);
    if (known === undefined) {
      const sql =
        `SELECT EXISTS (SELECT 1 FROM ${this.keysTable} WHERE field = ? AND key = ?) ` +
        `OR EXISTS (SELECT id FROM ${this.keysTable} WHERE field = ? GROUP BY id HAVING count(*) > 1)`;
      known = this.db.prepare(sql).pluck().get(field, UNKEYED, field) === 1;
      this.multikey.set(field, known);
    }
    return known;
  }

  /** Whether index `field` may hold a boolean key (see `booleans`). */
  holdsBooleans(field: number): boolean {
    let known = this.booleans.get(field);
    if (known === undefined) {
      const path = this.indexes[field]!.field;
      // Booleans are keyed as 0 and 1: only the documents keyed so can hold one (the stories of project 1,
      // not every story of the collection, which a cold disk reads page by page on the serving thread).
      const sql =
        `SELECT EXISTS (SELECT 1 FROM ${this.docsTable} AS d, json_each(d.doc, ?) AS e ` +
        `WHERE d.id IN (SELECT id FROM ${this.keysTable} WHERE field = ? AND key IN (0, 1)) AND e.type IN ('true', 'false'))`;
      known = !PLAIN_FIELD.test(path) || this.db.prepare(sql).pluck().get(`$.${path}`, field) === 1;
      this.booleans.set(field, known);
    }
    return known;
  }

  /** Whether index `field` may hold text SQLite orders unlike JavaScript (see `misorderedText`). */
  holdsMisorderedText(field: number): boolean {
    let known = this.misorderedText.get(field);
    if (known === undefined) {
      const sql = `SELECT EXISTS (SELECT 1 FROM ${this.keysTable} WHERE field = ? AND typeof(key) = 'text' AND key GLOB ?)`;
      known = this.db.prepare(sql).pluck().get(field, MISORDERED_TEXT_GLOB) === 1;
      this.misorderedText.set(field, known);
    }
    return known;
  }

  /**
   * Whether index `field` read in SQLite's key order (ties by id) lists the documents in the order the
   * memory comparator sorts them by that field: one key per document (missing and null under null, as
   * Mongo sorts them first), no booleans (keyed as 0 and 1), no text SQLite orders differently.
   */
  keysInDocumentOrder(field: number): boolean {
    return !this.isMultikey(field) && !this.holdsBooleans(field) && !this.holdsMisorderedText(field);
  }

  /**
   * Every id of index `field` in ascending sort order, ties by id, read lazily: first the documents
   * keyed under null (missing or null sorts first, but its key is a blob, which SQLite orders last), then
   * numbers and text in key order. For an index keysInDocumentOrder accepts (no unkeyed entries).
   */
  *idsInSortOrder(field: number): Generator<number> {
    yield* this.prepared(`SELECT id FROM ${this.keysTable} WHERE field = ? AND key = ? ORDER BY id ASC`).pluck().iterate(field, NULL_KEY) as Iterable<number>;
    yield* this.prepared(`SELECT id FROM ${this.keysTable} WHERE field = ? AND key < ? ORDER BY key ASC, id ASC`).pluck().iterate(field, UNKEYED) as Iterable<number>;
  }

  /**
   * The ids keyed within `range` at index `field`, in key order (ties by id ascending), read lazily from
   * the SQLite index: a caller that stops after a few reads only those.
   */
  *idsInKeyOrder(field: number, { low, high }: { low: RangeBound | null; high: RangeBound | null }, direction: 1 | -1): Generator<number> {
    const bounds = [low, high].filter((bound): bound is RangeBound => bound !== null);
    const conditions = [
      ...(low ? [`key ${low.inclusive ? '>=' : '>'} ?`] : []),
      ...(high ? [`key ${high.inclusive ? '<=' : '<'} ?`] : []),
      typeof bounds[0]!.value === 'number' ? "typeof(key) IN ('integer', 'real')" : "typeof(key) = 'text'",
    ];
    const sql = `SELECT id FROM ${this.keysTable} WHERE field = ? AND ${conditions.join(' AND ')} ORDER BY key ${direction === 1 ? 'ASC' : 'DESC'}, id ASC`;
    yield* this.prepared(sql).pluck().iterate(field, ...bounds.map((bound) => bound.value)) as Iterable<number>;
  }

  private deleteEntries(field: number, { keys, unkeyed }: IndexKeys, id: number): void {
    for (const key of keys) this.sql.deleteKey.run(field, sqlKey(key), id);
    if (unkeyed) this.sql.deleteKey.run(field, UNKEYED, id);
  }

  /**
   * The WHERE clause (and its parameters) narrowing the documents table (as `doc`) to the candidates of
   * `filter`. Each part of the top-level conjunction is a clause of its own. When one of them is an index
   * lookup (or a list of ids) holding fewer entries than DRIVING_LOOKUP_ENTRIES while another lookup holds
   * more, the small one drives: the others are probed per candidate (EXISTS on the index entry, or `+id`
   * which SQLite does not drive with), so the cost follows the small lookup, not the large one (a rare
   * word of one project among 50,000 stories: a tenth of a millisecond instead of reading the project's
   * 50,000 entries).
   */
  private narrowing(filter: Filter): { where: string; params: unknown[]; soleLookup: SqlSelect | null } {
    const tree = narrowingOf(filter);
    const parts = (tree === null ? [] : tree.kind === 'all' ? tree.parts : [tree])
      .map((part) => ({ part, admitted: this.idsAdmitted(part) }))
      .filter((entry): entry is { part: Narrowing; admitted: SqlSelect } => entry.admitted !== null);
    const driver = this.drivingLookup(parts.map(({ part }) => part));
    const clauses: string[] = [];
    const params: unknown[] = [];
    let lookup: SqlSelect | null = null;
    for (const { part, admitted } of parts) {
      const probe = driver !== null && part !== driver ? this.probeOf(part) : null;
      if (probe) {
        clauses.push(probe.sql);
        params.push(...probe.params);
        continue;
      }
      clauses.push(`${driver !== null && part !== driver ? '+' : ''}id IN (${admitted.sql})`);
      params.push(...admitted.params);
      if ((part.kind === 'keys' || part.kind === 'range') && part.field !== 'id') lookup = admitted;
    }
    for (const { field, lower, upper } of rangeConditions(filter)) {
      const bounds: string[] = [];
      const values: number[] = [];
      // With a driving lookup, `+id` keeps SQLite from driving with a range of ids instead.
      const column = field !== 'id' ? 'key' : driver !== null ? '+id' : 'id';
      if (lower) {
        bounds.push(`${column} ${lower.inclusive ? '>=' : '>'} ?`);
        values.push(lower.value);
      }
      if (upper) {
        bounds.push(`${column} ${upper.inclusive ? '<=' : '<'} ?`);
        values.push(upper.value);
      }
      if (field === 'id') {
        clauses.push(bounds.join(' AND '));
        params.push(...values);
        continue;
      }
      const number = this.indexOn(field);
      if (number < 0) continue;
      clauses.push(
        `${driver !== null ? '+' : ''}id IN (SELECT id FROM ${this.keysTable} WHERE field = ? AND key = ? UNION ALL ` +
          `SELECT id FROM ${this.keysTable} WHERE field = ? AND ${bounds.join(' AND ')} AND typeof(key) IN ('integer', 'real'))`,
      );
      params.push(number, UNKEYED, number, ...values);
    }
    // One lookup of index entries and nothing else: the entries are of stored documents, so the
    // candidates need no confirmation from the documents table (50,000 stories of a project: 25 ms, not 90).
    const soleLookup = clauses.length === 1 ? lookup : null;
    return { where: clauses.length > 0 ? ` WHERE ${clauses.join(' AND ')}` : '', params, soleLookup };
  }

  /**
   * The part of a conjunction to drive the candidates with: the lookup of fewest entries (a list of ids
   * counts its length, an index lookup or range its entries counted up to DRIVING_LOOKUP_ENTRIES), when it holds
   * fewer than that and some other index lookup, which the others become probes of, holds more. Null:
   * SQLite plans the clauses itself.
   */
  private drivingLookup(parts: readonly Narrowing[]): Narrowing | null {
    const probed = parts.filter((part): part is Extract<Narrowing, { kind: 'keys' }> => this.probeOf(part) !== null);
    if (parts.length < 2 || probed.length === 0) return null;
    let driver: Narrowing | null = null;
    let fewest = DRIVING_LOOKUP_ENTRIES;
    for (const part of parts) {
      const entries = part.kind === 'keys' && part.field === 'id' ? part.values.length : this.entriesUpTo(part, fewest);
      if (entries < fewest) {
        driver = part;
        fewest = entries;
      }
    }
    if (driver === null || !probed.some((part) => part !== driver && this.entriesUpTo(part, DRIVING_LOOKUP_ENTRIES) >= DRIVING_LOOKUP_ENTRIES)) return null;
    return driver;
  }

  /**
   * The index entries of a lookup (keys or a range of keys of an indexed field) counted up to `cap`
   * (remembered until the collection's next write); `cap` for any other part, which cannot drive.
   */
  private entriesUpTo(part: Narrowing, cap: number): number {
    const counting = this.entriesCounting(part);
    if (counting === null) return cap;
    const known = `${counting.sql}\u0000${counting.params.map(resultKeyPart).join('\u0000')}`;
    const counted = this.lookupEntries.get(known);
    if (counted !== undefined && (counted.exact || counted.entries >= cap)) return Math.min(counted.entries, cap);
    const entries = this.prepared(`SELECT count(*) FROM (${counting.sql} LIMIT ?)`).pluck().get(...counting.params, cap) as number;
    if (this.lookupEntries.size >= MAX_REMEMBERED_CANDIDATES) this.lookupEntries.clear();
    this.lookupEntries.set(known, { entries, exact: entries < cap });
    return entries;
  }

  /** A SELECT of one row per index entry of a keys or range lookup on an indexed field, or null. */
  private entriesCounting(part: Narrowing): SqlSelect | null {
    if (part.kind !== 'keys' && part.kind !== 'range') return null;
    const number = this.indexOn(part.field);
    if (number < 0 || part.field === 'id') return null;
    if (part.kind === 'keys') {
      if (part.values.length > MAX_SQL_KEYS) return null;
      const keys = [UNKEYED, ...part.values.map(sqlKey)];
      return { sql: `SELECT 1 FROM ${this.keysTable} WHERE field = ? AND key IN (${keys.map(() => '?').join(',')})`, params: [number, ...keys] };
    }
    const bounds = [part.low, part.high].filter((bound): bound is RangeBound => bound !== null);
    if (bounds.length === 0 || !bounds.every(ordersAlikeInSqlite)) return null;
    const conditions = [
      ...(part.low ? [`key ${part.low.inclusive ? '>=' : '>'} ?`] : []),
      ...(part.high ? [`key ${part.high.inclusive ? '<=' : '<'} ?`] : []),
    ];
    // The range's own entries (its unkeyed documents, objects, are rare and left out of the count).
    return { sql: `SELECT 1 FROM ${this.keysTable} WHERE field = ? AND ${conditions.join(' AND ')}`, params: [number, ...bounds.map((bound) => bound.value)] };
  }

  /** The per-candidate test of a keys lookup on an indexed field (the document `doc` holds an entry under one of the keys), or null. */
  private probeOf(part: Narrowing): SqlSelect | null {
    if (part.kind !== 'keys' || part.field === 'id' || part.values.length > MAX_SQL_KEYS) return null;
    const number = this.indexOn(part.field);
    if (number < 0) return null;
    const keys = [UNKEYED, ...part.values.map(sqlKey)];
    return {
      sql: `EXISTS (SELECT 1 FROM ${this.keysTable} AS probe WHERE probe.field = ? AND probe.key IN (${keys.map(() => '?').join(',')}) AND probe.id = doc.id)`,
      params: [number, ...keys],
    };
  }

  /**
   * A SELECT of the ids a narrowing admits (a superset of its matches: documents holding an object at
   * the field are always admitted), or null when SQL cannot narrow by it. `$or` branches are a UNION,
   * conjunctions inside them an INTERSECT, an `$elemMatch` range a range of index keys.
   */
  private idsAdmitted(narrowing: Narrowing): SqlSelect | null {
    switch (narrowing.kind) {
      case 'keys': {
        if (narrowing.field === 'id') {
          // One JSON parameter, whatever the number of ids (SQLite caps the parameters of a statement).
          return { sql: 'SELECT value AS id FROM json_each(?)', params: [JSON.stringify(narrowing.values.filter((value) => typeof value === 'number'))] };
        }
        const number = this.indexOn(narrowing.field);
        if (number < 0 || narrowing.values.length > MAX_SQL_KEYS) return null;
        const keys = [UNKEYED, ...narrowing.values.map(sqlKey)];
        return { sql: `SELECT id FROM ${this.keysTable} WHERE field = ? AND key IN (${keys.map(() => '?').join(',')})`, params: [number, ...keys] };
      }
      case 'range': {
        const number = this.indexOn(narrowing.field);
        const { low, high } = narrowing;
        const bounds = [low, high].filter((bound): bound is RangeBound => bound !== null);
        if (number < 0 || bounds.length === 0 || !bounds.every(ordersAlikeInSqlite)) return null;
        const conditions = [
          ...(low ? [`key ${low.inclusive ? '>=' : '>'} ?`] : []),
          ...(high ? [`key ${high.inclusive ? '<=' : '<'} ?`] : []),
          typeof bounds[0]!.value === 'number' ? "typeof(key) IN ('integer', 'real')" : "typeof(key) = 'text'",
        ];
        return {
          sql: `SELECT id FROM ${this.keysTable} WHERE field = ? AND key = ? UNION SELECT id FROM ${this.keysTable} WHERE field = ? AND ${conditions.join(' AND ')}`,
          params: [number, UNKEYED, number, ...bounds.map((bound) => bound.value)],
        };
      }
      case 'all': {
        const parts = narrowing.parts.map((part) => this.idsAdmitted(part)).filter((part): part is SqlSelect => part !== null);
        return parts.length === 0 ? null : compoundSelect(parts, 'INTERSECT');
      }
      case 'any': {
        const branches = narrowing.parts.map((part) => this.idsAdmitted(part));
        return branches.every((branch): branch is SqlSelect => branch !== null) ? compoundSelect(branches, 'UNION') : null;
      }
    }
  }

  private prepared(sql: string): Database.Statement {
    let query = this.candidateQueries.get(sql);
    if (!query) {
      if (this.candidateQueries.size >= MAX_PREPARED_QUERIES) this.candidateQueries.clear();
      this.candidateQueries.set(sql, (query = this.db.prepare(sql)));
    }
    return query;
  }

  /**
   * Ids that may match, in id order: the filter's own lists of ids when they name few (listedCandidates),
   * else narrowed in SQL by `id` and indexed fields, or every id.
   */
  candidateIds(filter: Filter): number[] {
    const listed = listedCandidates(filter);
    if (listed !== null) return listed;
    const { where, params, soleLookup } = this.narrowing(filter);
    const sql = soleLookup ? `SELECT DISTINCT id FROM (${soleLookup.sql}) ORDER BY id` : `SELECT id FROM ${this.docsTable} AS doc${where} ORDER BY id`;
    const resultKey = `${sql}\u0000${params.map(resultKeyPart).join('\u0000')}`;
    const known = this.candidateResults.get(resultKey);
    if (known) return known;
    const ids = this.prepared(sql).pluck().all(...params) as number[];
    if (this.candidateResults.size >= MAX_REMEMBERED_CANDIDATES) this.candidateResults.clear();
    this.candidateResults.set(resultKey, ids);
    return ids;
  }

  /**
   * Whether the candidates SQL selects for `filter` are exactly its matches, so that counting or paging
   * them needs no document parsed: every condition is `id` or a top-level indexed field equal to a
   * string, null or a number (0 and 1 only while no document holds a boolean there: booleans share
   * those keys), and no document holds an object there (unkeyed entries are candidates the evaluator
   * must decide).
   */
  decidedBySql(filter: Filter): boolean {
    for (const field in filter) {
      const value = filter[field];
      if (field === 'id') {
        if (typeof value !== 'number') return false;
        continue;
      }
      const number = this.indexOn(field);
      if (number < 0 || field.includes('.')) return false;
      const exactKey =
        typeof value === 'string' || value === null || (Number.isFinite(value) && ((value !== 0 && value !== 1) || !this.holdsBooleans(number)));
      if (!exactKey || this.sql.anyUnkeyed.get(number, UNKEYED)) return false;
    }
    return true;
  }

  /**
   * The ids of `filter`'s candidates in `sort` order, the sort fields read by SQLite from the stored
   * JSON (no document parsed in JS); null when a sort field is not a plain top-level name.
   */
  orderedIds(filter: Filter, sort: SortSpec | undefined): number[] | null {
    const fields = Object.keys(sort ?? {}).filter((field) => field !== 'id');
    if (fields.some((field) => !PLAIN_FIELD.test(field))) return null;
    if (fields.length === 0) {
      const ids = this.candidateIds(filter);
      return sort?.id === -1 ? [...ids].reverse() : ids;
    }
    const { where, params } = this.narrowing(filter);
    const columns = fields.map((_, i) => `json_type(doc, ?) AS t${i}, json_extract(doc, ?) AS v${i}`).join(', ');
    const paths = fields.flatMap((field) => [`$.${field}`, `$.${field}`]);
    const rows = this.prepared(`SELECT id, ${columns} FROM ${this.docsTable} AS doc${where}`).raw().all(...paths, ...params) as unknown[][];
    const sortable = rows.map((row) => {
      const doc: Doc = { id: row[0] as number };
      fields.forEach((field, i) => {
        const value = jsonValueOf(row[1 + 2 * i] as string | null, row[2 + 2 * i]);
        if (value !== undefined) doc[field] = value;
      });
      return doc;
    });
    return sortable.sort(documentComparator(sort)).map((doc) => doc.id);
  }
}

/**
 * Candidates named by a filter's lists of ids (`id` `$in` through `$and` / `$or`: a search's text terms
 * come as the ids the text index named) are taken as they are, without SQL, when they are at most this
 * many: the evaluator tests each anyway, and intersecting them in SQL with the filter's other lookups
 * (a project's stories, every story of a one-project file) reads more index entries than they are.
 */
const LISTED_CANDIDATES = 2048;

const NO_INDEXES = new Map<string, HashIndex>();

/**
 * The ids the lists of ids of `filter` admit (intersected through `$and`, united through `$or`, as the
 * memory store plans them with no index), ascending, when there are at most LISTED_CANDIDATES; else null.
 */
function listedCandidates(filter: Filter): number[] | null {
  const narrowing = narrowingOf(filter);
  const plan = narrowing && candidatePlan(narrowing, NO_INDEXES, Infinity);
  if (!plan || plan.size > LISTED_CANDIDATES) return null;
  return [...plan.ids()].sort((a, b) => a - b);
}

/** A SELECT of ids and its parameters. */
interface SqlSelect {
  sql: string;
  params: unknown[];
}

/** The values of one `$in` an index lookup takes as parameters; longer lists are left to the evaluator. */
const MAX_SQL_KEYS = 1000;

/**
 * A lookup of fewer index entries than this drives a conjunction whose other lookups hold more (see
 * StoredCollection.narrowing): counting up to it reads at most this many entries (about a quarter of a
 * millisecond), and below it probing the others per candidate costs less than reading them.
 */
const DRIVING_LOOKUP_ENTRIES = 1024;

/** A statement parameter as a part of a cache key (index keys are numbers, strings or one-byte markers). */
function resultKeyPart(param: unknown): string {
  return Buffer.isBuffer(param) ? `#${param[0]}` : typeof param === 'string' ? `'${param}` : String(param);
}

function compoundSelect(parts: readonly SqlSelect[], operator: 'UNION' | 'INTERSECT'): SqlSelect {
  if (parts.length === 1) return parts[0]!;
  return { sql: parts.map((part) => `SELECT id FROM (${part.sql})`).join(` ${operator} `), params: parts.flatMap((part) => part.params) };
}

/**
 * Whether SQLite orders index keys around this bound as JavaScript does: numbers always; strings when
 * they hold no character from U+D800 up (SQLite compares UTF-8 bytes, JavaScript UTF-16 code units,
 * and the two orders differ only there).
 */
function ordersAlikeInSqlite(bound: RangeBound): boolean {
  return typeof bound.value === 'number' || !ORDERED_UNLIKE_SQLITE.test(bound.value);
}

/** Text whose order in SQLite (UTF-8 bytes) may differ from JavaScript's (UTF-16 code units). */
const ORDERED_UNLIKE_SQLITE = /[\uD800-\uFFFF]/;
/** The same test as a GLOB over stored keys (SQLite stores a lone surrogate as U+FFFD). */
const MISORDERED_TEXT_GLOB = '*[\uE000-\u{10FFFF}]*';

/**
 * Below this many candidates a page sorted by an indexed field reads the sort field of each candidate
 * (a few microseconds each); from it on, walking the field's index is cheaper (50,000 stories of one
 * project: ~200 ms against ~2 ms for the first page).
 */
export const SORT_WALK_MIN_CANDIDATES = 2000;

/**
 * Index entries a walk may read per candidate before it gives up for reading every candidate's sort
 * field (an entry costs about a fifth of that): a walk through an index shared by many other documents
 * (a project among hundreds) costs at most about as much again as the plan it falls back to.
 */
const SORT_WALK_ENTRIES_PER_CANDIDATE = 4;

/** Whether the ascending `ids` hold `id` (binary search). */
function sortedIncludes(ids: readonly number[], id: number): boolean {
  let low = 0;
  let high = ids.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = ids[middle]!;
    if (at === id) return true;
    if (at < id) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/** Sort fields SQLite can read with a simple JSON path. */
const PLAIN_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A JSON value as json_type / json_extract return it (undefined: the path is missing). */
function jsonValueOf(type: string | null, value: unknown): unknown {
  switch (type) {
    case null:
      return undefined;
    case 'true':
      return true;
    case 'false':
      return false;
    case 'array':
    case 'object':
      return JSON.parse(value as string);
    default:
      return value;
  }
}

interface CollectionRow {
  name: string;
  indexes: string;
}

export function openSqliteReadStore(options: SqliteReadStoreOptions): SqliteReadStore {
  const readOnly = options.readOnly === true;
  const onDisk = options.path !== ':memory:';
  const bootId = onDisk && !readOnly ? (options.bootId === undefined ? currentBootId() : options.bootId) : null;
  let db = new Database(options.path, readOnly ? { readonly: true, fileMustExist: true } : {});
  if (bootId !== null && tornByRestart(db, bootId)) {
    // Open when the system went down, written without syncs: deleted, so built again from the log.
    db.close();
    deleteDatabaseFiles(options.path);
    db = new Database(options.path);
  }
  if (!readOnly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
  // The WAL is checkpointed by a worker thread (wal-checkpointer.ts), not in the serving thread's
  // commits; this connection checkpoints only past ~64 MB, should the worker fall behind. SQLite's own
  // page cache stays small (8 MiB): parsed documents are cached above it, and the OS caches the file.
  if (!readOnly) db.pragma(`wal_autocheckpoint = ${SAFETY_PAGES}`);
  db.pragma('cache_size = -8192');
  const opened = readOnly ? 'opened' : prepareFormat(db);
  const mark = bootId !== null ? startUnsyncedWrites(db, bootId) : null;
  const checkpointer = onDisk && !readOnly ? new WalCheckpointer(options.path, { synced: mark === null, checkMs: options.walCheckpointCheckMs }) : null;
  const cache = new DocumentCache(options.cacheBytes ?? DEFAULT_READ_CACHE_BYTES);
  const collections = new Map<string, StoredCollection>();
  let serials = 0;
  let dataVersion = -1;
  const readDataVersion = db.prepare('PRAGMA data_version').pluck();
  let inTransaction = false;

  const loadCollections = () => {
    collections.clear();
    cache.clear();
    for (const row of db.prepare('SELECT name, indexes FROM _collections').all() as CollectionRow[]) {
      collections.set(row.name, new StoredCollection(++serials, row.name, JSON.parse(row.indexes) as IndexSpec[], db, cache));
    }
  };

  let checkedAt = -Infinity;
  const staleReadMs = options.staleReadMs ?? (readOnly ? 0 : DEFAULT_STALE_READ_MS);
  const sortWalkMinCandidates = options.sortWalkMinCandidates ?? SORT_WALK_MIN_CANDIDATES;
  let sortIndexWalks = 0;
  /**
   * Before every operation: another process's commit invalidates what this one holds in memory. Writes
   * check every time (they must not build on a stale document); reads at most every `staleReadMs`,
   * which is below the 250 ms in which the server notices another process's events in the log anyway.
   */
  const fresh = (writing = false) => {
    if (inTransaction) return;
    const now = performance.now();
    if (!writing && now - checkedAt < staleReadMs) return;
    checkedAt = now;
    const version = readDataVersion.get() as number;
    if (version !== dataVersion) {
      dataVersion = version;
      loadCollections();
    }
  };

  const existing = (name: string): StoredCollection | undefined => {
    fresh();
    return collections.get(name);
  };

  const created = (name: string): StoredCollection => {
    let stored = collections.get(name);
    if (stored) return stored;
    stored = new StoredCollection(++serials, name, [], db, cache);
    stored.createTables();
    db.prepare('INSERT INTO _collections (name, indexes) VALUES (?, ?)').run(name, '[]');
    collections.set(name, stored);
    return stored;
  };

  /** BEGIN IMMEDIATE, `work`, COMMIT (ROLLBACK when it throws): the wrapper built once, not per write. */
  const runImmediate = db.transaction((work: () => unknown) => work()).immediate;

  /** Runs `work` in one write transaction; on failure nothing is stored and the cache is emptied. */
  const transaction = <T>(work: () => T): T => {
    fresh(true);
    inTransaction = true;
    try {
      const result = runImmediate(work) as T;
      checkpointer?.committed();
      return result;
    } catch (error) {
      for (const stored of collections.values()) stored.pending.clear();
      dataVersion = -1; // collections created by the failed transaction are gone: list them again
      checkedAt = -Infinity;
      cache.clear();
      throw error;
    } finally {
      inTransaction = false;
    }
  };

  const flushAll = () => {
    for (const stored of collections.values()) stored.flush();
  };

  const matchAll = (stored: StoredCollection, filter: Filter): Doc[] => {
    if (typeof filter.id === 'number') {
      const doc = stored.load(filter.id);
      return doc && matchesFilter(doc, filter) ? [doc] : [];
    }
    flushAll();
    const predicate = compileFilter(filter);
    const matched: Doc[] = [];
    for (const id of stored.candidateIds(filter)) {
      const doc = stored.load(id);
      if (doc && predicate(doc)) matched.push(doc);
    }
    return matched;
  };

  /**
   * The page of a filter that is one range on an indexed field, sorted by that field, walked in index
   * order: only the documents up to the page's end are read (the earliest acceptance of a project among
   * thousands). Null when the filter, the sort or the index (arrays, objects) do not allow it.
   */
  const walkInKeyOrder = (stored: StoredCollection, filter: Filter, options: FindOptions): Doc[] | null => {
    const order = options.limit && options.limit > 0 ? singleSortField(options.sort) : null;
    const range = order && soleRangeOn(filter, order.field);
    if (!order || !range || !PLAIN_FIELD.test(order.field)) return null;
    const number = stored.indexOn(order.field);
    if (number < 0 || ![range.low, range.high].every((bound) => bound === null || ordersAlikeInSqlite(bound))) return null;
    if (stored.isMultikey(number) || stored.holdsMisorderedText(number)) return null;
    flushAll();
    const predicate = compileFilter(filter);
    const start = Math.max(0, options.skip ?? 0);
    const byPage = start + options.limit! > PAGE_READ_DOCUMENTS;
    const page: Doc[] = [];
    for (const id of stored.idsInKeyOrder(number, range, order.direction)) {
      const doc = stored.load(id, byPage);
      if (doc && predicate(doc)) page.push(doc);
      if (page.length >= start + options.limit!) break;
    }
    return page.slice(start).map((doc) => copyFound(doc, options.fields));
  };

  /**
   * The page of a filter sorted ascending by one indexed field, read by walking an index in that field's
   * order and keeping the filter's candidates: only the entries up to the page's end are read, and only
   * the page's documents, instead of the sort field of every candidate. The index walked is a scoped one
   * (IndexSpec `within`) when the filter holds its scope as an equality on a number: the entries of that
   * scope alone, whatever their number (a project's stories by rank: from a cold disk a page costs a
   * random read per story it shows, not per story of the project). Else the field's own index, when the candidates are many
   * (sortWalkMinCandidates) and its key order is the sort order (keysInDocumentOrder); that walk gives up
   * when it meets more entries of other documents than SORT_WALK_ENTRIES_PER_CANDIDATE allows. Null when
   * neither applies.
   */
  const walkSortIndex = (stored: StoredCollection, filter: Filter, options: FindOptions): Doc[] | null => {
    const order = options.limit && options.limit > 0 ? singleSortField(options.sort) : null;
    if (!order || order.direction !== 1 || typeof filter.id === 'number') return null;
    const number = stored.indexOn(order.field);
    const scoped = stored.indexes.findIndex((index) => index.field === order.field && index.within !== undefined && typeof filter[index.within] === 'number');
    if (number < 0 && scoped < 0) return null;
    flushAll();
    const inScope = scoped < 0 ? null : stored.idsInScope(scoped, filter[stored.indexes[scoped]!.within!] as number);
    const candidates = stored.candidateIds(filter);
    if (!inScope && (number < 0 || candidates.length < sortWalkMinCandidates || !stored.keysInDocumentOrder(number))) return null;
    const predicate = stored.decidedBySql(filter) ? null : compileFilter(filter);
    const start = Math.max(0, options.skip ?? 0);
    const end = start + options.limit!;
    const byPage = end > PAGE_READ_DOCUMENTS;
    const budget = inScope ? Infinity : SORT_WALK_ENTRIES_PER_CANDIDATE * Math.max(candidates.length, end);
    const page: Doc[] = [];
    let matched = 0;
    let read = 0;
    for (const id of inScope ?? stored.idsInSortOrder(number)) {
      if (++read > budget) return null;
      if (!sortedIncludes(candidates, id)) continue;
      if (predicate) {
        const doc = stored.load(id, byPage);
        if (!doc || !predicate(doc)) continue;
        if (matched >= start) page.push(doc);
      } else if (matched >= start) page.push(stored.load(id, byPage)!);
      if (++matched >= end) break;
    }
    sortIndexWalks++;
    return page.map((doc) => copyFound(doc, options.fields));
  };

  /** The lowest-id match (candidates come in id order). */
  const matchFirst = (stored: StoredCollection, filter: Filter): Doc | undefined => {
    if (typeof filter.id === 'number') return matchAll(stored, filter)[0];
    flushAll();
    const predicate = compileFilter(filter);
    for (const id of stored.candidateIds(filter)) {
      const doc = stored.load(id);
      if (doc && predicate(doc)) return doc;
    }
    return undefined;
  };

  const insertDoc = (stored: StoredCollection, doc: Record<string, unknown>): void => {
    assertDocId(doc);
    if (stored.load(doc.id)) return; // the port's rule for replays: an existing id is skipped
    if (stored.indexes.some((index) => index.unique)) flushAll();
    stored.put(doc);
    if (stored.indexes.some((index) => index.unique)) stored.flush();
  };

  const updateDocs = (stored: StoredCollection, filter: Filter, update: Update, many: boolean, upsert: boolean): void => {
    assertOperatorUpdate(update);
    const matched = many ? matchAll(stored, filter) : [matchFirst(stored, filter)].filter((doc): doc is Doc => doc !== undefined);
    if (matched.length === 0) {
      if (!upsert) return;
      return insertDoc(stored, applyUpdate(copyJson(equalityFields(filter)) as Doc, update, true));
    }
    for (const doc of matched) {
      stored.touch(doc);
      stored.put(applyUpdate(doc, update, false));
    }
    if (stored.indexes.some((index) => index.unique)) stored.flush();
  };

  const replaceDoc = (stored: StoredCollection, filter: Filter, replacement: Doc, upsert: boolean): void => {
    const doc = copyJson(replacement) as Record<string, unknown>;
    assertDocId(doc);
    const current = matchFirst(stored, filter);
    if (!current) {
      if (upsert) insertDoc(stored, doc);
      return;
    }
    if (current.id !== doc.id) throw new InvalidUpdateError('a replacement cannot change the document id');
    stored.touch(current);
    stored.put(doc);
    if (stored.indexes.some((index) => index.unique)) stored.flush();
  };

  const applyOp = (stored: StoredCollection, op: WriteOp): void => {
    switch (op.op) {
      case 'insert':
        return insertDoc(stored, copyJson(op.doc));
      case 'upsert':
        return updateDocs(stored, op.filter, op.update, false, true);
      case 'update':
        return updateDocs(stored, op.filter, op.update, op.many ?? false, false);
      case 'replace':
        return replaceDoc(stored, op.filter, op.doc, op.upsert ?? false);
      case 'delete': {
        const doomed = op.many ? matchAll(stored, op.filter) : [matchFirst(stored, op.filter)].filter((doc): doc is Doc => doc !== undefined);
        for (const doc of doomed) stored.remove(doc);
        return;
      }
      default: {
        const unknown: never = op;
        throw new InvalidDocumentError(`unknown write op ${JSON.stringify(unknown)}`);
      }
    }
  };

  const writeAtomically = (writes: readonly CollectionWrites[]): void =>
    transaction(() => {
      for (const { collection, ops } of writes) {
        if (ops.length === 0) continue;
        const stored = created(collection);
        for (const op of ops) applyOp(stored, op);
      }
      flushAll();
    });

  /** Documents read per step when indexes are built over a whole collection (bounds the rows held). */
  const INDEX_BUILD_PAGE = 5000;
  /** Index entries per INSERT statement while they are gathered. */
  const INDEX_BUILD_ROWS = 256;

  /** The indexes of `indexes` that `stored` lacks (`id` is the key of every collection). */
  const missingIndexes = (stored: StoredCollection, indexes: IndexSpec[]): IndexSpec[] =>
    indexes.filter((wanted) => wanted.field !== 'id' && !stored.indexes.some((index) => sameIndex(index, wanted)));

  /**
   * Gathers in temp.index_build the entries of `stored`'s documents under indexes `added`, numbered from
   * `first`. The entries are inserted in key order afterwards (insertGathered): a b-tree filled in
   * order, instead of one random insert per entry (a quarter of a rebuild before). Each document is
   * parsed once for every index added (a rebuild adds them all after its load). Unique indexes are not
   * gathered: insertGathered checks and inserts their entries under the write lock.
   */
  const gatherEntries = (stored: StoredCollection, added: readonly IndexSpec[], first: number): void => {
    db.exec('CREATE TEMP TABLE IF NOT EXISTS index_build (field INTEGER NOT NULL, key, id INTEGER NOT NULL)');
    db.exec('DELETE FROM temp.index_build');
    if (added.every((index) => index.unique)) return;
    const gathered: unknown[] = [];
    const gatherMany = db.prepare(`INSERT INTO temp.index_build (field, key, id) VALUES ${Array(INDEX_BUILD_ROWS).fill('(?, ?, ?)').join(', ')}`);
    const gatherOne = db.prepare('INSERT INTO temp.index_build (field, key, id) VALUES (?, ?, ?)');
    const gather = (field: number, key: unknown, id: number) => {
      gathered.push(field, key, id);
      if (gathered.length === 3 * INDEX_BUILD_ROWS) gatherMany.run(gathered.splice(0));
    };
    forEachStored(stored, (id, doc) => {
      added.forEach((index, offset) => {
        if (index.unique) return;
        const { keys, unkeyed } = entryKeysOf(doc, index);
        for (const key of keys) gather(first + offset, sqlKey(key), id);
        if (unkeyed) gather(first + offset, UNKEYED, id);
      });
    });
    for (let row = 0; row < gathered.length; row += 3) gatherOne.run(gathered.slice(row, row + 3));
  };

  /** Calls `visit` with every stored document of `stored`, in id order, a page at a time. */
  const forEachStored = (stored: StoredCollection, visit: (id: number, doc: Doc) => void): void => {
    const page = db.prepare(`SELECT id, doc FROM ${stored.docsTable} WHERE id > ? ORDER BY id LIMIT ${INDEX_BUILD_PAGE}`).raw(true);
    for (let after = -Infinity; ; ) {
      const rows = page.all(after) as Array<[number, string]>;
      for (const [id, json] of rows) visit(id, JSON.parse(json) as Doc);
      if (rows.length < INDEX_BUILD_PAGE) return;
      after = rows[rows.length - 1]![0];
    }
  };

  /** Inserts the gathered entries in key order and the entries of unique indexes (numbered from `first`), then records the indexes. */
  const insertGathered = (stored: StoredCollection, first: number): void => {
    db.exec(`INSERT OR IGNORE INTO ${stored.keysTable} (field, key, id) SELECT field, key, id FROM temp.index_build ORDER BY field, key, id`);
    db.exec('DELETE FROM temp.index_build');
    const unique = stored.indexes.map((index, number) => ({ index, number })).filter(({ index, number }) => number >= first && index.unique);
    if (unique.length > 0) {
      forEachStored(stored, (id, doc) => {
        for (const { index, number } of unique) stored.insertEntries(number, entryKeysOf(doc, index), id);
      });
    }
    db.prepare('UPDATE _collections SET indexes = ? WHERE name = ?').run(JSON.stringify(stored.indexes), stored.name);
  };

  /**
   * ReadCollection.ensureIndexes: adds the indexes the collection lacks, with the entries of the
   * documents it holds. With unsharedIndexBuilds, the entries are gathered before the write lock is
   * taken (in a transaction of the connection's own temporary database) and gathered again under it
   * only if the collection's indexes changed meanwhile.
   */
  const ensureIndexes = (name: string, indexes: IndexSpec[]): void => {
    let early: { first: number; added: IndexSpec[] } | null = null;
    const before = options.unsharedIndexBuilds ? existing(name) : undefined;
    if (before) {
      const added = missingIndexes(before, indexes);
      if (added.length > 0) {
        early = { first: before.indexes.length, added };
        db.transaction(() => gatherEntries(before, added, before.indexes.length))();
      }
    }
    transaction(() => {
      const stored = created(name);
      const added = missingIndexes(stored, indexes);
      if (added.length === 0) {
        if (early) db.exec('DELETE FROM temp.index_build'); // gathered for indexes another connection has added since
        return;
      }
      const first = stored.indexes.length;
      const gathered = early !== null && early.first === first && JSON.stringify(early.added) === JSON.stringify(added);
      if (!gathered) gatherEntries(stored, added, first);
      for (const index of added) {
        stored.indexes.push(index.within === undefined ? { field: index.field, unique: index.unique ?? false } : { field: index.field, unique: false, within: index.within });
      }
      insertGathered(stored, first);
    });
  };

  /** ReadStore.putDocuments: the fast path without indexes (a fresh generation), else the pending path that moves index entries. */
  const putDocuments = (name: string, docs: readonly Doc[]): void =>
    transaction(() => {
      const stored = created(name);
      if (stored.indexes.length === 0) return stored.storeWhole(docs);
      for (const replacement of docs) {
        const doc = copyJson(replacement) as Record<string, unknown>;
        assertDocId(doc);
        const current = stored.load(doc.id);
        if (current) stored.touch(current);
        stored.put(doc);
      }
      stored.flush();
    });

  /** A found document as the find asks for it: `fields: []` needs no document loaded. */
  const foundById = (stored: StoredCollection, id: number, fields: readonly string[] | undefined, byPage: boolean): Doc =>
    fields?.length === 0 ? { id } : copyFound(stored.load(id, byPage)!, fields);

  /**
   * A find with a budget: the candidate ids from SQL (one statement, charged per id), then, when SQL
   * decides the filter, the ids in order, documents loaded in charged slices only for the fields asked;
   * otherwise every candidate loaded and tested in charged slices (charged-evaluation.ts), the matches
   * sorted after. Writes may land between slices: each candidate is read as it is when its slice runs.
   */
  const findCharged = async (stored: StoredCollection, filter: Filter, options: FindOptions, budget: ReadBudget): Promise<Doc[]> => {
    await budget.turnIfDue();
    flushAll();
    const start = Math.max(0, options.skip ?? 0);
    const window = <T>(list: readonly T[]): T[] => list.slice(start, options.limit && options.limit > 0 ? start + options.limit : list.length);
    if (typeof filter.id !== 'number' && stored.decidedBySql(filter)) {
      await budget.charge(stored.candidateIds(filter).length * ENTRY_UNITS);
      const ordered = window(stored.orderedIds(filter, options.sort) ?? []);
      if (options.fields?.length === 0) return ordered.map((id) => ({ id }));
      const found: Doc[] = [];
      const byPage = ordered.length > PAGE_READ_DOCUMENTS;
      await visitCharged(ordered, DOCUMENT_UNITS, budget, (id) => {
        const doc = stored.load(id, byPage); // gone when deleted between slices
        if (doc) found.push(copyFound(doc, options.fields));
      });
      return found;
    }
    const candidates = typeof filter.id === 'number' ? [filter.id] : stored.candidateIds(filter);
    const predicate = compileFilter(filter);
    const matched: Doc[] = [];
    await visitCharged(candidates, candidateUnits(filter), budget, (id) => {
      const doc = stored.load(id);
      if (doc && predicate(doc)) matched.push(doc);
    });
    return window(sortDocuments(matched, options.sort)).map((doc) => copyFound(doc, options.fields));
  };

  const collection = (name: string): ReadCollection => ({
    name,
    async find(filter: Filter, options: FindOptions = {}) {
      const stored = existing(name);
      if (!stored) return [];
      if (options.budget) return findCharged(stored, filter, options, options.budget);
      const walked = walkInKeyOrder(stored, filter, options) ?? walkSortIndex(stored, filter, options);
      if (walked) return walked;
      const start = Math.max(0, options.skip ?? 0);
      const ordered = typeof filter.id !== 'number' && stored.decidedBySql(filter) ? stored.orderedIds(filter, options.sort) : null;
      if (ordered) {
        // Only the page's documents are loaded: the order came from SQL.
        const end = options.limit && options.limit > 0 ? start + options.limit : ordered.length;
        const pageIds = ordered.slice(start, end);
        return pageIds.map((id) => foundById(stored, id, options.fields, pageIds.length > PAGE_READ_DOCUMENTS));
      }
      const matched = sortDocuments(matchAll(stored, filter), options.sort);
      const end = options.limit && options.limit > 0 ? start + options.limit : matched.length;
      return matched.slice(start, end).map((doc) => copyFound(doc, options.fields));
    },
    async findOne(filter: Filter) {
      const stored = existing(name);
      const found = stored && matchFirst(stored, filter);
      return found ? copyJson(found) : null;
    },
    async count(filter: Filter) {
      const stored = existing(name);
      if (!stored) return 0;
      return typeof filter.id !== 'number' && stored.decidedBySql(filter) ? stored.candidateIds(filter).length : matchAll(stored, filter).length;
    },
    async all() {
      const stored = existing(name);
      if (!stored) return [];
      const docs: Doc[] = [];
      for (const row of db.prepare(`SELECT doc FROM ${stored.docsTable} ORDER BY id`).pluck().iterate() as Iterable<string>) {
        docs.push(JSON.parse(row) as Doc);
      }
      return docs;
    },
    async write(ops: WriteOp[]) {
      writeAtomically([{ collection: name, ops }]);
    },
    async ensureIndexes(indexes: IndexSpec[]) {
      ensureIndexes(name, indexes);
    },
  });

  return {
    opened,
    cache,
    sortIndexWalks: () => sortIndexWalks,
    walCheckpoints: () => checkpointer?.checkpoints() ?? 0,
    collection,
    async writeAtomically(writes) {
      writeAtomically(writes);
    },
    async putDocuments(name, docs) {
      putDocuments(name, docs);
    },
    async dropCollection(name) {
      transaction(() => {
        const stored = collections.get(name);
        if (!stored) return;
        db.exec(`DROP TABLE IF EXISTS ${stored.docsTable}`);
        db.exec(`DROP TABLE IF EXISTS ${stored.keysTable}`);
        db.prepare('DELETE FROM _collections WHERE name = ?').run(name);
        collections.delete(name);
        cache.deleteCollection(stored.serial);
      });
    },
    async listCollections() {
      fresh();
      return [...collections.keys()].sort();
    },
    async close() {
      cache.clear();
      await checkpointer?.close();
      if (!db.open) return;
      if (mark) endUnsyncedWrites(db, options.path, mark);
      db.close();
    },
  };
}

/** Creates the bookkeeping tables, or empties a file of another format (it is derived data). */
function prepareFormat(db: Database.Database): 'created' | 'opened' {
  db.exec('CREATE TABLE IF NOT EXISTS _store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const format = db.prepare("SELECT value FROM _store_meta WHERE key = 'format'").pluck().get() as string | undefined;
  if (format === String(READ_STORE_FORMAT)) return 'opened';
  db.transaction(() => {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> '_store_meta'").pluck().all() as string[];
    for (const table of tables) db.exec(`DROP TABLE ${quoted(table)}`);
    db.exec('CREATE TABLE _collections (name TEXT PRIMARY KEY, indexes TEXT NOT NULL)');
    db.prepare("INSERT INTO _store_meta (key, value) VALUES ('format', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
      String(READ_STORE_FORMAT),
    );
  }).immediate();
  return 'created';
}
