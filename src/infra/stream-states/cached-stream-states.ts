// The one StreamStates adapter: states kept in memory (least recently used let go first, bounded by the
// documents they hold together), loaded after a start from the stream's latest decision-state snapshot
// and the events after it (stream-state-loading.ts), and snapshotted every `snapshotEvery` events, by the
// snapshot builder's worker when there is one so that the serving thread serialises nothing.
// A hand-written LRU over a Map: lru-cache refuses an entry larger than its bound, and the state just
// used must be kept whatever its size; a state's size also changes in place as it is evolved.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { emptyState } from '../../domain/decision-states.js';
import type { StreamState } from '../../domain/resource-state.js';
import type { EventStore } from '../../ports/event-store.js';
import type { DecisionStateSnapshotBuilder, DecisionStateSnapshots } from '../../ports/decision-state-snapshots.js';
import type { StreamStates } from '../../ports/stream-states.js';
import { eventsPastSnapshot, foldNewEvents, stateOfLatestSnapshot } from './stream-state-loading.js';

/** Events a stream folds past its last snapshot before the next is stored (figures: docs/benchmarks.md). */
export const DEFAULT_SNAPSHOT_EVERY = 1000;

/** Documents the kept states may hold together (figures: docs/benchmarks.md). */
export const DEFAULT_STATE_CACHE_DOCUMENTS = 100_000;

export interface CachedStreamStatesOptions {
  eventStore: EventStore;
  /**
   * Documents the kept states may hold together (default DEFAULT_STATE_CACHE_DOCUMENTS): the least
   * recently used states are let go first; the one just used is kept whatever its size.
   */
  cacheDocuments?: number;
  /** Where states are kept between starts; without, the first load of a stream folds its whole history. */
  snapshots?: DecisionStateSnapshots;
  /**
   * Builds snapshots off the serving thread: a stream not kept that is `snapshotEvery` events or more
   * past its snapshot (or has none) is loaded once the builder has stored one at its head (a failed build
   * only means a longer fold here).
   */
  snapshotBuilder?: DecisionStateSnapshotBuilder;
  /** Events a stream folds past its last snapshot before the next is stored (default DEFAULT_SNAPSHOT_EVERY). */
  snapshotEvery?: number;
  /** Told of a snapshot that could not be read or stored: the load goes on without it. */
  onSnapshotError?: (error: unknown, stream: string) => void;
}

export class CachedStreamStates implements StreamStates<StreamState> {
  private readonly states = new Map<string, StreamState>();
  /** The documents of each kept state when it was last kept, and their sum. */
  private readonly documents = new Map<string, number>();
  private documentsTotal = 0;
  /** The version of the latest snapshot stored or read of each kept state. */
  private readonly snapshotVersions = new Map<string, number>();
  private readonly cacheDocuments: number;
  private readonly snapshotEvery: number;

  constructor(private readonly options: CachedStreamStatesOptions) {
    this.cacheDocuments = options.cacheDocuments ?? DEFAULT_STATE_CACHE_DOCUMENTS;
    this.snapshotEvery = options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
  }

  /** The kept state as it is, marked most recently used. */
  kept(stream: string): StreamState | undefined {
    const state = this.states.get(stream);
    if (state) {
      this.states.delete(stream); // re-inserted: the Map's order is the LRU order
      this.states.set(stream, state);
    }
    return state;
  }

  async load(stream: string): Promise<StreamState> {
    const state = this.kept(stream) ?? (await this.fromSnapshot(stream)) ?? emptyState(stream);
    // A long stream read cold (the first write to it since the start, without a recent snapshot): other
    // requests get their turn between pages, or folding a big project's history would hold the whole server.
    await foldNewEvents(this.options.eventStore, state, nextTurn);
    this.keep(stream, state);
    return state;
  }

  keep(stream: string, state: StreamState): void {
    this.remember(stream, state);
    this.snapshotIfDue(state);
  }

  /**
   * The state of the stream's latest snapshot when it can serve (stream-state-loading.ts); with a
   * snapshot builder, once the builder has brought that snapshot near the stream's head.
   */
  private async fromSnapshot(stream: string): Promise<StreamState | null> {
    const { snapshots, snapshotBuilder, eventStore } = this.options;
    if (!snapshots) return null;
    try {
      // Only a stream the distance or more past its snapshot waits for the builder (a one-shot CLI command
      // on a short stream starts no worker; a start with every snapshot in place asks it nothing).
      if (snapshotBuilder && (await eventsPastSnapshot(snapshots, eventStore, stream)) >= this.snapshotEvery) await snapshotBuilder.catchUp(stream);
    } catch (error) {
      this.options.onSnapshotError?.(error, stream);
    }
    try {
      const state = await stateOfLatestSnapshot(snapshots, eventStore, stream);
      if (state) this.snapshotVersions.set(stream, state.version);
      return state;
    } catch (error) {
      this.options.onSnapshotError?.(error, stream);
      return null;
    }
  }

  /**
   * Stores a snapshot of the state once it has folded `snapshotEvery` events past its last one. With a
   * builder, its worker folds the stream from that last snapshot and stores the next one, so the serving
   * thread serialises nothing; if the builder fails, the state is snapshotted here (as it is then: the
   * fallback runs later), and the failure told.
   */
  private snapshotIfDue(state: StreamState): void {
    const { snapshots, snapshotBuilder } = this.options;
    if (!snapshots || state.lastEventId === null) return;
    if (state.version - (this.snapshotVersions.get(state.stream) ?? 0) < this.snapshotEvery) return;
    this.snapshotVersions.set(state.stream, state.version);
    const here = () => snapshots.save(state.snapshot());
    const failedThere = (error: unknown) => {
      this.options.onSnapshotError?.(error, state.stream);
      return here();
    };
    let saving: Promise<void>;
    try {
      saving = snapshotBuilder ? snapshotBuilder.catchUp(state.stream).catch(failedThere) : here();
    } catch (error) {
      saving = Promise.reject(error);
    }
    saving.catch((error: unknown) => this.options.onSnapshotError?.(error, state.stream));
  }

  /**
   * Keeps a state (recounting its documents) and lets the least recently used others go while the
   * states hold more documents together than the bound.
   */
  private remember(stream: string, state: StreamState): void {
    this.states.set(stream, state);
    const documents = state.documentCount();
    this.documentsTotal += documents - (this.documents.get(stream) ?? 0);
    this.documents.set(stream, documents);
    for (const oldest of this.states.keys()) {
      if (this.documentsTotal <= this.cacheDocuments || oldest === stream) break;
      this.states.delete(oldest);
      this.documentsTotal -= this.documents.get(oldest)!;
      this.documents.delete(oldest);
      this.snapshotVersions.delete(oldest);
    }
  }
}
