// The port: decision-state snapshots, of the stream states commands decide on (domain/resource-state.ts),
// so that the first command on a project after a start folds the events since its latest snapshot, not its
// whole history. Derived data: a missing, unreadable or outdated snapshot only means a longer fold.
import type { DecisionStateSnapshot } from '../domain/resource-state.js';

/** What a stored snapshot is of, without its documents. */
export type StoredSnapshotHead = Pick<DecisionStateSnapshot, 'stream' | 'version' | 'format' | 'lastEventId'>;

export interface DecisionStateSnapshots {
  /** The latest snapshot stored for the stream, or null (none, or none readable). */
  latest(stream: string): Promise<DecisionStateSnapshot | null>;
  /** What the stream's latest snapshot is of (without reading its documents), or null. */
  storedHead(stream: string): Promise<StoredSnapshotHead | null>;
  /** Stores a snapshot in place of the stream's earlier one; the snapshot is read before this returns its promise. */
  save(snapshot: DecisionStateSnapshot): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds stream-state snapshots away from the serving thread, from the same log and snapshots, so that a
 * command's first load of a long stream (after a start, an upgrade of the state format, a deleted
 * snapshot file, or its state let go from the cache) folds only the events after a recent snapshot.
 */
export interface DecisionStateSnapshotBuilder {
  /** Resolves once the stream's latest snapshot is fewer than the builder's distance behind the stream's head (stored by then when it was not), or the stream is shorter than that. */
  catchUp(stream: string): Promise<void>;
  close(): Promise<void>;
}
