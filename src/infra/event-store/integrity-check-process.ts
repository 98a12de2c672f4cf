// The log's integrity check (integrity-check.ts), run as a child process: SQLite's `PRAGMA quick_check`
// over a read-only connection of its own, its answer's lines sent back (or why it could not run), then exit.
// It reads the whole file on a core of its own, so it runs at the lowest CPU priority: serving goes first.
import { setPriority } from 'node:os';
import Database from 'better-sqlite3';
import type { IntegrityCheckAnswer } from './integrity-check.js';

const path = process.argv[2]!;
try {
  setPriority(19);
} catch {
  // Not allowed here (a restricted container): the check runs at the server's priority.
}
let answer: IntegrityCheckAnswer;
try {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma('quick_check') as Array<{ quick_check: unknown }>;
    answer = { lines: rows.map((row) => String(row.quick_check)) };
  } finally {
    db.close();
  }
} catch (error) {
  const code = (error as { code?: unknown }).code;
  answer = { error: error instanceof Error ? error.message : String(error), code: typeof code === 'string' ? code : null };
}
process.send!(answer, () => process.disconnect());
