// The working set of an offline rebuild: the documents of the fresh generations being built, folded in
// memory and written to the read store once each, instead of being read, updated, serialised and
// stored at every batch of events as the live path does (projector-runner.ts runRebuild).
//
// - The guarded ops of each batch run against an in-memory read store (memory-read-store.ts: the same
//   Mongo filter / update evaluator as every embedded store, not a second one).
// - Memory is bounded: when the heap passes `heapBudgetBytes`, the documents no op has touched in the
//   last KEEP_BATCHES batches are moved out to the read store (putDocuments: one write per document) -
//   an activity index entry, written once, leaves at the next such pass. An op on a document moved out
//   brings it back first (one indexed read of the ids missing from the batch); a write whose filter is
//   not an `id` brings back its whole collection and keeps it in memory to the end, so every op sees
//   exactly the documents a live build would have. `flush()` writes what is left.
// - What an evicted-then-deleted document left in the read store is deleted there at its next write.
import type { CollectionWrites, Doc, ReadStore, WriteOp } from '../../ports/read-store.js';
import { createMemoryReadStore, type MemoryReadStore } from '../read-store/memory-read-store.js';

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
/** Documents per putDocuments call / ids per read when moving documents out or back. */
const MOVE_CHUNK = 1000;

/** What the working set knows of one physical collection. */
interface CollectionState {
  /** Documents that may be in memory -> the batch that last wrote them. */
  readonly touched: Map<number, number>;
  /** Ids the read store holds (moved out at least once and not deleted there since). */
  readonly stored: Set<number>;
  /** A write filtered by something other than `id` was seen: everything stays in memory. */
  pinned: boolean;
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
  /** Documents moved out to the read store so far (also counts those moved out twice). */
  evicted = 0;
  /** Documents brought back from the read store. */
  reloaded = 0;

  constructor(
    private readonly store: ReadStore,
    private readonly options: RebuildWorkingSetOptions,
  ) {
    if (!(options.heapBudgetBytes > 0)) throw new Error('heapBudgetBytes must be positive');
    this.heapUsed = options.heapUsed ?? defaultHeapUsed;
  }

  private state(collection: string): CollectionState {
    let state = this.states.get(collection);
    if (!state) this.states.set(collection, (state = { touched: new Map(), stored: new Set(), pinned: false }));
    return state;
  }

  /** Applies one batch's writes (already guarded by the replay guard), in order, to the working set. */
  async apply(writes: readonly CollectionWrites[]): Promise<void> {
    this.batch++;
    for (const { collection, ops } of writes) await this.bringBack(collection, ops);
    await this.memory.writeAtomically(writes);
    if (this.heapUsed() > this.options.heapBudgetBytes && this.batch - this.lastEviction >= KEEP_BATCHES) {
      this.lastEviction = this.batch;
      await this.moveOut(this.batch - KEEP_BATCHES);
    }
  }

  /** Writes every document still in memory to the read store (and deletes what was deleted since it left). */
  async flush(): Promise<void> {
    await this.moveOut(Infinity);
    await this.memory.close();
  }

  /** Makes the documents `ops` address resident: from the read store when they were moved out. */
  private async bringBack(collection: string, ops: readonly WriteOp[]): Promise<void> {
    const state = this.state(collection);
    const missing: number[] = [];
    for (const op of ops) {
      const id = idOf(op);
      if (id === null) {
        if (!state.pinned) await this.pin(collection, state);
        continue;
      }
      if (!state.touched.has(id) && state.stored.has(id)) missing.push(id);
      state.touched.set(id, this.batch);
    }
    if (missing.length > 0) await this.reload(collection, missing);
  }

  /** Brings the whole collection back and keeps it (a filter not by id may match any document). */
  private async pin(collection: string, state: CollectionState): Promise<void> {
    state.pinned = true;
    const missing = [...state.stored].filter((id) => !state.touched.has(id));
    for (const id of missing) state.touched.set(id, this.batch);
    await this.reload(collection, missing);
  }

  private async reload(collection: string, ids: readonly number[]): Promise<void> {
    const stored = this.store.collection(collection);
    for (let offset = 0; offset < ids.length; offset += MOVE_CHUNK) {
      const docs = await stored.find({ id: { $in: ids.slice(offset, offset + MOVE_CHUNK) } });
      this.reloaded += docs.length;
      await this.memory.putDocuments(collection, docs);
    }
  }

  /** Moves every document last written before batch `before` (all with Infinity) out to the read store. */
  private async moveOut(before: number): Promise<void> {
    for (const [collection, state] of this.states) {
      if (state.pinned && before !== Infinity) continue;
      const leaving: number[] = [];
      for (const [id, batch] of state.touched) if (batch < before) leaving.push(id);
      for (let offset = 0; offset < leaving.length; offset += MOVE_CHUNK) {
        const ids = leaving.slice(offset, offset + MOVE_CHUNK);
        const docs = this.memory.takeDocuments(collection, ids);
        if (docs.length > 0) await this.store.putDocuments(collection, docs);
        this.evicted += docs.length;
        await this.deleteGone(collection, state, ids, docs);
        for (const id of ids) state.touched.delete(id);
        for (const doc of docs) state.stored.add(doc.id);
      }
    }
  }

  /** Deletes from the read store the documents it holds that the fold deleted since they left. */
  private async deleteGone(collection: string, state: CollectionState, ids: readonly number[], kept: readonly Doc[]): Promise<void> {
    const present = new Set(kept.map((doc) => doc.id));
    const gone = ids.filter((id) => !present.has(id) && state.stored.has(id));
    if (gone.length === 0) return;
    await this.store.writeAtomically([{ collection, ops: [{ op: 'delete', filter: { id: { $in: gone } }, many: true }] }]);
    for (const id of gone) state.stored.delete(id);
  }
}
