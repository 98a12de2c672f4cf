// What a decision receives and returns. Deciders are pure: time, ids and the acting person arrive in
// the context; they return the one event a write request appends (or throw a DomainError).
import type { ProjectState } from './project-state.js';
import type { DecidedChange, EventData, EventType, ResourceKind } from './events.js';

/**
 * Kinds of integer ids, each unique across all projects: the resources' own, and a few kept elsewhere.
 * An iteration override is addressed by its iteration number, but its document needs an id unique in
 * its collection like every other resource.
 */
export type IdKind =
  | Exclude<ResourceKind, 'id_block'>;

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
  /** The event's data, its changes typed by kind. */
  data: Omit<EventData, 'changes'> & { changes: DecidedChange[] };
  /** The resource the write created or changed: what the request answers with. */
  subject: DecisionSubject;
}

export interface DecisionSubject {
  kind: ResourceKind;
  id: number;
}

/** A decision bound to its command, as the command handler runs it on a stream's state. */
export type Decide<S> = (state: S, context: DecisionContext) => Decision;

/** The one shape of every decider: the command first, then the stream's state and the context. */
export type Decider<C, S = ProjectState> = (command: C, state: S, context: DecisionContext) => Decision;

/**
 * The subject of an event appended earlier by the same command (a retried command returns its first
 * result): the change of the decided subject's kind, preferring the same id (a create re-decided later
 * got a fresh id that was never appended).
 */
export function subjectIn(data: EventData, decided: DecisionSubject): DecisionSubject {
  const sameKind = data.changes.filter((change) => change.kind === decided.kind);
  const change = sameKind.find((candidate) => candidate.id === decided.id) ?? sameKind[0];
  return change ? { kind: change.kind, id: change.id } : decided;
}
