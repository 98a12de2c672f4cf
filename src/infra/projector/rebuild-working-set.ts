// The working set of an offline rebuild: the documents of the fresh generations being built, folded in
// memory and written to the read store once each, instead of being read, updated, serialised and
// stored at every batch of events as the live path does (projector-runner.ts runRebuild).
//
// - The guarded ops of each batch run against an in-memory read store (memory-read-store.ts: the same
//   Mongo filter / update evaluator as every embedded store, not a second one).
// - Memory is bounded: when the heap passes `heapBudgetBytes`, documents are moved out to the read
//   store (putDocuments: one write per document) until an estimate of their heap brings it back to
//   LOW_WATER of the budget: first those written once (an activity index entry is never written
//   again), then those written more often, least recently written first, never one written in the
//   last KEEP_BATCHES batches. An op on a document moved out brings it back first (one indexed read of
//   the ids a batch misses); a write whose filter is not an `id` brings back its whole collection and
//   keeps it in memory to the end, so every op sees exactly the documents a live build would have.
//   `flush()` writes what is left.
// - Whatever the heap, the documents of a collection none of whose documents was ever written twice,
//   after STREAM_AFTER_DOCUMENTS of them (the activity indexes: one insert per event), are written out
//   once KEEP_BATCHES batches old, every
//   STREAM_BATCHES batches: they would only be moved out later, after filling the heap and costing the
//   garbage collector a mark of each at every major collection. A collection that turns out to rewrite
//   a document stops streaming (what was written out is brought back when written again, as above).
// - What a document moved out and then deleted left in the read store is deleted there when it leaves.
// - Which documents are resident, and since which batch, is kept per collection by id, a write of a
//   document written before only updating its batch (cheaper than one map in least-recently-written
//   order, which costs a delete and an insert per write). A move out under the budget tallies the
//   queues by batch instead of walking them in order.
import type { CollectionWrites, Doc, ReadStore, WriteOp } from '../../ports/read-store.js';
import { estimatedDocumentBytes } from '../read-store/document-cache.js';
import { createMemoryReadStore, type MemoryReadStore } from '../read-store/memory-read-store.js';
import { IdBitmap } from './id-bitmap.js';

export interface RebuildWorkingSetOptions {
  /** Heap size (V8 `heapUsed`) above which untouched documents are moved out to the read store. */
  heapBudgetBytes: number;
  /** How the heap is measured (tests pass their own). */
  heapUsed?: () => number;
}

/** Default heap bound of a rebuild's working set (STORYLINE_REBUILD_HEAP_BYTES): 768 MiB. */
export const DEFAULT_REBUILD_HEAP_BYTES = 768 * 1024 * 1024;

/** Batches a document stays in memory after its last write, whatever the heap. */
const KEEP_BATCHES = 8;
/** A pass that moves documents out aims at this share of the budget. */
const LOW_WATER = 0.6;
/** Documents per putDocuments call / ids per read when moving documents out or back. */
const MOVE_CHUNK = 1000;
/** How often documents of collections written once per document are written out. */
const STREAM_BATCHES = 16;
/** Documents a collection has had written, none twice, before it is taken to write each document once. */
const STREAM_AFTER_DOCUMENTS = 1000;
/** Every SIZE_SAMPLE-th document moved out is measured, for the estimate of what a document holds. */
const SIZE_SAMPLE = 32;
/** What a document is assumed to hold before one of its collection was measured. */
const FIRST_SIZE_GUESS = 1024;

/** What the working set knows of one physical collection. */
interface CollectionState {
  readonly name: string;
  /** Ids the read store holds (moved out at least once and not deleted there since). */
  readonly stored: IdBitmap;
  /**
   * Resident documents written once since they came in: id -> the batch that wrote it, in the order
   * they came in (so oldest first: an entry's batch never changes).
   */
  readonly once: Map<number, number>;
  /** Resident documents written again since they came in: id -> the batch that last wrote it, in no order. */
  readonly again: Map<number, number>;
  /** A write filtered by something other than `id` was seen: everything stays in memory. */
  pinned: boolean;
  /** Some document was written again (or brought back to be): its documents are not streamed out. */
  rewritten: boolean;
  /** Documents that came into memory (first writes and documents brought back). */
  documents: number;
  /** Estimated heap bytes of one of its documents (sampled as they move out). */
  documentBytes: number;
  moved: number;
}

/** A resident document on its way out: its collection and id. */
interface Leaving {
  readonly state: CollectionState;
  readonly id: number;
}

