// One generation of one projection as the projector writes it: its physical collections
// (`<name>__g<generation>`) and what a batch of events writes there behind the replay guard. Shared by
// the projector runner and the workers of a parallel rebuild (fold-worker.ts).
import type { RecordedEvent } from '../../domain/events.js';
import type { Projection } from '../../projections/projection.js';
import type { CollectionWrites, ReadCollection, ReadStore, WriteOp } from '../../ports/read-store.js';
import { guardOp } from './replay-guard.js';
import { idsWrittenBy } from './written-ids.js';

/** One generation of one projection and how far it has applied the log. */
export interface Target {
  readonly projection: Projection;
  readonly generation: number;
  /** The projection version this generation was built with. */
  readonly version: number;
  position: number;
  /** Logical collection name -> the physical collection of this generation. */
  readonly collections: ReadonlyMap<string, ReadCollection>;
}

export function physicalName(logical: string, generation: number): string {
  return `${logical}__g${generation}`;
}

/** The collections of `projection`'s generation `generation` in `readStore`, as a target at `position`. */
export function targetOf(readStore: ReadStore, projection: Projection, generation: number, version: number, position: number): Target {
  const collections = new Map<string, ReadCollection>();
  for (const { name } of projection.collections) collections.set(name, readStore.collection(physicalName(name, generation)));
  return { projection, generation, version, position, collections };
}

/**
 * What `events` write to `target`'s generation, per physical collection, each op behind the replay
 * guard (events the target has applied already are passed over). `written` collects, per logical
 * collection written, the ids of the documents written (null: an op that does not name them).
 */
export function guardedWrites(target: Target, events: readonly RecordedEvent[], written?: Map<string, Set<number> | null>): CollectionWrites[] {
  const byCollection = new Map<string, WriteOp[]>();
  for (const event of events) {
    if (event.position <= target.position) continue;
    for (const { collection, ops } of target.projection.apply(event)) {
      if (!target.collections.has(collection)) throw new Error(`projection ${target.projection.name} wrote to undeclared collection ${collection}`);
      const physical = physicalName(collection, target.generation);
      let batch = byCollection.get(physical);
      if (!batch) byCollection.set(physical, (batch = []));
      for (const op of ops) batch.push(guardOp(op, event.position));
      if (written) noteWritten(written, collection, ops);
    }
  }
  return [...byCollection].map(([collection, ops]) => ({ collection, ops }));
}

function noteWritten(written: Map<string, Set<number> | null>, collection: string, ops: readonly WriteOp[]): void {
  const ids: Set<number> | null = written.has(collection) ? written.get(collection)! : new Set<number>();
  written.set(collection, ids);
  if (ids === null) return;
  for (const op of ops) {
    const named = idsWrittenBy(op);
    if (named === null) return void written.set(collection, null);
    for (const id of named) ids.add(id);
  }
}
