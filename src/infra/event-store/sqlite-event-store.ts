// The embedded event store: one SQLite file (better-sqlite3), one table, WAL, synchronous=FULL.
//
// Writes use group commit: every append requested before the queue is flushed (the flush runs on
// setImmediate, so everything requested in the same turn of the event loop) is committed in ONE
// transaction, i.e. one fsync for the whole batch. Each append runs in its own savepoint and checks its
// own expected version, so one failing append rejects alone. A promise resolves only after COMMIT has
// returned, which with synchronous=FULL means the WAL was synced.
//
// Positions are assigned explicitly (head + 1) inside the write transaction, which is serialised by
// SQLite's write lock (BEGIN IMMEDIATE), so they are gap-free and monotonic even with several processes
// appending to the same file.
//
// Each row carries its hash in its stream's chain (column `hash`, computed by the codec's chainHash while
// the append holds the write lock); logs written before the column existed are chained once at open
// (sqlite-hash-chain.ts).
import Database from 'better-sqlite3';
import { Subject } from 'rxjs';
import type { NewEvent } from '../../domain/events.js';
import { GENESIS_HASH, chainHash, decodeStoredColumns, encodeEvent } from '../event-codec.js';
import { assertValidAppend } from './append-validation.js';
import { CHAIN_RESTS_SQL, upgradeToHashChain, type ChainRestRow } from './sqlite-hash-chain.js';
import { bulkAppender, type EncodedStreamEvent } from './sqlite-bulk-append.js';
import { WrongExpectedVersion, eventId } from '../../ports/event-store.js';
import { SqliteReadAhead, type EventColumns } from './sqlite-read-ahead.js';
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
   * `storyline import` filling a fresh log under its unfinished-import mark (which makes every command
   * refuse the directory until removed): commits are not synced and the page cache is large; the import
   * syncs the file after close, then removes the mark.
   */
  bulkLoad?: boolean;
}

/** The page cache of a bulk load (KiB): the id and (stream, version) indexes of a million events stay in memory. */
const BULK_LOAD_CACHE_KIB = 256 * 1024;

export type SqliteEventStore = EventStore & {
  close(): Promise<void>;
  /** Events written before the hash chain existed that this open chained (0 once upgraded). */
  readonly chainedOnOpen: number;
  /** `storyline verify`'s read: the ChainRestRows after `after` (the database writes each event's hashed text). */
  readChainRests(after: number, limit: number): Promise<ChainRestRow[]>;
  /** `storyline import`'s batches: encoded events continuing their streams, one transaction (sqlite-bulk-append.ts). */
  appendEncoded(events: readonly EncodedStreamEvent[]): Promise<void>;
};

