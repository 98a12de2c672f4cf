// The read models of a project as they stood at one version, built by the projector runner itself:
// a fresh read store (the composition root injects the factory: memory) caught up, with the registry's
// projections, over a view of the event store holding the project stream's events 1..N and nothing
// else. So the folded documents are exactly what the live read models held at version N (same apply,
// same replay guard, same batching): no second implementation of the projections.
//
// - Only what the request reads is folded: each projection of (project, N) is folded on the first read
//   of one of its collections (a story GET folds the resources projection, never the activity, search,
//   iteration or analytics indexes).
// - A fold starts from the nearest of: the cached fold of the same project and projection at a lower
//   version, and the persisted snapshot at or below the version (read-model-snapshot-store.ts; taken by the
//   project-snapshots reaction every K versions). Its documents and checkpoint are copied into a fresh
//   store and only the events after it are applied (the runner resumes from the copied checkpoint, as it
//   does after a restart). Without either it starts from the first event.
// - Cold folds run one at a time, the others wait in a bounded queue, beyond which a request is refused
//   with 503 `server_under_load` and `Retry-After` (fold-queue.ts). A fold reads the log a page at a time
//   with a turn of the event loop between pages, so that whatever thread folds keeps answering.
// - Folds are cached per (project, projection, version), least recently used first out, bounded by
//   entries and by an estimate of their memory. The fold running counts (from the size of what it starts
//   from), and so do the folds a reader holds: a reader (one request) keeps each fold it read until it
//   is released, and a held fold is never evicted, so a request never folds twice. The most recent fold
//   is kept whatever its size. A fold requested while it runs or waits is shared.
// - A fold that fails (a damaged log, a store error) answers 503 `component_unavailable` and is not kept.
// The instant -> version look-up is a binary search over the stream (one one-event read per step: 17
// reads for 100,000 events).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { NEVER } from 'rxjs/internal/observable/never'; // not the root module: all of rxjs
import type { RecordedEvent } from '../../domain/events.js';
import { streams } from '../../domain/events.js';
import { DomainError } from '../../domain/errors.js';
import type { Projection } from '../../projections/projection.js';
import type { AppendResult, ChainedEvent, EventStore, ReadAllOptions, ReadStreamOptions } from '../../ports/event-store.js';
import type { Doc, ReadOnlyCollection, ReadStore, WriteOp } from '../../ports/read-store.js';
import type { HeldReader, ProjectHistory } from '../../queries/time-travel.js';
import { silentLog, type Log } from '../log.js';
import { ProjectorRunner } from '../projector/projector-runner.js';
import { FoldQueue } from './fold-queue.js';
import type { ProjectSnapshot, ReadModelSnapshotSource } from './read-model-snapshot-store.js';

export interface ProjectHistoryOptions {
  eventStore: EventStore;
  projections: readonly Projection[];
  /** A fresh, empty read store for one fold. */
  newReadStore(): ReadStore;
  /** Folds kept (one per project, projection and version; least recently used dropped first); at least 1. */
  cacheEntries: number;
  /** Estimated memory of the folds kept, running and held, in bytes; the most recent fold is kept whatever its size. */
  cacheBytes: number;
  /** Persisted snapshots a fold may start from (none: every cold fold starts from the first event). */
  snapshots?: ReadModelSnapshotSource;
  /** Cold folds that may wait while one runs; one more is refused with 503 `server_under_load` (default: no bound). */
  foldQueue?: number;
  /** Where a failed fold is reported. */
  log?: Log;
}

/** What the folds of a project history hold (tests, benchmarks). */
export interface FoldUsage {
  /** Folds cached, running or waiting to run. */
  folds: number;
  /** Their estimated memory, the running fold and the folds readers hold included. */
  estimatedBytes: number;
  /** The budget it is kept within (STORYLINE_TIME_TRAVEL_CACHE_BYTES), but for the newest fold and the held ones. */
  budgetBytes: number;
  /** Cold folds running or waiting in the queue. */
  folding: number;
}

