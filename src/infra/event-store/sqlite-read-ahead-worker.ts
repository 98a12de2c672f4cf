// The read-ahead worker (see sqlite-read-ahead.ts): answers batch reads of the global log from its own
// read-only connection.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database((workerData as { path: string }).path, { readonly: true, fileMustExist: true });
const batch = db
  .prepare('SELECT position, id, stream, version, type, data, meta FROM events WHERE position > ? ORDER BY position ASC LIMIT ?')
  .raw(true);

parentPort!.on('message', ({ request, after, limit }: { request: number; after: number; limit: number }) => {
  try {
    parentPort!.postMessage({ request, rows: batch.all(after, limit) });
  } catch (error) {
    parentPort!.postMessage({ request, error: error instanceof Error ? error.message : String(error) });
  }
});
