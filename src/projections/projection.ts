// What a read projection is: a pure mapping from one recorded event to writes on its collections,
// written as Mongo filter/update documents so that every read store runs the same projection.
import type { RecordedEvent } from '../domain/events.js';
import type { IndexSpec, WriteOp } from '../ports/read-store.js';

export interface ProjectionCollection {
  /** Logical name; the runner maps it to a physical, generation-suffixed collection. */
  name: string;
  indexes: IndexSpec[];
}

export interface ProjectedWrite {
  collection: string;
  ops: WriteOp[];
}

export interface Projection {
  readonly name: string;
  /** Bump to force a rebuild when apply() changes meaning. */
  readonly version: number;
  readonly collections: readonly ProjectionCollection[];
  /**
   * Pure: no I/O, no clock. Must be idempotent when the runner's guard is applied: every document it
   * writes carries `_pos` (the global position of the last event applied to it) and the runner only
   * lets an event touch documents whose `_pos` is lower than the event's position.
   */
  apply(event: RecordedEvent): ProjectedWrite[];
}
