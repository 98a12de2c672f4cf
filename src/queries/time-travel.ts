// Time travel (`as_of_version=N` / `as_of=<datetime>` on project-scoped GETs): the read models of one
// project as they stood at version N, served to the route's normal handler through the same `read`
// function every route already uses.
//
// - The composition root wraps the live `read(collection)` with `AsOfReadScope.reads`: each call of a
//   collection's method asks the scope whether the request being answered travels in time. When it
//   does, project-scoped collections read the project's folded read models; the collections of
//   streams other than the project's (people, accounts, account memberships, workspaces) stay live (a person's
//   name or email at version N is today's). Outside a travelling request nothing changes.
// - The pipeline (api/app.ts) enters the scope with `run(reader, task)` around the handler and the
//   serializer of one request only: the scope is per request (AsyncLocalStorage), never module state.
// - `ProjectHistory` (infra/time-travel/project-history.ts) folds the project stream up to N with the
//   projections of the registry, the same code the live read models are built with, and caches folds;
//   for the embedded log it does so in a worker thread (fold-worker.ts), and the reads go there.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ReadOnlyCollection } from '../ports/read-store.js';

/** A read-model collection by logical name. */
export type CollectionReader = (collection: string) => ReadOnlyCollection;

/** Collections filled from streams other than the project's: read live even when travelling. */
export const LIVE_COLLECTIONS: ReadonlySet<string> = new Set(['people', 'accounts', 'account_memberships', 'workspaces']);

/** A reader of the past that holds what it folded (kept in memory, counted) until it is released. */
export type HeldReader = CollectionReader & { release(): void };

export interface ProjectHistory {
  /** The project's version at `instant` (ms): its last event at or before it; 0 when it did not exist yet. */
  versionAt(projectId: number, instant: number): Promise<number>;
  /**
   * The project's read models as they stood at `version` (1 <= version <= the current version), for one
   * request: release it when the request is answered. A read may fail with 503 `server_under_load`
   * (too many folds asked at once) or `component_unavailable` (the fold failed).
   */
  readerAt(projectId: number, version: number): Promise<HeldReader>;
}

export class AsOfReadScope {
  private readonly current = new AsyncLocalStorage<CollectionReader>();
  /** Travelling requests in flight. */
  private travelling = 0;

  /**
   * Runs `task` (and everything it awaits) reading project-scoped collections from `reader`.
   *
   * On Node 20 the first `run` of an AsyncLocalStorage installs promise hooks for the whole process, and
   * they stay: every promise of every later request then costs more than twice as much
   * (docs/benchmarks.md). So the storage is disabled again whenever the
   * last travelling request has finished; the next one enables it for its own time.
   */
  async run<T>(reader: CollectionReader, task: () => Promise<T>): Promise<T> {
    this.travelling++;
    try {
      return await this.current.run(reader, task);
    } finally {
      if (--this.travelling === 0) this.current.disable();
    }
  }

  /** Whether the caller runs inside `run` (its project-scoped reads are of the past). */
  isTravelling(): boolean {
    return this.current.getStore() !== undefined;
  }

  /** `live`, answering from the travelling request's reader inside `run`, for project-scoped collections. */
  reads(live: CollectionReader): CollectionReader {
    return (name) => {
      const liveCollection = live(name);
      if (LIVE_COLLECTIONS.has(name)) return liveCollection;
      const source = (): ReadOnlyCollection => {
        const reader = this.current.getStore();
        return reader ? reader(name) : liveCollection;
      };
      return {
        name,
        find: (filter, options) => source().find(filter, options),
        findOne: (filter) => source().findOne(filter),
        count: (filter) => source().count(filter),
        all: () => source().all(),
      };
    };
  }
}