/** The single document id an op addresses; null when its filter is not an `id` equality. */
function idOf(op: WriteOp): number | null {
  if (op.op === 'insert') return op.doc.id;
  const id = op.filter.id;
  return typeof id === 'number' ? id : null;
}

const defaultHeapUsed = (): number => process.memoryUsage().heapUsed;

export class RebuildWorkingSet {
  private readonly memory: MemoryReadStore = createMemoryReadStore();
  private readonly states = new Map<string, CollectionState>();
  private readonly heapUsed: () => number;
  private batch = 0;
  /** The batch of the last move out (the heap shows its effect only after a collection). */
  private lastEviction = -Infinity;
  /** Documents moved out to the read store before the end (also counts those moved out twice). */
  evicted = 0;
  /** Documents brought back from the read store. */
  reloaded = 0;
  /** Documents of collections written once per document, written out as they aged (not counted in `evicted`). */
  streamed = 0;

  constructor(
    private readonly store: ReadStore,
    private readonly options: RebuildWorkingSetOptions,
  ) {
    if (!(options.heapBudgetBytes > 0)) throw new Error('heapBudgetBytes must be positive');
    this.heapUsed = options.heapUsed ?? defaultHeapUsed;
  }

  private state(collection: string): CollectionState {
    let state = this.states.get(collection);
    if (!state) {
      state = { name: collection, stored: new IdBitmap(), once: new Map(), again: new Map(), pinned: false, rewritten: false, documents: 0, documentBytes: FIRST_SIZE_GUESS, moved: 0 };
      this.states.set(collection, state);
    }
    return state;
  }

  /** Applies one batch's writes (already guarded by the replay guard), in order, to the working set. */
  async apply(writes: readonly CollectionWrites[]): Promise<void> {
    this.batch++;
    for (const { collection, ops } of writes) await this.bringBack(collection, ops);
    await this.memory.writeAtomically(writes);
    if (this.batch % STREAM_BATCHES === 0) await this.streamOut();
    if (this.batch - this.lastEviction < KEEP_BATCHES) return;
    const heap = this.heapUsed();
    if (heap <= this.options.heapBudgetBytes) return;
    this.lastEviction = this.batch;
    await this.moveOut(this.leastRecentlyWritten(heap - this.options.heapBudgetBytes * LOW_WATER));
  }

  /** Writes every document still in memory to the read store (and deletes what was deleted since it left). */
  async flush(): Promise<void> {
    const all: Leaving[] = [];
    for (const state of this.states.values()) {
      for (const queue of [state.once, state.again]) {
        for (const id of queue.keys()) all.push({ state, id });
        queue.clear();
      }
    }
    const evicted = this.evicted;
    await this.moveOut(all);
    this.evicted = evicted;
    await this.memory.close();
  }

  /** Makes the documents `ops` address resident (from the read store when they were moved out) and records the write. */
  private async bringBack(collection: string, ops: readonly WriteOp[]): Promise<void> {
    const state = this.state(collection);
    const missing: number[] = [];
    for (const op of ops) {
      const id = idOf(op);
      if (id === null) {
        if (!state.pinned) await this.pin(state);
        continue;
      }
      if (this.written(state, id) && state.stored.has(id)) missing.push(id);
    }
    if (missing.length > 0) state.rewritten = true;
    if (missing.length > 0) await this.reload(state, missing);
  }

  /** Records a write of (state, id); true when the document was not resident before. */
  private written(state: CollectionState, id: number): boolean {
    if (state.again.has(id)) {
      state.again.set(id, this.batch);
      return false;
    }
    if (state.once.delete(id)) {
      state.rewritten = true;
      state.again.set(id, this.batch);
      return false;
    }
    state.once.set(id, this.batch);
    state.documents++;
    return true;
  }

  /** Brings the whole collection back and keeps it (a filter not by id may match any document). */
  private async pin(state: CollectionState): Promise<void> {
    state.pinned = true;
    const missing = [...state.stored.ids()].filter((id) => this.written(state, id));
    await this.reload(state, missing);
  }

  private async reload(state: CollectionState, ids: readonly number[]): Promise<void> {
    const stored = this.store.collection(state.name);
    for (let offset = 0; offset < ids.length; offset += MOVE_CHUNK) {
      const docs = await stored.find({ id: { $in: ids.slice(offset, offset + MOVE_CHUNK) } });
      this.reloaded += docs.length;
      await this.memory.putDocuments(state.name, docs);
    }
  }

