// The read-ahead worker (see sqlite-read-ahead.ts): answers batch reads of the global log, and long
// reads of one stream, from its own read-only connection.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database((workerData as { path: string }).path, { readonly: true, fileMustExist: true });
const batch = db
  .prepare('SELECT position, id, stream, version, type, data, meta FROM events WHERE position > ? ORDER BY position ASC LIMIT ?')
  .raw(true);
const streamBatch = db
  .prepare('SELECT position, id, stream, version, type, data, meta FROM events WHERE stream = ? AND version >= ? ORDER BY version ASC LIMIT ?')
  .raw(true);

type Read = { request: number; after: number; limit: number; stream?: undefined } | { request: number; stream: string; from: number; limit: number };

parentPort!.on('message', (read: Read) => {
  const { request } = read;
  try {
    const rows = read.stream === undefined ? batch.all(read.after, read.limit) : streamBatch.all(read.stream, read.from, read.limit);
    parentPort!.postMessage({ request, rows });
  } catch (error) {
    parentPort!.postMessage({ request, error: error instanceof Error ? error.message : String(error) });
  }
});
