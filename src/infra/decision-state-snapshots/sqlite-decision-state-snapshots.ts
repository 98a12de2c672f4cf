// Decision-state snapshots (the states commands decide on) in a small SQLite file of their own
// (`states.sqlite` beside the log), one row per stream (the latest snapshot replaces the one before),
// written by the serving process's states adapter (infra/stream-states) and by its snapshot builder's
// worker (worker-snapshot-builder.ts), each through a connection of its own (the later save wins). Derived
// data, deletable: `synchronous = NORMAL` (a power loss may take back the last snapshots), a short busy
// timeout (a writer holding the file too long makes one save fail, logged, not wait), a row that does not
// decode is read as no snapshot, a file of another layout is emptied, and a file that is not a readable
// database (at the start or later) is deleted and created again (one that cannot be opened at all: no
// snapshots for the run, logged).
// A body is the snapshot as JSON, deflated (raw deflate, level 1, on libuv's thread pool, as
// snapshots.sqlite does): a smaller upsert holds the serving thread less (docs/benchmarks.md). Saves are
// stored in the order they were asked for.
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw, constants as zlib } from 'node:zlib';
import type { DecisionStateSnapshot } from '../../domain/resource-state.js';
import type { StoredSnapshotHead, DecisionStateSnapshots } from '../../ports/decision-state-snapshots.js';
import { isCorruption, openDerivedDatabase, removeDatabaseFiles } from '../derived-database-files.js';
import type { Log } from '../log.js';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/**
 * `PRAGMA user_version` of the current layout; a file of another layout is emptied (derived data).
 * 2: the stream's version, state format and last event id in columns of their own (the snapshot builder
 * tells a snapshot that can serve without inflating it).
 */
const LAYOUT_VERSION = 2;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS stream_states (
    stream  TEXT    PRIMARY KEY,
    version INTEGER NOT NULL,
    format  INTEGER NOT NULL,
    last_event_id TEXT NOT NULL,
    body    BLOB    NOT NULL
  ) WITHOUT ROWID;
`;

/**
 * The snapshots of `path`. A file that is not a readable database, at the start or found corrupt by a
 * read or a write, is deleted and created again (that call still fails: the command folds without it);
 * one that cannot be opened at all gives way to no snapshots for the run.
 */
export function openSqliteDecisionStateSnapshots(path: string, log: Log): DecisionStateSnapshots {
  let file = openOrRecreate(path, log);
  const recoverable = async <T>(task: (file: DecisionStateSnapshots) => Promise<T>): Promise<T> => {
    try {
      return await task(file);
    } catch (error) {
      if (!isCorruption(error)) throw error;
      log.warn('states.sqlite is corrupt: deleted and created again', { path, error: String(error) });
      await file.close();
      removeDatabaseFiles(path);
      file = openOrRecreate(path, log);
      throw error;
    }
  };
  return {
    latest: (stream) => recoverable((current) => current.latest(stream)),
    save: (snapshot) => recoverable((current) => current.save(snapshot)),
    storedHead: (stream) => recoverable((current) => current.storedHead(stream)),
    close: () => file.close(),
  };
}

function openOrRecreate(path: string, log: Log): DecisionStateSnapshots {
  try {
    return openStreamSnapshots(path);
  } catch (error) {
    if (isCorruption(error)) {
      log.warn('states.sqlite is not a readable database: deleted and created again', { path, error: String(error) });
      removeDatabaseFiles(path);
      return openStreamSnapshots(path);
    }
    log.warn('states.sqlite cannot be opened: no stream state is snapshotted in this run', { path, error: String(error) });
    return NO_SNAPSHOTS;
  }
}

/** Where the file cannot be opened (a read-only volume): snapshots in memory would hold as much as the states they spare. */
const NO_SNAPSHOTS: DecisionStateSnapshots = {
  latest: async () => null,
  save: async () => undefined,
  storedHead: async () => null,
  close: async () => undefined,
};

function openStreamSnapshots(path: string): DecisionStateSnapshots {
  const db = openDerivedDatabase(path, { version: LAYOUT_VERSION, tables: ['stream_states'], schema: SCHEMA });
  const upsert = db.prepare<[string, number, number, string, Buffer]>(
    `INSERT INTO stream_states (stream, version, format, last_event_id, body) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (stream) DO UPDATE SET version = excluded.version, format = excluded.format, last_event_id = excluded.last_event_id, body = excluded.body`,
  );
  const select = db.prepare<[string], Buffer>('SELECT body FROM stream_states WHERE stream = ?').pluck();
  const selectHead = db.prepare<[string], StoredSnapshotHead>('SELECT stream, version, format, last_event_id AS lastEventId FROM stream_states WHERE stream = ?');
  /** The saves asked for so far, stored one after the other. */
  let writes: Promise<unknown> = Promise.resolve();
  return {
    async latest(stream) {
      const body = select.get(stream);
      if (body === undefined) return null;
      try {
        return JSON.parse((await inflate(body)).toString('utf8')) as DecisionStateSnapshot;
      } catch {
        return null;
      }
    },
    save(snapshot) {
      const body = deflate(JSON.stringify(snapshot), { level: zlib.Z_BEST_SPEED });
      const stored = writes.then(async () => void upsert.run(snapshot.stream, snapshot.version, snapshot.format, snapshot.lastEventId, await body));
      writes = stored.catch(() => undefined);
      return stored;
    },
    async storedHead(stream) {
      return selectHead.get(stream) ?? null;
    },
    async close() {
      await writes;
      if (db.open) db.close();
    },
  };
}

/** The same in memory (tests, an in-memory log): each snapshot kept as its JSON text, as the file would. */
export function memoryDecisionStateSnapshots(): DecisionStateSnapshots {
  const bodies = new Map<string, string>();
  const latest = async (stream: string) => {
    const body = bodies.get(stream);
    return body === undefined ? null : (JSON.parse(body) as DecisionStateSnapshot);
  };
  return {
    latest,
    async storedHead(stream) {
      const snapshot = await latest(stream);
      return snapshot && { stream: snapshot.stream, version: snapshot.version, format: snapshot.format, lastEventId: snapshot.lastEventId };
    },
    async save(snapshot) {
      bodies.set(snapshot.stream, JSON.stringify(snapshot));
    },
    async close() {},
  };
}
