// The embedded event store: one SQLite file (better-sqlite3), one table, WAL, synchronous=FULL.
//
// Writes use group commit: the appends requested while no batch is being committed (or while one is)
// are committed together in the next batch, ONE transaction and so one fsync for all of them
// (sqlite-append-batch.ts). For a database file the commit runs in a worker thread with its own
// connection (sqlite-appender.ts), so the serving thread is not blocked while the WAL is synced. A
// promise resolves only after COMMIT has returned, which with synchronous=FULL means the WAL was synced.
// Reads use this thread's connection; they see a batch as soon as its commit returned.
//
// Each row carries its hash in its stream's chain (column `hash`, computed by the codec's chainHash while
// the append holds the write lock); logs written before the column existed are chained once at open
// (sqlite-hash-chain.ts).
import Database from 'better-sqlite3';
// rxjs's root module loads all of rxjs (some 220 files read and compiled at each start, in every worker).
import { Subject } from 'rxjs/internal/Subject';
import type { NewEvent } from '../../domain/events.js';
import { decodeStoredColumns, encodeEvent } from '../event-codec.js';
import { assertValidAppend } from './append-validation.js';
import { CHAIN_RESTS_SQL, upgradeToHashChain, type ChainRestRow } from './sqlite-hash-chain.js';
import { appendError, type AppendRequest, type BatchOutcome } from './sqlite-append-batch.js';
import { WorkerAppender, inThreadAppender, type Appender } from './sqlite-appender.js';
import { SqliteReadAhead, type EventColumns } from './sqlite-read-ahead.js';
import { RecentEvents } from './recent-events.js';
import { asStorageFailure } from '../storage-failure.js';
import type { AppendResult, ChainedEvent, EventStore, ExpectedVersion, ReadAllOptions, ReadStreamOptions } from '../../ports/event-store.js';

export interface SqliteEventStoreOptions {
  /** File path, or ':memory:' (tests). */
  path: string;
  /** How often to look for appends made by other processes (default 250 ms). */
  pollIntervalMs?: number;
  /**
   * How long a write waits for another process holding the write lock (default 10 s). better-sqlite3 is
   * synchronous, so this wait blocks the event loop; other processes (the CLI) hold the lock briefly.
   */
  busyTimeoutMs?: number;
  /**
   * A log whose loss costs nothing (bench data generated in a temporary directory): commits are not
   * synced and the page cache is large. (`storyline import` has its own writer: sqlite-bulk-load.ts.)
   */
  bulkLoad?: boolean;
  /**
   * A reader beside the process that owns the log (the project-snapshot worker): the file is opened
   * read-only and must exist; no schema, no hash-chain upgrade, no append or read-ahead worker, no
   * polling for appends. Appends reject.
   */
  readOnly?: boolean;
}

/** The page cache of a bulk load (KiB): the id and (stream, version) indexes of a million events stay in memory. */
const BULK_LOAD_CACHE_KIB = 256 * 1024;

export type SqliteEventStore = EventStore & {
  close(): Promise<void>;
  /** Events written before the hash chain existed that this open chained (0 once upgraded). */
  readonly chainedOnOpen: number;
  /** `storyline verify`'s read: the ChainRestRows after `after` (the database writes each event's hashed text). */
  readChainRests(after: number, limit: number): Promise<ChainRestRow[]>;
  /** Every stream of at least `events` events, with its version (one walk of the (stream, version) index). */
  longStreams(events: number): Promise<Array<{ stream: string; version: number }>>;
};

