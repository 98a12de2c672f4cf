// The offline shape of a build from the log: the log read once up to `until`, every target's guarded ops
// applied to one in-memory working set, whose documents reach the read store once each (moved out early
// only to bound the heap: rebuild-working-set.ts). Run by the projector runner in its own thread, or by
// each worker of a parallel rebuild for its share of the projections (parallel-fold.ts).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { EventStore } from '../../ports/event-store.js';
import type { CollectionWrites, ReadStore } from '../../ports/read-store.js';
import { guardedWrites, type Target } from './projection-target.js';
import { RebuildWorkingSet } from './rebuild-working-set.js';

export interface LogFoldOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  /** Events per read of the log. */
  batchSize: number;
  /** The working set's heap bound (RebuildWorkingSetOptions.heapBudgetBytes). */
  heapBudgetBytes: number;
  /** Called after each batch with the events it read; what it throws ends the fold. */
  onRead(events: number): void;
}

/** Where a fold ended and what its working set moved. */
export interface LogFoldReport {
  /** The position of the last event folded: every target's documents up to it are stored. */
  position: number;
  /** Documents moved out early over the heap budget / brought back / streamed out (rebuild-working-set.ts). */
  evicted: number;
  reloaded: number;
  streamed: number;
}

/** Folds the log after the lowest target position up to `until` into the targets' (fresh, empty) generations. */
export async function foldLog(targets: readonly Target[], until: number, options: LogFoldOptions): Promise<LogFoldReport> {
  const workingSet = new RebuildWorkingSet(options.readStore, { heapBudgetBytes: options.heapBudgetBytes });
  let position = Math.min(...targets.map((target) => target.position));
  while (position < until) {
    const events = await options.eventStore.readAll({ after: position, limit: Math.min(options.batchSize, until - position) });
    if (events.length === 0) break;
    const writes: CollectionWrites[] = [];
    for (const target of targets) writes.push(...guardedWrites(target, events));
    await workingSet.apply(writes);
    position = events[events.length - 1]!.position;
    options.onRead(events.length);
    await nextTurn(); // a server rebuilding while it serves answers between batches
  }
  await workingSet.flush();
  return { position, evicted: workingSet.evicted, reloaded: workingSet.reloaded, streamed: workingSet.streamed };
}
