// The append worker (see sqlite-appender.ts): commits the event store's append batches from a connection
// of its own, so the fsync of each commit blocks this thread, not the one serving requests.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { batchAppender, type AppendRequest } from './sqlite-append-batch.js';

const { path, busyTimeoutMs } = workerData as { path: string; busyTimeoutMs: number };
const db = new Database(path, { fileMustExist: true });
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
const append = batchAppender(db);

parentPort!.on('message', (batch: AppendRequest[]) => {
  parentPort!.postMessage(append(batch));
});
