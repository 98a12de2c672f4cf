// Time travel over the embedded log, folded off the serving thread: the folds of a project's past and
// their cache live in a worker thread (fold-worker.ts: a FoldingProjectHistory over a read-only
// connection of its own to the log and to snapshots.sqlite), and a request's reads are calls to it.
//
// What crosses the thread boundary is what the request reads, never a fold: a read goes as its filter
// and options (structured clone: a few hundred bytes), its answer comes back as one JSON string (one
// flat copy, parsed here: cheaper than a structured clone of the documents; most answers are a page of
// documents or one). So the serving thread neither folds nor holds the past, and a cold fold costs it
// nothing but its wait.
//
// - A reader (one request) is numbered; the worker holds what it folded for it until the reader is
//   released (the budget counts it meanwhile).
// - A refusal (503 `server_under_load` with Retry-After) and a fold's failure (503
//   `component_unavailable`) come back as the worker threw them; a worker that fails or exits fails the
//   reads in flight with 503 `component_unavailable` (never a hang), and the next read starts a fresh one.
// - A snapshot the worker finds unusable is discarded by the one writer of snapshots.sqlite (the
//   snapshot worker): the worker posts a notice, handed to `discard`.
// - versionAt (as_of=<instant>) is a binary search of one-event reads: done here, as the access check is.
import { DomainError } from '../../domain/errors.js';
import type { EventStore } from '../../ports/event-store.js';
import type { Filter, FindOptions, ReadOnlyCollection } from '../../ports/read-store.js';
import type { HeldReader, ProjectHistory } from '../../queries/time-travel.js';
import type { Log } from '../log.js';
import { WorkerCalls } from '../worker-calls.js';
import type { ProjectionKey, ProjectSnapshot, ReadModelSnapshotSource } from './read-model-snapshot-store.js';
import { versionAtInstant, type FoldUsage } from './project-history.js';

/** What the worker is started with. */
export interface FoldWorkerData {
  eventsPath: string;
  snapshotsPath: string;
  cacheEntries: number;
  cacheBytes: number;
  foldQueue: number;
}

type ReadMethod = 'find' | 'findOne' | 'count' | 'all';

/** One call to the worker; a read answers its result as JSON, `usage` the FoldUsage as JSON, the others nothing. */
export type FoldWorkerCall =
  | { call: 'read'; reader: number; projectId: number; version: number; collection: string; method: ReadMethod; filter?: Filter; options?: FindOptions }
  | { call: 'release'; reader: number }
  | { call: 'usage' }
  | { call: 'close' };

/** What the worker asks of the parent. */
export interface DiscardNotice {
  discard: { projectId: number; projection: ProjectionKey; snapshot: Pick<ProjectSnapshot, 'version' | 'position'> };
}

export class WorkerProjectHistory implements ProjectHistory {
  private readonly worker: WorkerCalls<FoldWorkerCall, string | null>;
  private nextReader = 1;

  constructor(
    private readonly options: FoldWorkerData & {
      /** The serving thread's connection to the log (versionAt). */
      eventStore: EventStore;
      /** Discards a snapshot the worker could not use (the snapshot writer's). */
      discard: ReadModelSnapshotSource['discard'];
      log: Log;
    },
  ) {
    const { eventsPath, snapshotsPath, cacheEntries, cacheBytes, foldQueue, log } = options;
    const workerData: FoldWorkerData = { eventsPath, snapshotsPath, cacheEntries, cacheBytes, foldQueue };
    this.worker = new WorkerCalls({
      url: new URL('./fold-worker.js', import.meta.url),
      workerData,
      log,
      name: 'the time-travel fold worker',
      onNotice: (notice) => {
        const { projectId, projection, snapshot } = (notice as DiscardNotice).discard;
        void options.discard(projectId, projection, snapshot);
      },
    });
  }

  versionAt(projectId: number, instant: number): Promise<number> {
    return versionAtInstant(this.options.eventStore, projectId, instant);
  }

  async readerAt(projectId: number, version: number): Promise<HeldReader> {
    const reader = this.nextReader++;
    const read = async (collection: string, method: ReadMethod, filter?: Filter, options?: FindOptions): Promise<never> => {
      const call: FoldWorkerCall = { call: 'read', reader, projectId, version, collection, method };
      if (filter !== undefined) call.filter = filter;
      // A read's budget (a search's: ReadBudget) cannot cross the thread boundary (a clone drops its
      // methods); the worker's folds of one project are bounded by its own cache and queue.
      if (options !== undefined) call.options = withoutBudget(options);
      let answer: string | null;
      try {
        answer = await this.worker.call(call);
      } catch (error) {
        throw this.unavailable(error, projectId, version);
      }
      return JSON.parse(answer!) as never;
    };
    const collections = (name: string): ReadOnlyCollection => ({
      name,
      find: (filter, options) => read(name, 'find', filter, options),
      findOne: (filter) => read(name, 'findOne', filter),
      count: (filter) => read(name, 'count', filter),
      all: () => read(name, 'all'),
    });
    return Object.assign(collections, {
      release: () => {
        // A failed worker holds nothing any more: nothing to release then.
        this.worker.call({ call: 'release', reader }).catch(() => undefined);
      },
    });
  }

  /** What the worker's folds hold now. */
  async usage(): Promise<FoldUsage> {
    return JSON.parse((await this.worker.call({ call: 'usage' }))!) as FoldUsage;
  }

  /** Ends the worker, its folds and its connections. */
  close(): Promise<void> {
    return this.worker.close({ call: 'close' });
  }

  /** A failed call as the request sees it: a refusal or a fold's failure as thrown, the worker's own failure 503. */
  private unavailable(error: unknown, projectId: number, version: number): unknown {
    if (error instanceof DomainError) return error;
    this.options.log.warn('a read of a project\'s past failed in the fold worker', { projectId, version, error: String(error) });
    return new DomainError('component_unavailable', {
      general_problem: `The project as of version ${version} could not be computed: ${error instanceof Error ? error.message : String(error)}`,
      possible_fix: 'Retry later; the current version is served as usual.',
    });
  }
}

function withoutBudget(options: FindOptions): FindOptions {
  const { budget: _budget, ...rest } = options;
  return rest;
}
