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
//   version, and the persisted snapshot at or below the version (snapshot-store.ts; taken by the
//   project-snapshots reaction every K versions). Its documents and checkpoint are copied into a fresh
//   store and only the events after it are applied (the runner resumes from the copied checkpoint, as it
//   does after a restart). Without either it starts from the first event.
// - Folds are cached per (project, projection, version), least recently used first out, bounded by
//   entries and by an estimate of their bytes; a fold requested while it runs is shared.
// The instant -> version look-up is a binary search over the stream (one one-event read per step: 17
// reads for 100,000 events).
import { NEVER } from 'rxjs';
import type { RecordedEvent } from '../../domain/events.js';
import { streams } from '../../domain/events.js';
import type { Projection } from '../../projections/projection.js';
import type { AppendResult, ChainedEvent, EventStore, ReadAllOptions, ReadStreamOptions } from '../../ports/event-store.js';
import type { Doc, ReadOnlyCollection, ReadStore, WriteOp } from '../../ports/read-store.js';
import type { CollectionReader, ProjectHistory } from '../../queries/time-travel.js';
import { ProjectorRunner } from '../projector/projector-runner.js';
import type { ProjectSnapshot, SnapshotSource } from './snapshot-store.js';

export interface ProjectHistoryOptions {
  eventStore: EventStore;
  projections: readonly Projection[];
  /** A fresh, empty read store for one fold. */
  newReadStore(): ReadStore;
  /** Folds kept (one per project, projection and version; least recently used dropped first); at least 1. */
  cacheEntries: number;
  /** Estimated bytes of the documents of the folds kept; the most recent fold is kept whatever its size. */
  cacheBytes: number;
  /** Persisted snapshots a fold may start from (none: every cold fold starts from the first event). */
  snapshots?: SnapshotSource;
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

/** Documents sampled per collection to estimate a fold's bytes. */
const SIZE_SAMPLE = 64;
/** Writes per batch when a fold's documents are copied into the store of a fold forward. */
const COPY_BATCH = 1000;

export class FoldingProjectHistory implements ProjectHistory {
  /** `<project>:<projection>@<version>` -> its fold; insertion order is recency (least recent first). */
  private readonly folds = new Map<string, Promise<Fold>>();
  /** Estimated bytes of the finished folds in `folds`. */
  private readonly sizes = new Map<string, number>();
  private bytes = 0;
  /** Logical collection name -> the projection that writes it. */
  private readonly owners = new Map<string, Projection>();

  constructor(private readonly options: ProjectHistoryOptions) {
    if (!(Number.isSafeInteger(options.cacheEntries) && options.cacheEntries > 0)) throw new Error('cacheEntries must be a positive integer');
    if (!(Number.isSafeInteger(options.cacheBytes) && options.cacheBytes > 0)) throw new Error('cacheBytes must be a positive integer');
    for (const projection of options.projections) for (const { name } of projection.collections) this.owners.set(name, projection);
  }

