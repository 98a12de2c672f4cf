// Searches of the live read models evaluated off the serving thread, where the read models are a SQLite
// file: a worker thread (search-worker.ts) with a read-only connection of its own to readmodels.sqlite
// (WAL lets it read beside the projector's writes and see each of its commits) runs the same search
// code (queries/search/) and answers each search as one JSON string, parsed here. So the parsing of a
// query, the name look-ups, the candidates and the evaluation of every match cost the serving thread
// nothing but the parse of the answer, however many terms the query has; other requests are answered
// meanwhile.
//
// - Each call names the live generation of every collection (the projector's `<name>__g<n>`), so the
//   worker reads what the serving thread would.
// - A search inside a travelling request (`as_of_version`) reads the project's past, which lives in the
//   serving thread's scope: it runs here, over the scoped reader (`here`).
// - A refusal (400 on the query, too costly) comes back as the worker threw it; any other failure of the
//   worker answers 503 `component_unavailable` (never a hang), and the next call starts a fresh worker
//   (infra/worker-calls.ts).
import { DomainError } from '../../domain/errors.js';
import type { Page, Paged } from '../../queries/page.js';
import type { SearchRequest, SearchResultContainer, StorySearches } from '../../queries/search/search-project.js';
import type { StoryReadDoc } from '../../projections/documents.js';
import type { Log } from '../log.js';
import { WorkerCalls } from '../worker-calls.js';
import { STORY_WORDS } from '../../projections/search/story-words-projection.js';

/** What the worker is started with. */
export interface SearchWorkerData {
  readModelsPath: string;
  /** Budget of the worker's parsed-document cache, in estimated heap bytes. */
  cacheBytes: number | undefined;
}

/** Logical collection name -> the physical name of its live generation. */
export type LiveCollectionNames = Record<string, string>;

/** The documents of a live collection (physical name) written since the worker's previous call; null: any of them. */
export interface WrittenDocuments {
  collection: string;
  ids: number[] | null;
}

/** One call to the worker; a search answers its result as JSON. */
export type SearchWorkerCall =
  | { call: 'search'; request: SearchRequest; names: LiveCollectionNames; writes: WrittenDocuments[] }
  | { call: 'storyPage'; request: SearchRequest; page: Page; names: LiveCollectionNames; writes: WrittenDocuments[] }
  | { call: 'close' };

/** Which documents the live batches wrote (ProjectorRunner). */
export interface WrittenIds {
  followWrites(collections: readonly string[]): void;
  stampOf(collections: readonly string[]): number;
  writtenSince(collection: string, stamp: number): Set<number> | null;
}

/** The collections whose writes a worker is told of: what it keeps is derived from them. */
const KEPT_FROM = ['stories', STORY_WORDS];

export interface WorkerStorySearchesOptions extends SearchWorkerData {
  /** How many search workers (each with its own connection, caches and kept indexes); 1 when absent. */
  workers?: number;
  /** The live generations' names now (ProjectorRunner.liveCollectionNames). */
  liveNames(): LiveCollectionNames;
  /** Which documents were written since (ProjectorRunner): each worker is told of them with its next call. */
  written: WrittenIds;
  /** Whether the caller reads a project's past (AsOfReadScope.travelling): then `here` answers. */
  travelling(): boolean;
  /** The same searches on the serving thread, over its (scoped) reader. */
  here: StorySearches;
  log: Log;
}

export class WorkerStorySearches implements StorySearches {
  private readonly workers: Array<{
    calls: WorkerCalls<SearchWorkerCall, string | null>;
    inFlight: number;
    /** Per logical collection of KEPT_FROM: its stamp when this worker was last told of its writes. */
    told: Map<string, number>;
  }>;

  constructor(private readonly options: WorkerStorySearchesOptions) {
    const { readModelsPath, cacheBytes, log } = options;
    const workerData: SearchWorkerData = { readModelsPath, cacheBytes };
    options.written.followWrites(KEPT_FROM);
    this.workers = Array.from({ length: Math.max(1, options.workers ?? 1) }, (_, i) => ({
      calls: new WorkerCalls<SearchWorkerCall, string | null>({ url: new URL('./search-worker.js', import.meta.url), workerData, log, name: `search worker ${i + 1}` }),
      inFlight: 0,
      told: new Map(),
    }));
  }

  search(request: SearchRequest): Promise<SearchResultContainer> {
    if (this.options.travelling()) return this.options.here.search(request);
    return this.answer((names, writes) => ({ call: 'search', request, names, writes }));
  }

  storyPage(request: SearchRequest, page: Page): Promise<Paged<StoryReadDoc>> {
    if (this.options.travelling()) return this.options.here.storyPage(request, page);
    return this.answer((names, writes) => ({ call: 'storyPage', request, page, names, writes }));
  }

  /** Ends the workers and their connections. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.calls.close({ call: 'close' })));
  }

  /**
   * The call answered by the worker with the fewest calls in flight (the first of them on a tie), made
   * with the live names and the writes that worker has not been told of.
   */
  private async answer<T>(callWith: (names: LiveCollectionNames, writes: WrittenDocuments[]) => SearchWorkerCall): Promise<T> {
    const worker = this.workers.reduce((least, next) => (next.inFlight < least.inFlight ? next : least));
    const names = this.options.liveNames();
    const call = callWith(names, this.writesToTell(worker.told, names));
    let answer: string | null;
    worker.inFlight++;
    try {
      answer = await worker.calls.call(call);
    } catch (error) {
      throw this.unavailable(error);
    } finally {
      worker.inFlight--;
    }
    return JSON.parse(answer!) as T;
  }

  /** The writes to KEPT_FROM since the worker was last told (`told`, moved to now). */
  private writesToTell(told: Map<string, number>, names: LiveCollectionNames): WrittenDocuments[] {
    const writes: WrittenDocuments[] = [];
    for (const logical of KEPT_FROM) {
      const stamp = this.options.written.stampOf([logical]);
      const since = told.get(logical);
      told.set(logical, stamp);
      const collection = names[logical];
      if (since === undefined || since === stamp || collection === undefined) continue;
      const ids = this.options.written.writtenSince(logical, since);
      writes.push({ collection, ids: ids === null ? null : [...ids] });
    }
    return writes;
  }

  /** A failed call as the request sees it: a refusal as thrown, any other failure 503. */
  private unavailable(error: unknown): unknown {
    if (error instanceof DomainError) return error;
    this.options.log.warn('a search failed in the search worker', { error: String(error) });
    return new DomainError('component_unavailable', {
      general_problem: `The search could not be run: ${error instanceof Error ? error.message : String(error)}`,
      possible_fix: 'Retry the search.',
    });
  }
}
