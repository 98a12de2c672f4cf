// Where the project-snapshots reaction's snapshots are taken (the reaction decides only when): taking one
// of a big project is a synchronous chunk of work (load and parse the previous snapshot, fill a memory
// store, fold up to K events, serialise), which on the serving thread stalls every request for as long.
// So, for a log in a file, they are taken in a worker thread (snapshot-worker.ts) with its own read-only
// connection to the log and the one connection that writes snapshots.sqlite; the folds of requests (the
// fold worker, worker-project-history.ts) read snapshots through a read-only connection of their own and
// hand the discarding of one that cannot serve to this worker (`source.discard`). Where a second
// connection cannot reach the log (an in-memory log, KurrentDB) they are taken on the calling thread, as
// before. Both placements build the same snapshotter (projectSnapshotter).
//
// The worker answers one message per call (worker-calls.ts); a call fails when the worker fails or exits
// (the reaction retries with its back-off, at least once: a take is idempotent), and the next call starts
// a fresh one.
import { threadId } from 'node:worker_threads';
import type { EventStore } from '../../ports/event-store.js';
import { projections } from '../../projections/registry.js';
import type { ProjectSnapshots } from '../../reactions/project-snapshots.js';
import type { Log } from '../log.js';
import { WorkerCalls } from '../worker-calls.js';
import { projectSnapshotter } from './project-snapshotter.js';
import { openReadModelSnapshotReader, type ProjectionKey, type ProjectSnapshot, type ReadModelSnapshotSource, type ReadModelSnapshotStore } from './read-model-snapshot-store.js';

/** Taking snapshots (the reaction's port) and reading them (the request folds'), wherever they are taken. */
export interface PlacedProjectSnapshots extends ProjectSnapshots {
  /** What the request path's folds read snapshots from. */
  readonly source: ReadModelSnapshotSource;
  /** The thread id of the thread that ran the last take (null before the first): tests see where snapshots are taken. */
  readonly lastTakeThreadId: number | null;
  close(): Promise<void>;
}

/** Takes snapshots on the calling thread, into `store`, which requests read too. */
export function inThreadProjectSnapshots(options: { eventStore: EventStore; store: ReadModelSnapshotStore; cacheBytes: number }): PlacedProjectSnapshots {
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
  | { call: 'takenUpTo' }
  | { call: 'take'; projectId: number; version: number; position: number }
  | { call: 'recordTakenUpTo'; position: number }
  | { call: 'discard'; projectId: number; projection: ProjectionKey; snapshot: Pick<ProjectSnapshot, 'version' | 'position'> }
  | { call: 'close' };

/** Takes snapshots in a worker thread over the files at `eventsPath` (the log, read-only) and `snapshotsPath` (written there only). */
export class WorkerProjectSnapshots implements PlacedProjectSnapshots {
  readonly source: ReadModelSnapshotSource & { close(): Promise<void> };
  /** The answers: takenUpTo's position, take's thread id, nothing for the others. */
  private readonly worker: WorkerCalls<SnapshotWorkerCall, number | null>;
  private lastThreadId: number | null = null;
  private closed = false;

  constructor(private readonly options: SnapshotWorkerData & { log: Log }) {
    const { eventsPath, snapshotsPath, cacheBytes, log } = options;
    this.source = openReadModelSnapshotReader(snapshotsPath, (projectId, projection, snapshot) => this.discard(projectId, projection, snapshot), log);
    const workerData: SnapshotWorkerData = { eventsPath, snapshotsPath, cacheBytes };
    this.worker = new WorkerCalls({ url: new URL('./snapshot-worker.js', import.meta.url), workerData, log, name: 'the snapshot worker' });
  }

  get lastTakeThreadId(): number | null {
    return this.lastThreadId;
  }

  async takenUpTo(): Promise<number> {
    return (await this.worker.call({ call: 'takenUpTo' }))!;
  }

  async take(projectId: number, version: number, position: number): Promise<void> {
    this.lastThreadId = await this.worker.call({ call: 'take', projectId, version, position });
  }

  async recordTakenUpTo(position: number): Promise<void> {
    await this.worker.call({ call: 'recordTakenUpTo', position });
  }

  /** Has the worker close its connections (so its WAL is checkpointed), then ends it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.source.close();
    await this.worker.close({ call: 'close' });
  }

  /** Best effort, as ReadModelSnapshotStore.discard: a failed worker leaves the snapshot for the next fold to find again. */
  private async discard(projectId: number, projection: ProjectionKey, snapshot: Pick<ProjectSnapshot, 'version' | 'position'>): Promise<void> {
    try {
      await this.worker.call({ call: 'discard', projectId, projection: { name: projection.name, version: projection.version }, snapshot: { version: snapshot.version, position: snapshot.position } });
    } catch (error) {
      this.options.log.warn('a snapshot could not be discarded', { projectId, projection: projection.name, version: snapshot.version, error: String(error) });
    }
  }
}
