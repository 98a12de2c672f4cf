// The worker of wal-checkpointer.ts: a connection to the read-models file that runs a PASSIVE checkpoint
// whenever write transactions were committed since its last look.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { CHECKPOINTS, COMMITS, type WalCheckpointerData } from './wal-checkpointer.js';

const { path, counters: buffer, checkMs, synced } = workerData as WalCheckpointerData;
const counters = new Int32Array(buffer);
const db = new Database(path, { fileMustExist: true });
db.pragma(synced ? 'synchronous = NORMAL' : 'synchronous = OFF');
let seen = 0; // commits made before this worker started count too

const look = setInterval(() => {
  const commits = Atomics.load(counters, COMMITS);
  if (commits === seen) return;
  seen = commits;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    Atomics.add(counters, CHECKPOINTS, 1);
  } catch {
    // Left to the next look and to the serving connection's own bound (wal-checkpointer.ts).
  }
}, checkMs);

parentPort!.on('message', (message: unknown) => {
  if (message !== 'close') return;
  clearInterval(look);
  db.close();
  parentPort!.close();
});
