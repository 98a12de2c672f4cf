// The SQLite files of derived data beside the log (snapshots.sqlite, states.sqlite): opened alike, emptied
// when of another layout, and a file that is not a readable database is deleted and created again rather
// than stopping the server.
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';

/** What a derived file holds: its tables, created by `schema`, in the layout numbered `version`. */
export interface DerivedLayout {
  /** `PRAGMA user_version` of the layout; a file of another one has `tables` dropped first. */
  version: number;
  tables: readonly string[];
  schema: string;
}

/**
 * Opens a file of derived data: WAL (`:memory:` aside), `synchronous = NORMAL` (a power loss may take
 * back the last commits: derived data is taken again), a short busy timeout (a writer never holds the
 * serving thread long), and the tables of `layout`, emptied when the file was of another layout.
 */
export function openDerivedDatabase(path: string, layout: DerivedLayout): Database.Database {
  const db = new Database(path);
  try {
    if (path !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 250');
    if (db.pragma('user_version', { simple: true }) !== layout.version) {
      for (const table of layout.tables) db.exec(`DROP TABLE IF EXISTS ${table}`);
      db.pragma(`user_version = ${layout.version}`);
    }
    db.exec(layout.schema);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Whether better-sqlite3 failed because the file is corrupt or not a database. */
export function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT_'));
}

/** Deletes a database file with its WAL and shared-memory files. */
export function removeDatabaseFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
}