  async versionAt(projectId: number, instant: number): Promise<number> {
    const stream = streams.project(projectId);
    let low = 0; // version known to be at or before the instant (0: before the stream)
    let high = await this.options.eventStore.streamVersion(stream); // versions above `high` do not exist
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      const [event] = await this.options.eventStore.readStream(stream, { from: middle, limit: 1 });
      if (event && event.meta.occurred_at <= instant) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** The project's collections at `version`; each projection is folded when one of its collections is first read. */
  async readerAt(projectId: number, version: number): Promise<CollectionReader> {
    return (name) => {
      const projection = this.owners.get(name);
      if (!projection) throw new Error(`no projection declares the collection ${name}`);
      const collection = async (): Promise<ReadOnlyCollection> => (await this.foldOf(projectId, projection, version)).runner.collection(name);
      return {
        name,
        find: async (filter, options) => (await collection()).find(filter, options),
        findOne: async (filter) => (await collection()).findOne(filter),
        count: async (filter) => (await collection()).count(filter),
        all: async () => (await collection()).all(),
      };
    };
  }

  /** The documents of `projection` folded over the project's stream up to `version`, as a snapshot holds them. */
  async snapshotAt(projectId: number, projection: Projection, version: number): Promise<ProjectSnapshot> {
    const fold = await this.foldOf(projectId, projection, version);
    const event = await this.chainEventAt(fold.position);
    if (!event || event.stream !== streams.project(projectId) || event.version !== version) throw new Error(`the log holds no event ${version} of project ${projectId} at position ${fold.position}`);
    return { version, position: fold.position, hash: event.hash, collections: await collectionsOf(fold.readStore) };
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

  /** Drops every cached fold (closing their stores). */
  async close(): Promise<void> {
    const folds = [...this.folds.values()];
    this.folds.clear();
    this.sizes.clear();
    this.bytes = 0;
    for (const fold of await Promise.allSettled(folds)) if (fold.status === 'fulfilled') await fold.value.readStore.close();
  }

  private foldOf(projectId: number, projection: Projection, version: number): Promise<Fold> {
    const key = foldKey(projectId, projection, version);
    let fold = this.folds.get(key);
    if (fold) {
      this.folds.delete(key);
      this.folds.set(key, fold);
      return fold;
    }
    const start = this.nearestBelow(projectId, projection, version);
    fold = this.fold(projectId, projection, version, start);
    this.folds.set(key, fold);
    fold.then(
      (done) => {
        if (this.folds.get(key) !== fold) return; // dropped while it ran
        this.sizes.set(key, done.bytes);
        this.bytes += done.bytes;
        this.evictBeyondBounds();
      },
      () => this.forget(key),
    );
    this.evictBeyondBounds();
    return fold;
  }

  /** The cached fold of the same project and projection at the highest version below `version`. */
  private nearestBelow(projectId: number, projection: Projection, version: number): Promise<Fold> | null {
    const prefix = foldKey(projectId, projection, 0).slice(0, -1);
    let best: { version: number; fold: Promise<Fold> } | null = null;
    for (const [key, fold] of this.folds) {
      if (!key.startsWith(prefix)) continue;
      const cached = Number(key.slice(prefix.length));
      if (cached < version && (!best || cached > best.version)) best = { version: cached, fold };
    }
    return best?.fold ?? null;
  }

  private forget(key: string): void {
    if (!this.folds.delete(key)) return;
    this.bytes -= this.sizes.get(key) ?? 0;
    this.sizes.delete(key);
  }

  /**
   * Forgets the least recently used folds beyond the bounds (the most recent one stays). Their stores are
   * not closed: a request may still be reading one; it is garbage once no request holds it.
   */
  private evictBeyondBounds(): void {
    while (this.folds.size > 1 && (this.folds.size > this.options.cacheEntries || this.bytes > this.options.cacheBytes)) {
      this.forget(this.folds.keys().next().value as string);
    }
  }

  /**
   * Folds `projection` over the project's stream up to `version`, from a copy of the nearer of an
   * earlier cached fold and the persisted snapshot at or below `version` when there is one.
   */
  private async fold(projectId: number, projection: Projection, version: number, start: Promise<Fold> | null): Promise<Fold> {
    const readStore = this.options.newReadStore();
    const earlier = await start?.catch(() => null);
    const snapshot = await this.snapshotBelow(projectId, projection, version);
    let from = { position: 0, version: 0 };
    if (snapshot && snapshot.version > (earlier?.version ?? 0)) {
      await loadCollections(snapshot.collections, readStore);
      from = { position: snapshot.position, version: snapshot.version };
    } else if (earlier) {
      await loadCollections(await collectionsOf(earlier.readStore), readStore);
      from = { position: earlier.position, version: earlier.version };
    }
    const stream = streams.project(projectId);
    const runner = new ProjectorRunner({ eventStore: new StreamPrefix(this.options.eventStore, stream, version, from), readStore, projections: [projection] });
    const { position } = await runner.start();
    await runner.stop();
    return { version, position, readStore, runner, bytes: await estimatedBytes(readStore) };
  }
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

/** `collections` (as collectionsOf gives them) into the empty store `to`. */
async function loadCollections(collections: Readonly<Record<string, readonly Doc[]>>, to: ReadStore): Promise<void> {
  for (const [name, docs] of Object.entries(collections)) {
    const target = to.collection(name);
    for (let offset = 0; offset < docs.length; offset += COPY_BATCH) {
      await target.write(docs.slice(offset, offset + COPY_BATCH).map((doc): WriteOp => ({ op: 'insert', doc })));
    }
  }
}

/** The documents' JSON length, estimated per collection from a sample of them and their count. */
async function estimatedBytes(store: ReadStore): Promise<number> {
  let bytes = 0;
  for (const name of await store.listCollections()) {
    const collection = store.collection(name);
    const sample = await collection.find({}, { limit: SIZE_SAMPLE });
    if (sample.length === 0) continue;
    const sampled = sample.reduce((sum, doc) => sum + JSON.stringify(doc).length, 0);
    bytes += Math.ceil((sampled / sample.length) * (await collection.count({})));
  }
  return bytes;
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
