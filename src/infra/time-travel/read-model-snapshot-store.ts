// Read-model snapshots, for time travel: persisted snapshots of project folds (`snapshots.sqlite` beside
// the log): one projection of one project folded up to one version, stored so that a process that never
// folded the project starts a fold from the nearest snapshot at or below the version asked instead of
// from the first event.
//
// - Derived data, like readmodels.sqlite: written by the project-snapshots reaction, deletable. A missing
//   file is created empty; a file that is not a readable database (or turns out corrupt while it is
//   read) is deleted and created again, logged; a snapshot whose body does not decode is dropped. None of
//   this reaches a client: a fold without a snapshot starts from the first event, as before snapshots.
//   Where the file cannot be opened at all (a read-only volume) the snapshots live in memory instead
//   (taken in the snapshot worker, they then serve only its own folds: requests fold from the first event).
// - One connection writes the file (the snapshot worker's, or the serving thread's for a log that the
//   worker cannot reach); the serving thread reads the worker's through openReadModelSnapshotReader.
// - Keyed by (project, projection name, projection version, project version): a projection whose
//   version changes never reads the snapshots of its earlier version, and they are deleted when the
//   reaction starts over for the new one (`progress`). Each carries the hash of the stream's event at its
//   version, which chains every event before it: a fold uses a snapshot only when the log still holds
//   that event (a log restored from another backup never serves the snapshots of the one it replaced).
// - A snapshot that cannot serve (its body does not decode, its event is not in the log) is discarded
//   and the reaction's progress moved back before it, so the next start takes it again.
// - A body is the fold's collections (physical names, the runner's checkpoint included) as JSON,
//   deflated (raw deflate, level 1: about a tenth of the size, and inflating costs far less than the
//   JSON.parse it precedes; figures in docs/benchmarks.md). Compression runs on libuv's thread pool, off
//   the event loop.
// - `synchronous = NORMAL`: a power loss may take back the last commits (snapshots, then the progress
//   row written after them); the worst case is a missing snapshot (a longer fold), never a wrong one.
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw, constants as zlib } from 'node:zlib';
import Database from 'better-sqlite3';
import type { Doc } from '../../ports/read-store.js';
import { isCorruption, openDerivedDatabase, removeDatabaseFiles } from '../derived-database-files.js';
import { silentLog, type Log } from '../log.js';

/** A projection as snapshots are keyed: its name and code version. */
export interface ProjectionKey {
  readonly name: string;
  readonly version: number;
}

/** One projection of one project folded up to `version` (the stream's event at global `position`). */
export interface ProjectSnapshot {
  readonly version: number;
  readonly position: number;
  /** The hash of that event in the log's hash chain. */
  readonly hash: string;
  /** Every collection of the fold's read store by physical name, the runner's checkpoints included. */
  readonly collections: Readonly<Record<string, readonly Doc[]>>;
}

/** What a fold reads of the snapshots: the nearest one, and discarding one that cannot serve. */
export type ReadModelSnapshotSource = Pick<ReadModelSnapshotStore, 'nearest' | 'discard'>;

export interface ReadModelSnapshotStore {
  /** The snapshot of the project's projection at the highest version at or below `atOrBelow`; null when none is readable. */
  nearest(projectId: number, projection: ProjectionKey, atOrBelow: number): Promise<ProjectSnapshot | null>;
  /** Stores (or replaces) one snapshot. */
  put(projectId: number, projection: ProjectionKey, snapshot: ProjectSnapshot): Promise<void>;
  /** Deletes a snapshot that cannot serve and moves the projection's progress back before it (taken again at the next start); never throws. */
  discard(projectId: number, projection: ProjectionKey, snapshot: Pick<ProjectSnapshot, 'version' | 'position'>): Promise<void>;
  /**
   * The log position up to which every snapshot of this projection version is taken (0 when none is:
   * a new file, a new projection version, whose earlier versions' snapshots are deleted here).
   */
  progress(projection: ProjectionKey): Promise<number>;
  /**
   * Records that the projections' snapshots are taken up to `position` (never moves a progress back; a
   * projection progress() has not started since the file was (re)created is left at none).
   */
  recordProgress(projections: readonly ProjectionKey[], position: number): Promise<void>;
  /** Bytes of the stored bodies (benchmarks, operators). */
  storedBytes(): Promise<number>;
  close(): Promise<void>;
}

