// Where the project-snapshots reaction's snapshots are taken (the reaction decides only when): taking one
// of a big project is a synchronous chunk of work (load and parse the previous snapshot, fill a memory
// store, fold up to K events, serialise), which on the serving thread stalls every request for as long.
// So, for a log in a file, they are taken in a worker thread (snapshot-worker.ts) with its own read-only
// connection to the log and the one connection that writes snapshots.sqlite; the serving thread reads
// snapshots through a read-only connection and hands the discarding of one that cannot serve to the
// worker. Where a second connection cannot reach the log (an in-memory log, KurrentDB) they are taken on
// the calling thread, as before. Both placements build the same snapshotter (projectSnapshotter).
//
// The worker answers one message per call; a call fails when the worker fails or exits (the reaction
// retries with its back-off, at least once: a take is idempotent), and the next call starts a fresh one.
import { threadId, Worker } from 'node:worker_threads';
import type { EventStore } from '../../ports/event-store.js';
import { projections } from '../../projections/registry.js';
import type { ProjectSnapshots } from '../../reactions/project-snapshots.js';
import type { Log } from '../log.js';
import { projectSnapshotter } from './project-snapshotter.js';
import { openSnapshotReader, type ProjectionKey, type ProjectSnapshot, type SnapshotSource, type SnapshotStore } from './snapshot-store.js';

/** Taking snapshots (the reaction's port) and reading them (the request folds'), wherever they are taken. */
export interface PlacedProjectSnapshots extends ProjectSnapshots {
  /** What the request path's folds read snapshots from. */
  readonly source: SnapshotSource;
  /** The thread id of the thread that ran the last take (null before the first): tests see where snapshots are taken. */
  readonly lastTakeThreadId: number | null;
  close(): Promise<void>;
}

/** Takes snapshots on the calling thread, into `store`, which requests read too. */
export function inThreadProjectSnapshots(options: { eventStore: EventStore; store: SnapshotStore; cacheBytes: number }): PlacedProjectSnapshots {
  const { snapshotter, history } = projectSnapshotter({ ...options, projections });
  let lastTakeThreadId: number | null = null;
  return {
    source: options.store,
    get lastTakeThreadId() {
      return lastTakeThreadId;
    },
    takenUpTo: () => snapshotter.takenUpTo(),
    async take(projectId, version, position) {
      await snapshotter.take(projectId, version, position);
      lastTakeThreadId = threadId;
    },
    recordTakenUpTo: (position) => snapshotter.recordTakenUpTo(position),
    async close() {
      await history.close();
      await options.store.close();
    },
  };
}

/** What the worker is started with. */
export interface SnapshotWorkerData {
  eventsPath: string;
  snapshotsPath: string;
  cacheBytes: number;
}

/** One call to the worker. */
export type SnapshotWorkerCall =
  | { id: number; call: 'takenUpTo' }
  | { id: number; call: 'take'; projectId: number; version: number; position: number }
  | { id: number; call: 'recordTakenUpTo'; position: number }
  | { id: number; call: 'discard'; projectId: number; projection: ProjectionKey; snapshot: Pick<ProjectSnapshot, 'version' | 'position'> }
  | { id: number; call: 'close' };

/** The worker's messages: the answer to a call (`value`: takenUpTo's position, take's thread id), or a log line. */
export type SnapshotWorkerMessage =
  | { id: number; ok: true; value: number | null }
  | { id: number; ok: false; error: string }
  | { log: 'debug' | 'info' | 'warn' | 'error'; message: string; details?: Record<string, unknown> };

/** A call as the worker gets it, without its id. */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Call = WithoutId<SnapshotWorkerCall>;

/** Takes snapshots in a worker thread over the files at `eventsPath` (the log, read-only) and `snapshotsPath` (written there only). */
export class WorkerProjectSnapshots implements PlacedProjectSnapshots {
  readonly source: SnapshotSource & { close(): Promise<void> };
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve(value: number | null): void; reject(error: Error): void }>();
  private nextId = 1;
  private closed = false;
  private lastThreadId: number | null = null;

  constructor(private readonly options: SnapshotWorkerData & { log: Log }) {
    this.source = openSnapshotReader(options.snapshotsPath, (projectId, projection, snapshot) => this.discard(projectId, projection, snapshot), options.log);
  }

  get lastTakeThreadId(): number | null {
    return this.lastThreadId;
  }

  async takenUpTo(): Promise<number> {
    return (await this.call({ call: 'takenUpTo' }))!;
  }

  async take(projectId: number, version: number, position: number): Promise<void> {
    this.lastThreadId = await this.call({ call: 'take', projectId, version, position });
  }

  async recordTakenUpTo(position: number): Promise<void> {
    await this.call({ call: 'recordTakenUpTo', position });
  }

  /** Rejects the calls in flight, has the worker close its connections (so its WAL is checkpointed), then ends it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.source.close();
    const worker = this.worker;
    if (!worker) return;
    const closed = new Error('the snapshots are closed');
    for (const reply of this.pending.values()) reply.reject(closed);
    this.pending.clear();
    await this.send(worker, { call: 'close' }).catch(() => {});
    this.worker = null;
    await worker.terminate();
  }

  /** Best effort, as SnapshotStore.discard: a failed worker leaves the snapshot for the next fold to find again. */
  private async discard(projectId: number, projection: ProjectionKey, snapshot: Pick<ProjectSnapshot, 'version' | 'position'>): Promise<void> {
    try {
      await this.call({ call: 'discard', projectId, projection: { name: projection.name, version: projection.version }, snapshot: { version: snapshot.version, position: snapshot.position } });
    } catch (error) {
      this.options.log.warn('a snapshot could not be discarded', { projectId, projection: projection.name, version: snapshot.version, error: String(error) });
    }
  }

  private call(call: Call): Promise<number | null> {
    if (this.closed) return Promise.reject(new Error('the snapshots are closed'));
    return this.send(this.running(), call);
  }

  private send(worker: Worker, call: Call): Promise<number | null> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...call, id });
    });
  }

  /** The worker, started when none runs (the first call, or the first after one failed). */
  private running(): Worker {
    if (this.worker) return this.worker;
    const { eventsPath, snapshotsPath, cacheBytes, log } = this.options;
    const workerData: SnapshotWorkerData = { eventsPath, snapshotsPath, cacheBytes };
    const worker = new Worker(new URL('./snapshot-worker.js', import.meta.url), { workerData });
    worker.on('message', (message: SnapshotWorkerMessage) => {
      if ('log' in message) return log[message.log](message.message, message.details);
      const reply = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      if (message.ok) reply?.resolve(message.value);
      else reply?.reject(new Error(message.error));
    });
    worker.on('error', (error) => this.stop(worker, new Error(`the snapshot worker failed: ${error.message}`)));
    worker.on('exit', (code) => this.stop(worker, new Error(`the snapshot worker exited (code ${code})`)));
    // Idle, the worker does not keep the process alive; a call in flight does (call() refs it).
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Fails every call in flight of `worker` (their outcome is unknown; each is safe to repeat); the next call starts a fresh worker. */
  private stop(worker: Worker, reason: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    if (!this.closed) this.options.log.warn('the snapshot worker stopped: the next call starts a fresh one', { error: reason.message });
    for (const reply of this.pending.values()) reply.reject(reason);
    this.pending.clear();
  }
}