/** One projection of one project folded up to one version. */
interface Fold {
  readonly version: number;
  /** Global position of the stream's event `version`: where a fold forward from this one resumes. */
  readonly position: number;
  readonly readStore: ReadStore;
  readonly runner: ProjectorRunner;
  readonly bytes: number;
}

/** A fold in the cache: running (or waiting to), or done. */
interface Entry {
  readonly fold: Promise<Fold>;
  done: Fold | null;
  /** Estimated bytes: of what a running fold started from, then of the fold. */
  bytes: number;
  /** Readers holding it (and folds copying it): never evicted while above 0. */
  holders: number;
}

/** Documents sampled per collection to estimate a fold's bytes. */
const SIZE_SAMPLE = 64;
/**
 * Bytes of memory per byte of a document's JSON, as the memory read store holds it (objects, strings,
 * the id map and the indexes): what the cache budget counts, so that it bounds the process's memory.
 */
const MEMORY_PER_JSON_BYTE = 3;
/** Writes per batch when a fold's documents are copied into the store of a fold forward. */
const COPY_BATCH = 1000;
/** Events per page of a fold (a turn of the event loop between two). */
const FOLD_PAGE = 250;

export class FoldingProjectHistory implements ProjectHistory {
  /** `<project>:<projection>@<version>` -> its fold; insertion order is recency (least recent first). */
  private readonly entries = new Map<string, Entry>();
  /** Estimated bytes of every entry. */
  private bytes = 0;
  /** Logical collection name -> the projection that writes it. */
  private readonly owners = new Map<string, Projection>();
  private readonly queue: FoldQueue;
  private readonly log: Log;

  constructor(private readonly options: ProjectHistoryOptions) {
    if (!(Number.isSafeInteger(options.cacheEntries) && options.cacheEntries > 0)) throw new Error('cacheEntries must be a positive integer');
    if (!(Number.isSafeInteger(options.cacheBytes) && options.cacheBytes > 0)) throw new Error('cacheBytes must be a positive integer');
    for (const projection of options.projections) for (const { name } of projection.collections) this.owners.set(name, projection);
    this.queue = new FoldQueue(options.foldQueue ?? Infinity);
    this.log = options.log ?? silentLog;
  }

  /** What the folds hold now, as the budget counts it. */
  usage(): FoldUsage {
    return { folds: this.entries.size, estimatedBytes: this.bytes, budgetBytes: this.options.cacheBytes, folding: this.queue.size };
  }

  versionAt(projectId: number, instant: number): Promise<number> {
    return versionAtInstant(this.options.eventStore, projectId, instant);
  }

  /**
   * The project's collections at `version`; each projection is folded when one of its collections is
   * first read, and held by the reader until it is released.
   */
  async readerAt(projectId: number, version: number): Promise<HeldReader> {
    /** Per projection read: its entry, and the entry itself once held (released at once then). */
    const held = new Map<Projection, { entry: Promise<Entry>; done?: Entry }>();
    let released = false;
    const entryOf = (projection: Projection): Promise<Entry> => {
      if (released) return Promise.reject(new Error('a released reader of the past is read'));
      let holding = held.get(projection);
      if (!holding) {
        const entry = this.hold(projectId, projection, version);
        const fresh: { entry: Promise<Entry>; done?: Entry } = { entry };
        held.set(projection, (holding = fresh));
        // A refused or failed fold is asked again by the next read.
        entry.then((done) => (fresh.done = done), () => held.delete(projection));
      }
      return holding.entry;
    };
    const reader = (name: string): ReadOnlyCollection => {
      const projection = this.owners.get(name);
      if (!projection) throw new Error(`no projection declares the collection ${name}`);
      const collection = async (): Promise<ReadOnlyCollection> => (await entryOf(projection)).done!.runner.collection(name);
      return {
        name,
        find: async (filter, options) => (await collection()).find(filter, options),
        findOne: async (filter) => (await collection()).findOne(filter),
        count: async (filter) => (await collection()).count(filter),
        all: async () => (await collection()).all(),
      };
    };
    return Object.assign(reader, {
      release: () => {
        if (released) return;
        released = true;
        for (const { entry, done } of held.values()) {
          if (done) this.unhold(done);
          else void entry.then((settled) => this.unhold(settled), () => undefined);
        }
      },
    });
  }