const SCHEMA = `
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

type ChainColumns = [number, string, number, string, string, string, string];
const chainedEvent = (row: ChainColumns): ChainedEvent => ({
  position: row[0], stream: row[1], version: row[2], type: row[3], data: row[4], meta: row[5], hash: row[6],
});

const decodeColumns = (row: EventColumns) => decodeStoredColumns(row[0], row[1], row[2], row[3], row[4], row[5], row[6]);

interface PendingAppend {
  stream: string;
  expectedVersion: ExpectedVersion;
  events: NewEvent[];
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

type AppendOutcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };

export async function openSqliteEventStore(options: SqliteEventStoreOptions): Promise<SqliteEventStore> {
  const db = new Database(options.path);
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
  db.pragma('journal_mode = WAL');
  db.pragma(options.bulkLoad ? 'synchronous = OFF' : 'synchronous = FULL');
  if (options.bulkLoad) db.pragma(`cache_size = -${BULK_LOAD_CACHE_KIB}`);
  db.exec(SCHEMA);
  const chainedOnOpen = upgradeToHashChain(db);

  const statements = {
    head: db.prepare<[], { head: number | null }>('SELECT MAX(position) AS head FROM events'),
    streamVersion: db.prepare<[string], { version: number }>(
      'SELECT version FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1',
    ),
    streamHead: db.prepare<[string], { version: number; hash: string | null }>(
      'SELECT version, hash FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1',
    ),
    byId: db.prepare<[string], { version: number; position: number }>(
      'SELECT version, position FROM events WHERE id = ?',
    ),
    insert: db.prepare<[number, string, string, number, string, string, string, string]>(
      `INSERT INTO events (${COLUMNS}, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
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
  };
  for (const reader of [statements.forwards, statements.backwards, statements.all, statements.chain, statements.chainRests]) reader.raw(true);

  const readHead = (): number => statements.head.get()?.head ?? 0;
  const readStreamVersion = (stream: string): number => statements.streamVersion.get(stream)?.version ?? 0;

  /** The result of an earlier append by the same command, found through its deterministic event ids. */
  function earlierResult(commandId: string): AppendResult | null {
    let found: AppendResult | null = null;
    for (let index = 0; ; index++) {
      const row = statements.byId.get(eventId(commandId, index));
      if (!row) return found;
      found = { version: row.version, position: row.position };
    }
  }

  /** Writes one append after global position `head`, inside the open batch transaction. */
  const writeOne = db.transaction((request: PendingAppend, head: number): AppendResult => {
    const commandId = request.events[0]!.meta.command_id;
    const earlier = earlierResult(commandId);
    if (earlier) return earlier;
    const streamHead = statements.streamHead.get(request.stream);
    const actual = streamHead?.version ?? 0;
    if (streamHead && streamHead.hash === null) throw new Error(`${request.stream}@${actual} has no chain hash`);
    let previousHash = streamHead?.hash ?? GENESIS_HASH;
    if (request.expectedVersion !== 'any' && request.expectedVersion !== actual) {
      throw new WrongExpectedVersion(request.stream, request.expectedVersion, actual);
    }
    request.events.forEach((event, index) => {
      const encoded = encodeEvent(event);
      const version = actual + index + 1;
      previousHash = chainHash(previousHash, request.stream, version, encoded);
      statements.insert.run(
        head + index + 1,
        eventId(event.meta.command_id, index),
        request.stream,
        version,
        encoded.type,
        encoded.data,
        encoded.meta,
        previousHash,
      );
    });
    return { version: actual + request.events.length, position: head + request.events.length };
  });

  /** One transaction for the whole batch; each append in its own savepoint (nested db.transaction). */
  const writeBatch = db
    .transaction((batch: PendingAppend[]): AppendOutcome[] => {
      let head = readHead();
      return batch.map((request) => {
        try {
          const result = writeOne(request, head);
          head = Math.max(head, result.position);
          return { ok: true, result };
        } catch (error) {
          return { ok: false, error };
        }
      });
    })
    .immediate;

  const writeEncoded = bulkAppender(db);

  const readAhead = options.path === ':memory:' ? null : new SqliteReadAhead(options.path);

  const appended = new Subject<number>();
  let lastAnnouncedHead = readHead();
  function announce(head: number): void {
    if (head <= lastAnnouncedHead) return;
    lastAnnouncedHead = head;
    appended.next(head);
  }

  let queue: PendingAppend[] = [];
  let flushScheduled = false;
  let closed = false;

  function flush(): void {
    flushScheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    let outcomes: AppendOutcome[];
    try {
      outcomes = writeBatch(batch);
    } catch (error) {
      // The commit itself failed (disk, lock timeout): nothing of the batch is durable.
      for (const request of batch) request.reject(asStorageFailure(error));
      return;
    }
    batch.forEach((request, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) request.resolve(outcome.result);
      else request.reject(asStorageFailure(outcome.error));
    });
    announce(readHead());
  }

  const poll = setInterval(() => {
    if (!closed) announce(readHead());
  }, options.pollIntervalMs ?? 250);
  poll.unref();

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
        queue.push({ stream, expectedVersion, events, resolve, reject });
        if (!flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
      });
    },

    async appendEncoded(events) {
      assertOpen();
      flush();
      writeEncoded(events);
      announce(readHead());
    },

    async readStream(stream, options: ReadStreamOptions = {}) {
      assertOpen();
      const limit = options.limit ?? -1;
      const rows =
        options.direction === 'backwards'
          ? statements.backwards.all(stream, options.from ?? Number.MAX_SAFE_INTEGER, limit)
          : statements.forwards.all(stream, options.from ?? 1, limit);
      return rows.map(decodeColumns);
    },

    async readAll(options: ReadAllOptions = {}) {
      assertOpen();
      const after = options.after ?? 0;
      const limit = options.limit ?? -1;
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

    async headPosition() {
      assertOpen();
      return readHead();
    },

    async close() {
      if (closed) return;
      flush();
      closed = true;
      clearInterval(poll);
      appended.complete();
      await readAhead?.close();
      db.close();
    },
  };
}