/** The log's table as every store creates it (a bulk load ends with exactly this schema: sqlite-bulk-load.ts). */
export const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY,
    id       TEXT UNIQUE NOT NULL,
    stream   TEXT NOT NULL,
    version  INTEGER NOT NULL,
    type     TEXT NOT NULL,
    data     TEXT NOT NULL,
    meta     TEXT NOT NULL,
    hash     TEXT,
    UNIQUE (stream, version)
  )`;

const COLUMNS = 'position, id, stream, version, type, data, meta';

/** Batches at least this large are read ahead in a worker (replay and catch-up). */
const READ_AHEAD_MIN_BATCH = 256;

/**
 * Reads of one stream of at least this many events (or no limit) run in that worker: a stream's rows lie
 * scattered across the file, and from a cold disk each costs a random read, so the events a cold
 * stream's state folds after its snapshot (up to a thousand) held the event loop while they were read.
 */
const STREAM_READ_OFF_THREAD_MIN = 64;

/** Events this process appended that the followers of the log take from memory (recent-events.ts). */
const RECENT_EVENTS = 4096;

type ChainColumns = [number, string, number, string, string, string, string];
const chainedEvent = (row: ChainColumns): ChainedEvent => ({
  position: row[0], stream: row[1], version: row[2], type: row[3], data: row[4], meta: row[5], hash: row[6],
});

const decodeColumns = (row: EventColumns) => decodeStoredColumns(row[0], row[1], row[2], row[3], row[4], row[5], row[6]);

/** The events an append wrote, as a read of the log returns them (decoded from the text stored). */
function writtenEvents(request: AppendRequest, result: AppendResult, writtenIds: readonly string[]) {
  const count = writtenIds.length;
  return request.events.slice(0, count).map((event, index) =>
    decodeStoredColumns(result.position - count + 1 + index, writtenIds[index]!, request.stream, result.version - count + 1 + index, event.type, event.data, event.meta),
  );
}

/** An append as the batch writer takes it: each event encoded as stored, with its command id. */
function appendRequest(stream: string, expectedVersion: ExpectedVersion, events: NewEvent[]): AppendRequest {
  return { stream, expectedVersion, events: events.map((event) => ({ ...encodeEvent(event), commandId: event.meta.command_id })) };
}

function refuseReadOnlyWrite(): never {
  throw new Error('this event store is opened read-only');
}

/** A read-only store's appender: every batch is refused (nothing is committed). */
const readOnlyAppender: Appender = {
  write: async () => refuseReadOnlyWrite(),
  async close() {},
};

interface PendingAppend {
  request: AppendRequest;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

export async function openSqliteEventStore(options: SqliteEventStoreOptions): Promise<SqliteEventStore> {
  const readOnly = options.readOnly === true;
  if (readOnly && options.path === ':memory:') throw new Error('an in-memory log cannot be opened read-only beside its owner');
  const db = new Database(options.path, readOnly ? { readonly: true, fileMustExist: true } : {});
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
  if (!readOnly) {
    db.pragma('journal_mode = WAL');
    db.pragma(options.bulkLoad ? 'synchronous = OFF' : 'synchronous = FULL');
    if (options.bulkLoad) db.pragma(`cache_size = -${BULK_LOAD_CACHE_KIB}`);
    db.exec(SCHEMA);
  }
  const chainedOnOpen = readOnly ? 0 : upgradeToHashChain(db);

  const statements = {
    head: db.prepare<[], { head: number | null }>('SELECT MAX(position) AS head FROM events'),
    streamVersion: db.prepare<[string], { version: number }>(
      'SELECT version FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1',
    ),
    chain: db.prepare<[number, number], ChainColumns>(
      'SELECT position, stream, version, type, data, meta, hash FROM events WHERE position > ? ORDER BY position ASC LIMIT ?',
    ),
    forwards: db.prepare<[string, number, number], EventColumns>(
      `SELECT ${COLUMNS} FROM events WHERE stream = ? AND version >= ? ORDER BY version ASC LIMIT ?`,
    ),
    backwards: db.prepare<[string, number, number], EventColumns>(
      `SELECT ${COLUMNS} FROM events WHERE stream = ? AND version <= ? ORDER BY version DESC LIMIT ?`,
    ),
    all: db.prepare<[number, number], EventColumns>(
      `SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position ASC LIMIT ?`,
    ),
    chainRests: db.prepare<[number, number], ChainRestRow>(CHAIN_RESTS_SQL),
    longStreams: db.prepare<[number], { stream: string; version: number }>(
      'SELECT stream, MAX(version) AS version FROM events GROUP BY stream HAVING MAX(version) >= ?',
    ),
  };
  for (const reader of [statements.forwards, statements.backwards, statements.all, statements.chain, statements.chainRests]) reader.raw(true);

  const readHead = (): number => statements.head.get()?.head ?? 0;
  const readStreamVersion = (stream: string): number => statements.streamVersion.get(stream)?.version ?? 0;

  const appender = readOnly ? readOnlyAppender : options.path === ':memory:' ? inThreadAppender(db) : new WorkerAppender(options.path, options.busyTimeoutMs ?? 10_000);

  const readAhead = readOnly || options.path === ':memory:' ? null : new SqliteReadAhead(options.path);

  const recent = new RecentEvents(RECENT_EVENTS);
  const appended = new Subject<number>();
  let lastAnnouncedHead = readHead();
  function announce(head: number): void {
    if (head <= lastAnnouncedHead) return;
    lastAnnouncedHead = head;
    appended.next(head);
  }

  let queue: PendingAppend[] = [];
  let flushScheduled = false;
  /** The batch being committed, if any: the next waits for it (one batch in flight). */
  let committing: Promise<void> | null = null;
  let closed = false;

  function scheduleFlush(): void {
    if (flushScheduled || committing || queue.length === 0) return;
    flushScheduled = true;
    setImmediate(flush);
  }

  function flush(): void {
    flushScheduled = false;
    if (committing || queue.length === 0) return;
    const batch = queue;
    queue = [];
    committing = appender
      .write(batch.map((pending) => pending.request))
      .then(
        (outcome) => settle(batch, outcome),
        (error: unknown) => {
          for (const request of batch) request.reject(error);
        },
      )
      .finally(() => {
        committing = null;
        if (!closed) announce(readHead());
        scheduleFlush();
      });
  }

  function settle(batch: PendingAppend[], outcome: BatchOutcome): void {
    if (!outcome.committed) {
      // The commit itself failed (disk, lock timeout): nothing of the batch is durable.
      const error = asStorageFailure(appendError(outcome.failure));
      for (const request of batch) request.reject(error);
      return;
    }
    batch.forEach((request, index) => {
      const result = outcome.outcomes[index]!;
      if (result.ok) {
        recent.add(writtenEvents(request.request, result.result, result.writtenIds));
        request.resolve(result.result);
      } else request.reject(asStorageFailure(appendError(result.failure)));
    });
  }

  /** Resolves once every append requested so far has been committed (or failed). */
  async function settled(): Promise<void> {
    while (committing || queue.length > 0) {
      if (!committing) flush();
      await committing;
    }
  }

  const poll = readOnly
    ? undefined
    : setInterval(() => {
        if (!closed) announce(readHead());
      }, options.pollIntervalMs ?? 250);
  poll?.unref();

  function assertOpen(): void {
    if (closed) throw new Error('the event store is closed');
  }

  return {
    chainedOnOpen,
    appended$: appended.asObservable(),

    append(stream, expectedVersion, events) {
      return new Promise<AppendResult>((resolve, reject) => {
        assertOpen();
        assertValidAppend(stream, expectedVersion, events);
        queue.push({ request: appendRequest(stream, expectedVersion, events), resolve, reject });
        scheduleFlush();
      });
    },

    async readStream(stream, options: ReadStreamOptions = {}) {
      assertOpen();
      const limit = options.limit ?? -1;
      if (options.direction === 'backwards') return statements.backwards.all(stream, options.from ?? Number.MAX_SAFE_INTEGER, limit).map(decodeColumns);
      const from = Math.max(1, options.from ?? 1);
      const available = readStreamVersion(stream) - from + 1;
      if (available <= 0 || limit === 0) return [];
      // A long read (a cold stream's history) runs in the worker: its rows lie scattered across the file.
      const long = readAhead !== null && (limit < 0 ? available : Math.min(limit, available)) >= STREAM_READ_OFF_THREAD_MIN;
      const rows = (long ? await readAhead.readStream(stream, from, limit) : null) ?? statements.forwards.all(stream, from, limit);
      return rows.map(decodeColumns);
    },

    async readAll(options: ReadAllOptions = {}) {
      assertOpen();
      const after = options.after ?? 0;
      const limit = options.limit ?? -1;
      // Nothing after the head (a follower asking whether there is more): no query for the rows.
      const head = readHead();
      if (after >= head) return [];
      // From memory only while nothing follows the run in the file (another process may have appended).
      const held = recent.after(after, limit);
      if (held && recent.lastPosition() === head) return held;
      if (!readAhead || limit < READ_AHEAD_MIN_BATCH) return statements.all.all(after, limit).map(decodeColumns);
      const rows = (await readAhead.take(after, limit)) ?? statements.all.all(after, limit);
      if (rows.length === limit) readAhead.readAhead(rows[rows.length - 1]![0], limit);
      return rows.map(decodeColumns);
    },

    async readChain(options: ReadAllOptions = {}) {
      assertOpen();
      return statements.chain.all(options.after ?? 0, options.limit ?? -1).map(chainedEvent);
    },

    async readChainRests(after, limit) {
      assertOpen();
      return statements.chainRests.all(after, limit);
    },

    async streamVersion(stream) {
      assertOpen();
      return readStreamVersion(stream);
    },

    async longStreams(events) {
      assertOpen();
      return statements.longStreams.all(events);
    },

    async headPosition() {
      assertOpen();
      return readHead();
    },

    async close() {
      if (closed) return;
      await settled();
      closed = true;
      clearInterval(poll);
      appended.complete();
      await appender.close();
      await readAhead?.close();
      db.close();
    },
  };
}
