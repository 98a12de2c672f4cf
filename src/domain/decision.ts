// What a decision receives and returns. Deciders are pure: time, ids and the acting person arrive in
// the context; they return the one event a write request appends (or throw a DomainError).
import type { EventData, EventType, ResourceKind } from './events.js';

/** Kinds of integer ids, each unique across all projects: the resources' own, and a few kept elsewhere. */
export type IdKind =
  | Exclude<ResourceKind, 'id_block' | 'iteration_override'>
  | 'file_attachment'
  | 'saved_search'
  | 'notification';

export interface DecisionContext {
  /** ms since the epoch; the event's occurred_at. */
  readonly now: number;
  /** The acting person (null for operator commands). */
  readonly actorId: number | null;
  /** Hands out a fresh id of a kind; ids handed out by a decision that is not appended are skipped. */
  nextId(kind: IdKind): number;
}

/** One event to append: `type` is the activity kind without `_activity` (e.g. `story_update`). */
export interface Decision {
  type: EventType;
  data: EventData;
}

export type Decide<S> = (state: S, context: DecisionContext) => Decision;