  /** Writes out the aged documents of collections written once per document. */
  private async streamOut(): Promise<void> {
    const evicted = this.evicted;
    await this.moveOut(this.writtenOnceAndOld());
    this.streamed += this.evicted - evicted;
    this.evicted = evicted;
  }

  /** Takes out of the written-once queues their documents of collections never rewritten, KEEP_BATCHES batches old. */
  private writtenOnceAndOld(): Leaving[] {
    const leaving: Leaving[] = [];
    const old = this.batch - KEEP_BATCHES;
    for (const state of this.states.values()) {
      if (state.rewritten || state.pinned || state.documents < STREAM_AFTER_DOCUMENTS) continue;
      for (const [id, batch] of state.once) {
        if (batch > old) break;
        state.once.delete(id);
        leaving.push({ state, id });
      }
    }
    return leaving;
  }

  /**
   * Takes out of the queues the documents to move out to free about `bytes` of heap: written once
   * first, then the others, least recently written first, none of the last KEEP_BATCHES batches and
   * none of a pinned collection.
   */
  private leastRecentlyWritten(bytes: number): Leaving[] {
    const leaving: Leaving[] = [];
    const freed = this.takeOldest('once', bytes, leaving);
    if (freed < bytes) this.takeOldest('again', bytes - freed, leaving);
    return leaving;
  }

  /**
   * Takes from one queue of every collection not pinned the documents least recently written (by
   * batch, none of the last KEEP_BATCHES) that free about `bytes`, into `leaving`; returns the bytes
   * freed. A tally of bytes by batch finds the last batch to take from, so the queues need no order.
   */
  private takeOldest(queue: 'once' | 'again', bytes: number, leaving: Leaving[]): number {
    const old = this.batch - KEEP_BATCHES;
    if (old < 0) return 0;
    const states = [...this.states.values()].filter((state) => !state.pinned);
    const byBatch = new Float64Array(old + 1);
    for (const state of states) for (const batch of state[queue].values()) if (batch <= old) byBatch[batch]! += state.documentBytes;
    let last = old;
    for (let batch = 0, sum = 0; batch <= old; batch++) {
      sum += byBatch[batch]!;
      if (sum >= bytes) {
        last = batch;
        break;
      }
    }
    let freed = 0;
    for (const state of states) {
      for (const [id, batch] of state[queue]) {
        if (batch > last || (batch === last && freed >= bytes)) continue;
        state[queue].delete(id);
        leaving.push({ state, id });
        freed += state.documentBytes;
      }
    }
    return freed;
  }

  /** Moves these documents from memory to the read store, by collection, in chunks. */
  private async moveOut(leaving: readonly Leaving[]): Promise<void> {
    const byCollection = new Map<CollectionState, number[]>();
    for (const { state, id } of leaving) {
      let ids = byCollection.get(state);
      if (!ids) byCollection.set(state, (ids = []));
      ids.push(id);
    }
    for (const [state, ids] of byCollection) {
      ids.sort((a, b) => a - b); // stored in id order: SQLite fills its b-tree pages in order (twice as fast)
      for (let offset = 0; offset < ids.length; offset += MOVE_CHUNK) {
        const chunk = ids.slice(offset, offset + MOVE_CHUNK);
        const docs = this.memory.takeDocuments(state.name, chunk);
        this.measure(state, docs);
        if (docs.length > 0) await this.store.putDocuments(state.name, docs);
        this.evicted += docs.length;
        await this.deleteGone(state, chunk, docs);
        for (const doc of docs) state.stored.add(doc.id);
      }
    }
  }

  /** Updates the collection's estimate of a document's heap from a sample of the documents leaving. */
  private measure(state: CollectionState, docs: readonly Doc[]): void {
    for (let i = 0; i < docs.length; i += SIZE_SAMPLE) {
      const bytes = estimatedDocumentBytes(JSON.stringify(docs[i]).length);
      state.moved++;
      state.documentBytes += (bytes - state.documentBytes) / Math.min(state.moved, 64);
    }
  }

  /** Deletes from the read store the documents it holds that the fold deleted since they left. */
  private async deleteGone(state: CollectionState, ids: readonly number[], kept: readonly Doc[]): Promise<void> {
    const present = new Set(kept.map((doc) => doc.id));
    const gone = ids.filter((id) => !present.has(id) && state.stored.has(id));
    if (gone.length === 0) return;
    await this.store.writeAtomically([{ collection: state.name, ops: [{ op: 'delete', filter: { id: { $in: gone } }, many: true }] }]);
    for (const id of gone) state.stored.delete(id);
  }
}
