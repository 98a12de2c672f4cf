// The write transaction of the embedded event store: a batch of appends (group commit) committed as ONE
// transaction, i.e. one fsync with synchronous=FULL. Each append runs in its own savepoint and checks its
// own expected version, so one failing append fails alone; a retried command (same command id, so the
// same event ids) is answered with its first result instead of being written twice.
//
// Positions are assigned explicitly (head + 1) inside the transaction, which holds SQLite's write lock
// (BEGIN IMMEDIATE), so they are gap-free and monotonic even with several processes on one file. Each
// row carries its hash in its stream's chain, computed here by the codec's chainHash.
//
// Everything that crosses into and out of this module is plain data (strings, numbers), so the same
// transaction runs in the append worker (a thread of its own: sqlite-append-worker.ts) or, for an
// in-memory database, on the caller's thread.
import type Database from 'better-sqlite3';
import { GENESIS_HASH, chainHash, type EncodedEvent } from '../event-codec.js';
import { WrongExpectedVersion, eventId, type AppendResult, type ExpectedVersion } from '../../ports/event-store.js';

/** An event of an append, already encoded as stored, with the id of the command that decided it. */
export interface EncodedAppendEvent extends EncodedEvent {
  commandId: string;
}

export interface AppendRequest {
  stream: string;
  expectedVersion: ExpectedVersion;
  events: EncodedAppendEvent[];
}

/** Why an append (or a whole batch) was not written, as data that survives a thread boundary. */
export type AppendFailure =
  | { kind: 'wrong_expected_version'; stream: string; expected: ExpectedVersion; actual: number }
  | { kind: 'failure'; message: string; code?: string };

/**
 * One append's outcome. `writtenIds`: the ids of the events this batch wrote for it, in order (empty
 * when the command had been appended before and its earlier result is the answer).
 */
export type AppendOutcome = { ok: true; result: AppendResult; writtenIds: string[] } | { ok: false; failure: AppendFailure };

/** The outcome of one batch: each append's, or the failure of the commit itself (nothing written). */
export type BatchOutcome = { committed: true; outcomes: AppendOutcome[] } | { committed: false; failure: AppendFailure };

/** The thrown value as data: a version conflict, or an error with its message and SQLite/system code. */
export function appendFailure(thrown: unknown): AppendFailure {
  if (thrown instanceof WrongExpectedVersion) {
    return { kind: 'wrong_expected_version', stream: thrown.stream, expected: thrown.expected, actual: thrown.actual };
  }
  const code = (thrown as { code?: unknown } | null)?.code;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return typeof code === 'string' ? { kind: 'failure', message, code } : { kind: 'failure', message };
}

/** The error a failure stands for, rebuilt on the caller's side (the code kept for storage-failure mapping). */
export function appendError(failure: AppendFailure): Error {
  if (failure.kind === 'wrong_expected_version') return new WrongExpectedVersion(failure.stream, failure.expected, failure.actual);
  const error = new Error(failure.message) as Error & { code?: string };
  if (failure.code !== undefined) error.code = failure.code;
  return error;
}

/** The batch writer over `db` (WAL, synchronous=FULL, the events table in place). */
export function batchAppender(db: Database.Database): (batch: readonly AppendRequest[]) => BatchOutcome {
  const statements = {
    head: db.prepare<[], number | null>('SELECT MAX(position) FROM events').pluck(true),
    streamHead: db.prepare<[string], { version: number; hash: string | null }>(
      'SELECT version, hash FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1',
    ),
    byId: db.prepare<[string], { version: number; position: number }>('SELECT version, position FROM events WHERE id = ?'),
    insert: db.prepare<[number, string, string, number, string, string, string, string]>(
      'INSERT INTO events (position, id, stream, version, type, data, meta, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
  };

  /** The result of an earlier append by the same command, found through its deterministic event ids. */
  function earlierResult(ids: readonly string[]): AppendResult | null {
    let found: AppendResult | null = null;
    for (const id of ids) {
      const row = statements.byId.get(id);
      if (!row) return found;
      found = { version: row.version, position: row.position };
    }
    return found;
  }

  /** Writes one append after global position `head`, in a savepoint of the batch transaction. */
  const writeOne = db.transaction((request: AppendRequest, head: number): { result: AppendResult; writtenIds: string[] } => {
    const ids = request.events.map((event, index) => eventId(event.commandId, index));
    const earlier = earlierResult(ids);
    if (earlier) return { result: earlier, writtenIds: [] };
    const streamHead = statements.streamHead.get(request.stream);
    const actual = streamHead?.version ?? 0;
    if (streamHead && streamHead.hash === null) throw new Error(`${request.stream}@${actual} has no chain hash`);
    if (request.expectedVersion !== 'any' && request.expectedVersion !== actual) {
      throw new WrongExpectedVersion(request.stream, request.expectedVersion, actual);
    }
    let previousHash = streamHead?.hash ?? GENESIS_HASH;
    request.events.forEach((event, index) => {
      const version = actual + index + 1;
      previousHash = chainHash(previousHash, request.stream, version, event);
      statements.insert.run(head + index + 1, ids[index]!, request.stream, version, event.type, event.data, event.meta, previousHash);
    });
    return { result: { version: actual + request.events.length, position: head + request.events.length }, writtenIds: ids };
  });

  const writeBatch = db.transaction((batch: readonly AppendRequest[]): AppendOutcome[] => {
    let head = statements.head.get() ?? 0;
    return batch.map((request): AppendOutcome => {
      try {
        const { result, writtenIds } = writeOne(request, head);
        head = Math.max(head, result.position);
        return { ok: true, result, writtenIds };
      } catch (error) {
        return { ok: false, failure: appendFailure(error) };
      }
    });
  }).immediate;

  return (batch) => {
    try {
      return { committed: true, outcomes: writeBatch(batch) };
    } catch (error) {
      // The commit itself failed (disk full, read-only file, lock timeout): nothing of the batch is stored.
      return { committed: false, failure: appendFailure(error) };
    }
  };
}