/** `PRAGMA user_version` of the current layout; a file of another layout is emptied (derived data). */
const SCHEMA_VERSION = 1;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS snapshots (
    project_id         INTEGER NOT NULL,
    projection         TEXT    NOT NULL,
    projection_version INTEGER NOT NULL,
    version            INTEGER NOT NULL,
    position           INTEGER NOT NULL,
    hash               TEXT    NOT NULL,
    body               BLOB    NOT NULL,
    PRIMARY KEY (project_id, projection, projection_version, version)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS snapshot_progress (
    projection         TEXT    PRIMARY KEY,
    projection_version INTEGER NOT NULL,
    position           INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

export async function encodeSnapshotBody(collections: ProjectSnapshot['collections']): Promise<Buffer> {
  return deflate(JSON.stringify(collections), { level: zlib.Z_BEST_SPEED });
}

export async function decodeSnapshotBody(body: Buffer): Promise<ProjectSnapshot['collections']> {
  const collections: unknown = JSON.parse((await inflate(body)).toString('utf8'));
  if (typeof collections !== 'object' || collections === null || Array.isArray(collections)) throw new Error('a snapshot body is an object of collections');
  for (const docs of Object.values(collections)) if (!Array.isArray(docs)) throw new Error('a snapshot collection is an array of documents');
  return collections as ProjectSnapshot['collections'];
}

interface StoredRow {
  version: number;
  position: number;
  hash: string;
  body: Buffer;
}

const NEAREST_SQL = `SELECT version, position, hash, body FROM snapshots
  WHERE project_id = ? AND projection = ? AND projection_version = ? AND version <= ? ORDER BY version DESC LIMIT 1`;

interface Statements {
  nearest: Database.Statement<[number, string, number, number], StoredRow>;
  put: Database.Statement<[number, string, number, number, number, string, Buffer]>;
  drop: Database.Statement<[number, string, number, number]>;
  progress: Database.Statement<[string], { projection_version: number; position: number }>;
  dropVersionsBut: Database.Statement<[string, number]>;
  recordProgress: Database.Statement<[number, string, number]>;
  resetProgress: Database.Statement<[string, number]>;
  rewindProgress: Database.Statement<[number, string, number]>;
  bytes: Database.Statement<[], number | null>;
}

function openDatabase(path: string): { db: Database.Database; statements: Statements } {
  const db = openDerivedDatabase(path, { version: SCHEMA_VERSION, tables: ['snapshots', 'snapshot_progress'], schema: SCHEMA });
  try {
    const statements: Statements = {
      nearest: db.prepare(NEAREST_SQL),
      put: db.prepare(`INSERT OR REPLACE INTO snapshots (project_id, projection, projection_version, version, position, hash, body) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      drop: db.prepare('DELETE FROM snapshots WHERE project_id = ? AND projection = ? AND projection_version = ? AND version = ?'),
      progress: db.prepare('SELECT projection_version, position FROM snapshot_progress WHERE projection = ?'),
      dropVersionsBut: db.prepare('DELETE FROM snapshots WHERE projection = ? AND projection_version <> ?'),
      // An UPDATE, never an insert: after the file was recreated there is no row until progress() starts
      // the projection at 0 again, so a progress recorded meanwhile cannot claim the snapshots lost with it.
      recordProgress: db.prepare('UPDATE snapshot_progress SET position = max(position, ?) WHERE projection = ? AND projection_version = ?'),
      resetProgress: db.prepare('INSERT OR REPLACE INTO snapshot_progress (projection, projection_version, position) VALUES (?, ?, 0)'),
      rewindProgress: db.prepare('UPDATE snapshot_progress SET position = min(position, ?) WHERE projection = ? AND projection_version = ?'),
      bytes: db.prepare<[], number | null>('SELECT sum(length(body)) FROM snapshots').pluck(),
    };
    return { db, statements };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The snapshot store in `path` (`:memory:` in tests and memory-only servers). */
export function openSqliteReadModelSnapshotStore(path: string, log: Log = silentLog): ReadModelSnapshotStore {
  let current = openOrRecreate(path, log);

  /** After corruption: the file is deleted and created empty (every snapshot is derived data). */
  function recreate(error: unknown): void {
    log.warn('snapshots.sqlite is corrupt: deleted and created again (time travel folds from the first event until snapshots are taken again)', { path, error: String(error) });
    if (current.db.open) current.db.close();
    if (path !== ':memory:') removeDatabaseFiles(path);
    current = openOrRecreate(path, log);
  }

  /** Runs a statement; corruption recreates the file before the error goes on. */
  function run<T>(task: (statements: Statements) => T): T {
    try {
      return task(current.statements);
    } catch (error) {
      if (isCorruption(error)) recreate(error);
      throw error;
    }
  }

  /** Best effort: a file recreated meanwhile or unwritable has nothing left to discard, and a request must not fail for it. */
  function discard(projectId: number, projection: ProjectionKey, { version, position }: Pick<ProjectSnapshot, 'version' | 'position'>): void {
    try {
      run((statements) => {
        statements.drop.run(projectId, projection.name, projection.version, version);
        statements.rewindProgress.run(position - 1, projection.name, projection.version);
      });
    } catch (error) {
      log.warn('a snapshot could not be discarded', { projectId, projection: projection.name, version, error: String(error) });
    }
  }

  return {
    async nearest(projectId, projection, atOrBelow) {
      let row: StoredRow | undefined;
      try {
        row = run((statements) => statements.nearest.get(projectId, projection.name, projection.version, atOrBelow));
      } catch (error) {
        log.warn('a snapshot could not be read: folding without it', { projectId, projection: projection.name, error: String(error) });
        return null;
      }
      return row ? decodedOrDiscarded(row, projectId, projection, log, async (snapshot) => discard(projectId, projection, snapshot)) : null;
    },
    async put(projectId, projection, snapshot) {
      const body = await encodeSnapshotBody(snapshot.collections);
      run((statements) => statements.put.run(projectId, projection.name, projection.version, snapshot.version, snapshot.position, snapshot.hash, body));
    },
    async discard(projectId, projection, snapshot) {
      discard(projectId, projection, snapshot);
    },
    async progress(projection) {
      return run((statements) => {
        const stored = statements.progress.get(projection.name);
        if (stored?.projection_version === projection.version) return stored.position;
        statements.dropVersionsBut.run(projection.name, projection.version);
        statements.resetProgress.run(projection.name, projection.version);
        return 0;
      });
    },
    async recordProgress(projections, position) {
      run((statements) => current.db.transaction(() => {
        for (const projection of projections) statements.recordProgress.run(position, projection.name, projection.version);
      })());
    },
    async storedBytes() {
      return run((statements) => statements.bytes.get()) ?? 0;
    },
    async close() {
      if (current.db.open) current.db.close();
    },
  };
}

/** The stored row as a snapshot; one whose body does not decode is discarded (`discard`) and gives null. */
async function decodedOrDiscarded(
  row: StoredRow,
  projectId: number,
  projection: ProjectionKey,
  log: Log,
  discard: (snapshot: Pick<ProjectSnapshot, 'version' | 'position'>) => Promise<void>,
): Promise<ProjectSnapshot | null> {
  try {
    return { version: row.version, position: row.position, hash: row.hash, collections: await decodeSnapshotBody(row.body) };
  } catch (error) {
    log.warn('a snapshot does not decode: discarded, folding without it', { projectId, projection: projection.name, version: row.version, error: String(error) });
    await discard(row);
    return null;
  }
}

/**
 * Reads the snapshots that another connection writes (the snapshot worker's, snapshot-placement.ts):
 * read-only, so that one connection alone writes the file. Opened on first use once the file exists,
 * and again after any error (the writer may have deleted and recreated a corrupt file); an error reads
 * as "no snapshot" (the fold starts from the first event). Discarding is the writer's: `discard` hands
 * it over.
 */
export function openReadModelSnapshotReader(path: string, discard: ReadModelSnapshotSource['discard'], log: Log = silentLog): ReadModelSnapshotSource & { close(): Promise<void> } {
  let open: { db: Database.Database; nearest: Database.Statement<[number, string, number, number], StoredRow> } | null = null;

  function nearestStatement() {
    if (!open) {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        db.pragma('busy_timeout = 250');
        open = { db, nearest: db.prepare<[number, string, number, number], StoredRow>(NEAREST_SQL) };
      } catch (error) {
        db.close();
        throw error;
      }
    }
    return open.nearest;
  }

  function close(): void {
    if (open?.db.open) open.db.close();
    open = null;
  }

  return {
    async nearest(projectId, projection, atOrBelow) {
      let row: StoredRow | undefined;
      try {
        row = nearestStatement().get(projectId, projection.name, projection.version, atOrBelow);
      } catch (error) {
        // Before the writer first created the file this is expected; anything else is worth a line.
        if ((error as { code?: unknown }).code !== 'SQLITE_CANTOPEN') log.warn('a snapshot could not be read: folding without it', { projectId, projection: projection.name, error: String(error) });
        close();
        return null;
      }
      return row ? decodedOrDiscarded(row, projectId, projection, log, (snapshot) => discard(projectId, projection, snapshot)) : null;
    },
    discard,
    async close() {
      close();
    },
  };
}

/**
 * Opens the file; one that is not a database is deleted and created again; one that cannot be opened
 * at all (a read-only volume, a directory in its place) gives way to a store in memory.
 */
function openOrRecreate(path: string, log: Log): { db: Database.Database; statements: Statements } {
  try {
    return openDatabase(path);
  } catch (error) {
    if (path === ':memory:') throw error;
    if (isCorruption(error)) {
      log.warn('snapshots.sqlite is not a readable database: deleted and created again', { path, error: String(error) });
      removeDatabaseFiles(path);
      try {
        return openDatabase(path);
      } catch (again) {
        error = again;
      }
    }
    log.warn('snapshots.sqlite cannot be opened: snapshots are kept in memory for this run', { path, error: String(error) });
    return openDatabase(':memory:');
  }
}
