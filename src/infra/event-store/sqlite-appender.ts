// Where the event store's append batches are committed: in a worker thread with its own connection for a
// database file, so that the serving thread goes on parsing, deciding and answering while a commit waits
// for its fsync (with synchronous=FULL, most of a commit's time); on the calling thread for an in-memory
// database, which a second connection cannot open. Both run the same transaction (sqlite-append-batch.ts).
//
// One batch is in flight at a time: the appends requested meanwhile wait in the store's queue and go
// together in the next batch, so the busier the store, the more appends share one fsync.
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { batchAppender, type AppendRequest, type BatchOutcome } from './sqlite-append-batch.js';

export interface Appender {
  /** Commits the batch (one transaction); at most one call is in flight at a time. */
  write(batch: readonly AppendRequest[]): Promise<BatchOutcome>;
  close(): Promise<void>;
}

/** Commits on the calling thread, through `db` itself. */
export function inThreadAppender(db: Database.Database): Appender {
  const append = batchAppender(db);
  return {
    async write(batch) {
      return append(batch);
    },
    async close() {},
  };
}

/** Commits in a worker thread holding its own connection to the file at `path`. */
export class WorkerAppender implements Appender {
  private readonly worker: Worker;
  private inFlight: { resolve(outcome: BatchOutcome): void; reject(error: Error): void } | null = null;
  private stopped: Error | null = null;

  constructor(path: string, busyTimeoutMs: number) {
    this.worker = new Worker(new URL('./sqlite-append-worker.js', import.meta.url), { workerData: { path, busyTimeoutMs } });
    this.worker.on('message', (outcome: BatchOutcome) => {
      const reply = this.inFlight;
      this.inFlight = null;
      this.worker.unref();
      reply?.resolve(outcome);
    });
    this.worker.on('error', (error) => this.stop(new Error(`the event store's append worker failed: ${error.message}`)));
    this.worker.on('exit', (code) => this.stop(new Error(`the event store's append worker exited (code ${code})`)));
    // Idle, the worker does not keep the process alive; a batch in flight does (write() refs it). After
    // the listeners: adding a 'message' listener refs the worker's port again.
    this.worker.unref();
  }

  write(batch: readonly AppendRequest[]): Promise<BatchOutcome> {
    if (this.stopped) return Promise.reject(this.stopped);
    if (this.inFlight) return Promise.reject(new Error('an append batch is already in flight'));
    return new Promise<BatchOutcome>((resolve, reject) => {
      this.inFlight = { resolve, reject };
      this.worker.ref();
      this.worker.postMessage(batch);
    });
  }

  async close(): Promise<void> {
    this.stop(new Error('the event store is closed'));
    await this.worker.terminate();
  }

  /** Fails the batch in flight (its outcome is unknown: the commit may or may not have happened) and every later write. */
  private stop(reason: Error): void {
    this.stopped ??= reason;
    const reply = this.inFlight;
    this.inFlight = null;
    reply?.reject(reason);
  }
}
