// Which documents the live batches wrote, per logical collection: for readers that keep values derived
// from the read models (the search worker's text indexes and stories' rows) and bring them up to date
// by reading those documents again, instead of building them afresh after every write. An op whose
// filter does not name its documents by id, and a switch-over to a rebuilt generation, count as writing
// any document of the collection: a reader then builds afresh.
import type { Filter, WriteOp } from '../../ports/read-store.js';

/** The ids of the documents `op` may write, or null when it does not name them. */
export function idsWrittenBy(op: WriteOp): number[] | null {
  if (op.op === 'insert') return typeof op.doc.id === 'number' ? [op.doc.id] : null;
  return idsNamedBy(op.filter);
}

/** The ids a filter restricts its documents to (`id: n` or `id: {$in: [...]}`, other conditions beside), or null. */
function idsNamedBy(filter: Filter): number[] | null {
  const id = filter.id;
  if (typeof id === 'number') return [id];
  const listed = typeof id === 'object' && id !== null && !Array.isArray(id) && Object.keys(id).length === 1 ? (id as { $in?: unknown }).$in : undefined;
  return Array.isArray(listed) && listed.every((value) => typeof value === 'number') ? (listed as number[]) : null;
}

/** Most ids remembered per collection; past them the oldest batches are forgotten (a reader that far behind builds afresh). */
const REMEMBERED_IDS = 50_000;

interface Batch {
  /** The collection's stamp once the batch was applied. */
  stamp: number;
  ids: readonly number[];
}

/**
 * Per logical collection followed, the ids each live batch wrote, by the collection's stamp
 * (ProjectorRunner.stampOf). Only the collections a reader follows are remembered (their ids would
 * otherwise cost every collection's share of memory through a long catch-up).
 */
export class WrittenIdsLog {
  private readonly batches = new Map<string, Batch[]>();
  /** Per collection, the stamp up to which what was written is not known (an unnamed write, a switch-over, forgotten batches). */
  private readonly knownAfter = new Map<string, number>();
  private readonly remembered = new Map<string, number>();

  /** Remembers the writes to `collection` from now on, its stamp being `stamp`: what was written before is not known. */
  follow(collection: string, stamp: number): void {
    if (this.batches.has(collection)) return;
    this.batches.set(collection, []);
    this.remembered.set(collection, 0);
    this.knownAfter.set(collection, stamp);
  }

  /** The batch that moved `collection`'s stamp to `stamp` wrote `ids` (null: any of its documents). Nothing for a collection not followed. */
  record(collection: string, stamp: number, ids: Iterable<number> | null): void {
    if (!this.batches.has(collection)) return;
    if (ids === null) {
      this.batches.set(collection, []);
      this.remembered.set(collection, 0);
      this.knownAfter.set(collection, stamp);
      return;
    }
    const batch = { stamp, ids: [...ids] };
    const batches = this.batches.get(collection)!;
    batches.push(batch);
    let remembered = (this.remembered.get(collection) ?? 0) + batch.ids.length;
    while (remembered > REMEMBERED_IDS && batches.length > 0) {
      const forgotten = batches.shift()!;
      remembered -= forgotten.ids.length;
      this.knownAfter.set(collection, forgotten.stamp);
    }
    this.remembered.set(collection, remembered);
  }

  /** The ids written to `collection` since its stamp was `stamp` (none when it has not moved), or null when they are not all known (or it is not followed). */
  since(collection: string, stamp: number): Set<number> | null {
    const batches = this.batches.get(collection);
    if (batches === undefined || stamp < this.knownAfter.get(collection)!) return null;
    const ids = new Set<number>();
    for (const batch of batches) if (batch.stamp > stamp) for (const id of batch.ids) ids.add(id);
    return ids;
  }
}
