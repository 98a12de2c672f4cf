// The read models of a project as they stood at one version, built by the projector runner itself:
// a fresh read store (the composition root injects the factory: memory) caught up, with the registry's
// projections, over a view of the event store holding the project stream's events 1..N and nothing
// else. So the folded documents are exactly what the live read models held at version N (same apply,
// same replay guard, same batching): no second implementation of the projections.
//
// Folds are cached per (project, version), least recently used first out, bounded by entries; a fold
// requested while it runs is shared. The instant -> version look-up is a binary search over the stream
// (one one-event read per step: 17 reads for 100,000 events).
import { NEVER } from 'rxjs';
import type { RecordedEvent } from '../../domain/events.js';
import { streams } from '../../domain/events.js';
import type { Projection } from '../../projections/projection.js';
import type { AppendResult, ChainedEvent, EventStore, ReadAllOptions, ReadStreamOptions } from '../../ports/event-store.js';
import type { ReadStore } from '../../ports/read-store.js';
import type { CollectionReader, ProjectHistory } from '../../queries/time-travel.js';
import { ProjectorRunner } from '../projector/projector-runner.js';

export interface ProjectHistoryOptions {
  eventStore: EventStore;
  projections: readonly Projection[];
  /** A fresh, empty read store for one fold. */
  newReadStore(): ReadStore;
  /** Folds kept (least recently used dropped first); at least 1. */
  cacheEntries: number;
}

interface Fold {
  reader: CollectionReader;
  readStore: ReadStore;
}

export class FoldingProjectHistory implements ProjectHistory {
  private readonly folds = new Map<string, Promise<Fold>>();

  constructor(private readonly options: ProjectHistoryOptions) {
    if (!(Number.isSafeInteger(options.cacheEntries) && options.cacheEntries > 0)) throw new Error('cacheEntries must be a positive integer');
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

  async readerAt(projectId: number, version: number): Promise<CollectionReader> {
    const key = `${projectId}@${version}`;
    let fold = this.folds.get(key);
    if (fold) {
      this.folds.delete(key);
      this.folds.set(key, fold);
    } else {
      fold = this.fold(streams.project(projectId), version);
      this.folds.set(key, fold);
      fold.catch(() => this.folds.delete(key));
      this.evictBeyondBound();
    }
    return (await fold).reader;
  }

  /** Drops every cached fold (closing their stores). */
  async close(): Promise<void> {
    const folds = [...this.folds.values()];
    this.folds.clear();
    for (const fold of await Promise.allSettled(folds)) if (fold.status === 'fulfilled') await fold.value.readStore.close();
  }

  /**
   * Forgets the least recently used folds beyond the bound. Their stores are not closed: a request may
   * still be reading one; it is garbage once no request holds its reader.
   */
  private evictBeyondBound(): void {
    while (this.folds.size > this.options.cacheEntries) {
      const oldest = this.folds.keys().next().value as string;
      this.folds.delete(oldest);
    }
  }

  private async fold(stream: string, version: number): Promise<Fold> {
    const readStore = this.options.newReadStore();
    const runner = new ProjectorRunner({
      eventStore: new StreamPrefix(this.options.eventStore, stream, version),
      readStore,
      projections: this.options.projections,
    });
    await runner.start();
    await runner.stop();
    return { readStore, reader: (name) => runner.collection(name) };
  }
}

/**
 * The events 1..`until` of one stream, seen as a whole (read-only) log in their global order: what the
 * projector runner reads when it folds one project's history. It reads forwards only, each read after
 * the last event of the previous one, which the cursor maps back to a stream version.
 */
class StreamPrefix implements EventStore {
  readonly appended$ = NEVER;
  private cursor = { position: 0, version: 0 };

  constructor(
    private readonly source: EventStore,
    private readonly stream: string,
    private readonly until: number,
  ) {}

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
