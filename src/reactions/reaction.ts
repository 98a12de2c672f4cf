// A reaction: a consumer of the global log that does something outside the event store (notifications,
// webhooks), run by infra/reaction/reaction-runner.ts behind the log from its own checkpoint. Writes
// never wait for a reaction, and a reaction never blocks projections or other reactions.
//
// Events arrive in batches, in log order: everything of its types the log gained since the last batch
// (bounded), so a reaction writes one transaction per batch, not one per write the server took.
//
// Delivery is AT LEAST ONCE: after a crash the events since the last checkpoint (at most the batch in
// hand) are delivered again, so `handle` must be idempotent, keyed by the event's id (e.g. a
// notification document whose id derives from the event id, an outgoing webhook with the event id as
// its idempotency key). A `handle` that throws (a full disk, a remote that does not answer) is retried,
// whole, with bounded exponential back-off; the reaction does not move past the batch until it succeeds,
// and the runner shows it failing in /health meanwhile: a reaction need not catch its failures itself.
import type { EventType, RecordedEvent } from '../domain/events.js';
import type { ReadCollection, ReadOnlyCollection, ReadStore } from '../ports/read-store.js';

export interface Reaction {
  /** Unique and stable: the key of the reaction's checkpoint. */
  readonly name: string;
  /** The event types it handles; others only move its checkpoint on. All types when absent. */
  readonly types?: readonly EventType[];
  /** Handles `events` (one or more, in log order); throwing means none of them counts as handled. */
  handle(events: readonly RecordedEvent[]): Promise<void>;
  /**
   * The position to resume after, given the stored checkpoint. A reaction that keeps documents of its
   * own in the read store answers the position those documents reflect when it is lower (they were
   * lost: read models in memory, readmodels.sqlite deleted), so they are rebuilt from the log. When
   * absent the checkpoint is used as it is.
   */
  resumeAfter?(checkpoint: number): Promise<number>;
  /**
   * Work a reaction runs beside the log (webhook deliveries, one worker per webhook): started and stopped
   * with the runner. stop() ends it before the stores close.
   */
  start?(): Promise<void>;
  stop?(): Promise<void>;
  /** A step of that work failing now (it retries it), shown as the reaction's failure in /health; null otherwise. */
  ownFailure?(): ReactionFailure | null;
}

/** A step failing, retried with back-off (ReactionRunner.status(), shown by /health). */
export interface ReactionFailure {
  /** What fails: 'resume' (loading the checkpoint), 'read' (the log), 'handle' (the reaction), 'checkpoint' (saving it). */
  step: ReactionStep;
  /** The last attempt's error. */
  error: string;
  /** When the first of the failed attempts in a row failed (ms since the epoch). */
  since: number;
  /** Failed attempts in a row. */
  attempts: number;
}

export type ReactionStep = 'resume' | 'read' | 'handle' | 'checkpoint';

/** What reactions may read when they are built (read models, by collection name). */
export interface ReactionDeps {
  read(collection: string): ReadOnlyCollection;
  /** The reaction's OWN collections (never a projection's): it writes them, several atomically. */
  own: ReactionStore;
}

export type ReactionStore = Pick<ReadStore, 'writeAtomically'> & { collection(name: string): ReadCollection };

export type ReactionFactory = (deps: ReactionDeps) => Reaction;