  /** The documents of `projection` folded over the project's stream up to `version`, as a snapshot holds them. */
  async snapshotAt(projectId: number, projection: Projection, version: number): Promise<ProjectSnapshot> {
    const entry = await this.hold(projectId, projection, version);
    try {
      const fold = entry.done!;
      const event = await this.chainEventAt(fold.position);
      if (!event || event.stream !== streams.project(projectId) || event.version !== version) throw new Error(`the log holds no event ${version} of project ${projectId} at position ${fold.position}`);
      return { version, position: fold.position, hash: event.hash, collections: await collectionsOf(fold.readStore) };
    } finally {
      this.unhold(entry);
    }
  }

  private async chainEventAt(position: number): Promise<ChainedEvent | undefined> {
    const [event] = await this.options.eventStore.readChain({ after: position - 1, limit: 1 });
    return event?.position === position ? event : undefined;
  }

  /**
   * The persisted snapshot at or below `version` when the log still holds the event it was taken at
   * (same stream, version and chain hash); one that the log does not hold is discarded.
   */
  private async snapshotBelow(projectId: number, projection: Projection, version: number): Promise<ProjectSnapshot | null> {
    const snapshots = this.options.snapshots;
    const snapshot = (await snapshots?.nearest(projectId, projection, version)) ?? null;
    if (!snapshots || !snapshot) return null;
    const event = await this.chainEventAt(snapshot.position);
    if (event && event.stream === streams.project(projectId) && event.version === snapshot.version && event.hash === snapshot.hash) return snapshot;
    await snapshots.discard(projectId, projection, snapshot);
    return null;
  }

  /** Drops every cached fold (closing their stores); folds still waiting fail, the running one is awaited. */
  async close(): Promise<void> {
    this.queue.close();
    const folds = [...this.entries.values()].map((entry) => entry.fold);
    this.entries.clear();
    this.bytes = 0;
    for (const fold of await Promise.allSettled(folds)) if (fold.status === 'fulfilled') await fold.value.readStore.close();
  }

