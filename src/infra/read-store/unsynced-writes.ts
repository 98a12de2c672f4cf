// The read-models file is written without syncing (synchronous=OFF), and this is what keeps that safe.
//
// Why: with synchronous=NORMAL every WAL checkpoint syncs the file, and on this machine's disk those
// syncs held up the serving thread's own writes even when another thread ran the checkpoint (the
// projector's commits waited on I/O). The file is derived data: anything lost can be built again from
// the event log.
//
// What can go wrong without syncs, and what is done about it:
// - The process dies (SIGKILL, a crash): nothing is lost. What was written sits in the operating
//   system's cache, which writes it out; the next start catches up from the checkpoints as before.
// - The operating system stops while the file is open (power loss, kernel crash): the file may be torn.
//   Each store that opens the file records a mark (its process id and the boot id of the running
//   kernel, written with a sync) and removes it on a clean close, after syncing everything. A file that holds the mark of an earlier boot was open when the system went down: it is
//   deleted and built again from the log, as when it is missing.
// - Marks of processes of this boot that died without closing are removed by the next opener.
// Without a boot id (no /proc/sys/kernel/random/boot_id: not Linux), the file is written as before,
// with synchronous=NORMAL.
import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, rmSync } from 'node:fs';
import type Database from 'better-sqlite3';

const MARK_PREFIX = 'open:';

/** SQLite's answers for a file whose content cannot be read as a database. */
const UNREADABLE: ReadonlySet<string> = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB']);

/** The running kernel's boot id, or null where the system does not tell it. */
export function currentBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the file at `db` may be torn: it holds the mark of a process of an earlier boot, or it cannot
 * be read at all. Removes the marks of this boot's processes that are gone.
 */
export function tornByRestart(db: Database.Database, bootId: string): boolean {
  let marks: Array<{ key: string; value: string }>;
  try {
    const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_store_meta'").get() !== undefined;
    if (!hasMeta) return false;
    marks = db.prepare('SELECT key, value FROM _store_meta WHERE key LIKE ?').all(`${MARK_PREFIX}%`) as Array<{ key: string; value: string }>;
  } catch (error) {
    // Unreadable: torn, or not a database at all. Anything else (a lock held too long) is not a reason to delete it.
    if (UNREADABLE.has((error as { code?: unknown }).code as string)) return true;
    throw error;
  }
  if (marks.some((mark) => mark.value !== bootId)) return true;
  const gone = marks.filter((mark) => !isAlive(Number(mark.key.slice(MARK_PREFIX.length).split(':')[0])));
  if (gone.length > 0) {
    const remove = db.prepare('DELETE FROM _store_meta WHERE key = ?');
    db.transaction(() => {
      for (const mark of gone) remove.run(mark.key);
    })();
  }
  return false;
}

/** Deletes the database file and its WAL and shared-memory files. */
export function deleteDatabaseFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** One open store's mark in the file: removed by its clean close. */
export interface OpenMark {
  readonly key: string;
}

/** Records this store's mark (synced), then lets the connection write without syncing. */
export function startUnsyncedWrites(db: Database.Database, bootId: string): OpenMark {
  const mark = { key: `${MARK_PREFIX}${process.pid}:${randomUUID()}` };
  db.pragma('synchronous = FULL');
  db.prepare('INSERT INTO _store_meta (key, value) VALUES (?, ?)').run(mark.key, bootId);
  db.pragma('synchronous = OFF');
  return mark;
}

/**
 * Syncs everything written: the WAL copied into the file, the file synced (also what earlier checkpoints
 * copied without a sync), then this store's mark removed by a synced commit.
 */
export function endUnsyncedWrites(db: Database.Database, path: string, mark: OpenMark): void {
  db.pragma('synchronous = FULL');
  db.pragma('wal_checkpoint(TRUNCATE)');
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  db.prepare('DELETE FROM _store_meta WHERE key = ?').run(mark.key);
}
