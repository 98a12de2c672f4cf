// Catch-up and replay read the global log as a long run of full batches. A worker thread with its own
// read-only connection to the same file reads the next batch while the caller decodes and projects the
// current one, so the SQLite stepping of replay runs on the second core.
//
// The same worker reads the pages of one stream that are not short (the events a project's state folds
// after its snapshot at the first write since the start, or its whole history): those rows lie scattered
// across the file, and read on the serving thread from a cold disk they held every request meanwhile.
//
// Only a FULL prefetched batch is handed out: committed rows never change, so a full batch is exactly
// what a direct read would return; a short one may predate newer appends and is read again directly.
import { Worker } from 'node:worker_threads';

/** A row of the events table read in raw mode: position, id, stream, version, type, data, meta. */
export type EventColumns = [number, string, string, number, string, string, string];

interface Prefetch {
  after: number;
  limit: number;
  rows: Promise<EventColumns[]>;
}

export class SqliteReadAhead {
  private readonly worker: Worker;
  private readonly replies = new Map<number, { resolve(rows: EventColumns[]): void; reject(error: Error): void }>();
  private nextRequest = 0;
  private prefetch: Prefetch | null = null;
  private failed: Error | null = null;

  constructor(path: string) {
    this.worker = new Worker(new URL('./sqlite-read-ahead-worker.js', import.meta.url), { workerData: { path } });
    this.worker.on('message', (message: { request: number; rows?: EventColumns[]; error?: string }) => {
      const reply = this.replies.get(message.request);
      this.replies.delete(message.request);
      if (this.replies.size === 0) this.worker.unref();
      if (message.rows) reply?.resolve(message.rows);
      else reply?.reject(new Error(message.error ?? 'read-ahead worker failed'));
    });
    this.worker.on('error', (error) => this.fail(error));
    // Idle, the worker does not keep the process alive; a read in flight does (readAhead() refs it).
    // After the listeners: adding a 'message' listener refs the worker's port again.
    this.worker.unref();
  }

  /**
   * The prefetched rows after `after` when a full batch of `limit` was read ahead, else null (the caller
   * reads directly). Either way, when `rowsRead` fills the batch, the next batch is read ahead.
   */
  async take(after: number, limit: number): Promise<EventColumns[] | null> {
    const prefetch = this.prefetch;
    this.prefetch = null;
    if (!prefetch || prefetch.after !== after || prefetch.limit !== limit || this.failed) return null;
    const rows = await prefetch.rows.catch(() => null);
    return rows && rows.length === limit ? rows : null;
  }

  /** Starts reading the batch after `after` in the worker. */
  readAhead(after: number, limit: number): void {
    if (this.failed) return;
    const rows = this.ask({ after, limit });
    rows.catch(() => undefined); // a prefetch nobody takes must not surface as an unhandled rejection
    this.prefetch = { after, limit, rows };
  }

  /**
   * Up to `limit` events of one stream from version `from`, read in the worker; null when the worker has
   * failed (the caller reads directly). Its connection sees every commit this process has seen.
   */
  async readStream(stream: string, from: number, limit: number): Promise<EventColumns[] | null> {
    if (this.failed) return null;
    return this.ask({ stream, from, limit }).catch(() => null);
  }

  private ask(read: { after: number; limit: number } | { stream: string; from: number; limit: number }): Promise<EventColumns[]> {
    const request = this.nextRequest++;
    const rows = new Promise<EventColumns[]>((resolve, reject) => this.replies.set(request, { resolve, reject }));
    this.worker.ref();
    this.worker.postMessage({ request, ...read });
    return rows;
  }

  async close(): Promise<void> {
    this.prefetch = null;
    this.fail(new Error('the event store was closed'));
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failed = error;
    for (const reply of this.replies.values()) reply.reject(error);
    this.replies.clear();
  }
}
