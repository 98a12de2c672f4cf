// Checkpoints of the read-models file's WAL, taken by a worker thread with a connection of its own
// instead of inside the serving thread's commits.
//
// SQLite checkpoints a WAL database from the connection whose commit took the log past
// `wal_autocheckpoint` pages: the projector's commit that did so copied every page of the log into the
// file and synced both, on the thread serving requests. Measured on the realistic log's events (3,000
// applied one per batch, as writes arrive under load): 924 us per event with the checkpoints in the
// commits, 672 us without them.
//
// - The serving connection keeps `wal_autocheckpoint` only as a bound (SAFETY_PAGES): the worker is
//   what checkpoints in the normal course.
// - Each write transaction counts itself in a shared counter (one atomic add, no message); the worker
//   looks every CHECK_MS and, when something was committed since its last look, runs a PASSIVE
//   checkpoint: it copies what no reader still needs without waiting for readers or the writer, and the
//   serving connection's next write starts the log over once it has all been copied.
// - A failed checkpoint (the file gone, I/O) is left to the next look and to the serving connection's
//   bound: the log stays correct, only longer.
import { Worker } from 'node:worker_threads';

/** Pages after which the serving connection checkpoints itself (the worker is late or gone): 64 MiB. */
export const SAFETY_PAGES = 16384;
/** How often the worker looks for commits to checkpoint. */
const CHECK_MS = 500;

/** Slots of the shared counters. */
export const COMMITS = 0;
export const CHECKPOINTS = 1;

export interface WalCheckpointerData {
  path: string;
  counters: SharedArrayBuffer;
  checkMs: number;
  /** Whether checkpoints sync the file (synchronous=NORMAL) or not (OFF: unsynced-writes.ts). */
  synced: boolean;
}

export interface WalCheckpointerOptions {
  /** As the serving connection writes: with syncs (NORMAL) or without (OFF). */
  synced: boolean;
  /** How often the worker looks for commits (default CHECK_MS). */
  checkMs?: number | undefined;
}

export class WalCheckpointer {
  private readonly counters = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(path: string, options: WalCheckpointerOptions) {
    const data: WalCheckpointerData = { path, counters: this.counters.buffer as SharedArrayBuffer, checkMs: options.checkMs ?? CHECK_MS, synced: options.synced };
    this.worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), { workerData: data });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    // A checkpointer that fails leaves the serving connection's own bound to keep the log short.
    this.worker.on('error', () => undefined);
    this.worker.unref();
  }

  /** Counts one committed write transaction (what the worker looks for). */
  committed(): void {
    Atomics.add(this.counters, COMMITS, 1);
  }

  /** Checkpoints the worker has completed (tests and diagnostics). */
  checkpoints(): number {
    return Atomics.load(this.counters, CHECKPOINTS);
  }

  /** Stops the worker after its current checkpoint and closes its connection. */
  async close(): Promise<void> {
    this.worker.ref(); // until it has closed its connection
    this.worker.postMessage('close');
    await this.exited;
  }
}
