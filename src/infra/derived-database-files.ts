// Helpers for the SQLite files of derived data beside the log (snapshots.sqlite, states.sqlite): a file
// that is not a readable database is deleted and created again rather than stopping the server.
import { rmSync } from 'node:fs';

/** Whether better-sqlite3 failed because the file is corrupt or not a database. */
export function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT_'));
}

/** Deletes a database file with its WAL and shared-memory files. */
export function removeDatabaseFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
}