  /**
   * The done entry of (project, projection, version), held (release it with unhold): from the cache, or
   * folded (queued behind the fold running; refused when the queue is full).
   */
  private async hold(projectId: number, projection: Projection, version: number): Promise<Entry> {
    const key = foldKey(projectId, projection, version);
    let entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key); // re-inserted: the Map's order is the LRU order
      this.entries.set(key, entry);
    } else {
      entry = this.startFold(key, projectId, projection, version);
    }
    entry.holders++;
    try {
      await entry.fold;
    } catch (error) {
      entry.holders--;
      throw error;
    }
    return entry;
  }

  private unhold(entry: Entry): void {
    entry.holders--;
    this.evictBeyondBounds();
  }

  /** A new entry whose fold is queued (throws the queue's refusal: nothing is cached then). */
  private startFold(key: string, projectId: number, projection: Projection, version: number): Entry {
    const entry: Entry = { fold: null as unknown as Promise<Fold>, done: null, bytes: 0, holders: 0 };
    const fold = this.queue.run(() => this.fold(projectId, projection, version, (bytes) => this.account(entry, bytes)));
    (entry as { fold: Promise<Fold> }).fold = fold.then(
      (done) => {
        entry.done = done;
        if (this.entries.get(key) === entry) this.account(entry, done.bytes);
        return done;
      },
      (error: unknown) => {
        if (this.entries.get(key) === entry) {
          this.entries.delete(key);
          this.bytes -= entry.bytes;
        }
        throw this.failure(error, projectId, projection, version);
      },
    );
    this.entries.set(key, entry);
    return entry;
  }

  /** A fold's failure as the request sees it: a refusal stays one, anything else is 503 `component_unavailable`. */
  private failure(error: unknown, projectId: number, projection: Projection, version: number): unknown {
    if (error instanceof DomainError) return error;
    this.log.warn('a fold of a project\'s past failed', { projectId, projection: projection.name, version, error: String(error) });
    return new DomainError('component_unavailable', {
      general_problem: `The project as of version ${version} could not be computed: ${error instanceof Error ? error.message : String(error)}`,
      possible_fix: 'Retry later; the current version is served as usual.',
    });
  }

  /** Sets the estimated bytes of a cached entry, then evicts beyond the bounds. */
  private account(entry: Entry, bytes: number): void {
    if (![...this.entries.values()].includes(entry)) return; // dropped meanwhile (a close)
    this.bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    this.evictBeyondBounds();
  }

  /** The done, unheld entry of the same project and projection at the highest version below `version`. */
  private nearestBelow(projectId: number, projection: Projection, version: number): Entry | null {
    const prefix = foldKey(projectId, projection, 0).slice(0, -1);
    let best: { version: number; entry: Entry } | null = null;
    for (const [key, entry] of this.entries) {
      if (!key.startsWith(prefix) || !entry.done) continue;
      const cached = Number(key.slice(prefix.length));
      if (cached < version && (!best || cached > best.version)) best = { version: cached, entry };
    }
    return best?.entry ?? null;
  }

  /**
   * Forgets the least recently used done folds that no reader holds while the cache is beyond its bounds
   * (the most recent one stays). Their stores are not closed: a fold copying one may still read it; it is
   * garbage once nothing holds it. Hand-written rather than lru-cache: held folds, the one in flight and
   * the newest must be skipped by eviction, which lru-cache cannot do.
   */
  private evictBeyondBounds(): void {
    const over = () => this.entries.size > this.options.cacheEntries || this.bytes > this.options.cacheBytes;
    if (!over()) return;
    const newest = [...this.entries.keys()].at(-1);
    for (const [key, entry] of this.entries) {
      if (!over()) return;
      if (key === newest || !entry.done || entry.holders > 0) continue;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
  }

  /**
   * Folds `projection` over the project's stream up to `version`, from a copy of the nearer of an
   * earlier cached fold and the persisted snapshot at or below `version` when there is one; `started`
   * hears the estimated bytes of what it starts from (the fold in flight counts against the budget).
   */
  private async fold(projectId: number, projection: Projection, version: number, started: (bytes: number) => void): Promise<Fold> {
    const readStore = this.options.newReadStore();
    const earlier = this.nearestBelow(projectId, projection, version);
    let from = { position: 0, version: 0 };
    if (earlier) earlier.holders++;
    try {
      const snapshot = await this.snapshotBelow(projectId, projection, version);
      if (snapshot && snapshot.version > (earlier?.done!.version ?? 0)) {
        started(estimatedBytesOf(Object.values(snapshot.collections)));
        await loadCollections(snapshot.collections, readStore);
        from = { position: snapshot.position, version: snapshot.version };
      } else if (earlier) {
        started(earlier.done!.bytes);
        await loadCollections(await collectionsOf(earlier.done!.readStore), readStore);
        from = { position: earlier.done!.position, version: earlier.done!.version };
      }
    } finally {
      if (earlier) this.unhold(earlier);
    }
    const stream = streams.project(projectId);
    const runner = new ProjectorRunner({ eventStore: new StreamPrefix(this.options.eventStore, stream, version, from), readStore, projections: [projection], batchSize: FOLD_PAGE });
    const { position } = await runner.start();
    await runner.stop();
    return { version, position, readStore, runner, bytes: await storeBytes(readStore) };
  }
}

/** The project's version at `instant` (ms): its last event at or before it; 0 when it did not exist yet. */
export async function versionAtInstant(eventStore: EventStore, projectId: number, instant: number): Promise<number> {
  const stream = streams.project(projectId);
  let low = 0; // version known to be at or before the instant (0: before the stream)
  let high = await eventStore.streamVersion(stream); // versions above `high` do not exist
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const [event] = await eventStore.readStream(stream, { from: middle, limit: 1 });
    if (event && event.meta.occurred_at <= instant) low = middle;
    else high = middle - 1;
  }
  return low;
}

function foldKey(projectId: number, projection: Projection, version: number): string {
  return `${projectId}:${projection.name}@${version}`;
}

/** Every collection of a fold's store (documents and the runner's checkpoints) by physical name. */
async function collectionsOf(store: ReadStore): Promise<Record<string, Doc[]>> {
  const collections: Record<string, Doc[]> = {};
  for (const name of await store.listCollections()) collections[name] = await store.collection(name).all();
  return collections;
}

/** `collections` (as collectionsOf gives them) into the empty store `to`, a batch at a time with a turn between batches. */
async function loadCollections(collections: Readonly<Record<string, readonly Doc[]>>, to: ReadStore): Promise<void> {
  for (const [name, docs] of Object.entries(collections)) {
    const target = to.collection(name);
    for (let offset = 0; offset < docs.length; offset += COPY_BATCH) {
      if (offset > 0) await nextTurn();
      await target.write(docs.slice(offset, offset + COPY_BATCH).map((doc): WriteOp => ({ op: 'insert', doc })));
    }
  }
}

/** The estimated memory of a fold's documents (MEMORY_PER_JSON_BYTE times their JSON length). */
async function storeBytes(store: ReadStore): Promise<number> {
  const collections: Array<{ count: number; sample: readonly Doc[] }> = [];
  for (const name of await store.listCollections()) {
    const collection = store.collection(name);
    collections.push({ count: await collection.count({}), sample: await collection.find({}, { limit: SIZE_SAMPLE }) });
  }
  return estimatedMemory(collections);
}

/** The estimated memory of collections of documents held as arrays (a snapshot's). */
function estimatedBytesOf(collections: ReadonlyArray<readonly Doc[]>): number {
  return estimatedMemory(collections.map((docs) => ({ count: docs.length, sample: docs.slice(0, SIZE_SAMPLE) })));
}

/** The documents' JSON length, estimated per collection from a sample of them and their count, times MEMORY_PER_JSON_BYTE. */
function estimatedMemory(collections: ReadonlyArray<{ count: number; sample: readonly Doc[] }>): number {
  let bytes = 0;
  for (const { count, sample } of collections) {
    if (sample.length === 0) continue;
    const sampled = sample.reduce((sum, doc) => sum + JSON.stringify(doc).length, 0);
    bytes += Math.ceil((sampled / sample.length) * count);
  }
  return bytes * MEMORY_PER_JSON_BYTE;
}

/**
 * The events 1..`until` of one stream, seen as a whole (read-only) log in their global order: what the
 * projector runner reads when it folds one project's history. It reads forwards only, each read after
 * the last event of the previous one (from `from`: where an earlier fold stopped), which the cursor
 * maps back to a stream version.
 */
class StreamPrefix implements EventStore {
  readonly appended$ = NEVER;
  private cursor: { position: number; version: number };
  private pages = 0;

  constructor(
    private readonly source: EventStore,
    private readonly stream: string,
    private readonly until: number,
    from: { position: number; version: number },
  ) {
    this.cursor = from;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? 0;
    if (after !== this.cursor.position) throw new Error(`a stream prefix is read forwards only (after ${after}, at ${this.cursor.position})`);
    const remaining = this.until - this.cursor.version;
    if (remaining <= 0) return [];
    if (this.pages++ > 0) await nextTurn(); // the thread answers between two pages of a fold
    const limit = Math.min(options.limit ?? remaining, remaining);
    const events = await this.source.readStream(this.stream, { from: this.cursor.version + 1, limit });
    const last = events[events.length - 1];
    if (last) this.cursor = { position: last.position, version: last.version };
    return events;
  }

  async headPosition(): Promise<number> {
    const [last] = await this.source.readStream(this.stream, { from: this.until, limit: 1 });
    return last?.position ?? 0;
  }

  async streamVersion(stream: string): Promise<number> {
    return stream === this.stream ? this.until : 0;
  }

  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.source.readStream(stream, options);
  }

  append(): Promise<AppendResult> {
    return Promise.reject(new Error('a stream prefix is read-only'));
  }

  readChain(): Promise<ChainedEvent[]> {
    return Promise.reject(new Error('a stream prefix has no chain of its own'));
  }

  async close(): Promise<void> {}
}
