// State folding shared by every aggregate: a stream's events are lists of resource changes, so the
// state of a stream is the set of resource documents those changes describe.
import type { ChangeType, RecordedEvent, ResourceChange, ResourceKind, Values } from './events.js';

export type ResourceDoc = Values & { id: number; rank?: string };

export interface StreamState {
  readonly stream: string;
  /** Number of events folded so far (0 for a stream that does not exist yet). */
  version: number;
  /** ms of the last folded event. */
  updatedAt: number;
  /** The id of the last folded event (null before the first). */
  lastEventId: string | null;
  readonly docs: Map<ResourceKind, Map<number, ResourceDoc>>;
  /** Values derived from the docs, each tagged with the version it was computed at (project-state.ts). */
  readonly derived: Map<string, { version: number; value: unknown }>;
  /** Indexes over documents that evolve() keeps current, by name; each is built by its owner on first use. */
  readonly indexes: Map<string, MaintainedIndex>;
}

/**
 * An index over the documents of one kind that evolve() updates with every change of that kind (where a
 * value of `derived` is recomputed whole once per version): the story order (story/story-order.ts),
 * labels and review types by name, tasks by story, memberships by person (project-state.ts).
 */
export interface MaintainedIndex {
  readonly kind: ResourceKind;
  /** A document changed: `before` is its previous version (undefined: created), `after` its new one (null: deleted). */
  replace(before: ResourceDoc | undefined, after: ResourceDoc | null): void;
}

/**
 * The state's index named `name`: made by `build` on first use (filled from the state's documents,
 * usually through filledIndex), then kept current by evolve() with every change of its kind, so a read
 * never rebuilds it. Made lazily because replay folds many states that no decision reads.
 */
export function maintainedIndex<T extends MaintainedIndex>(state: StreamState, name: string, build: () => T): T {
  const known = state.indexes.get(name);
  if (known) return known as T;
  const index = build();
  state.indexes.set(name, index);
  return index;
}

/** An empty index given the state's documents of its kind, one by one in no particular order. */
export function filledIndex<T extends MaintainedIndex>(state: StreamState, index: T): T {
  for (const doc of state.docs.get(index.kind)?.values() ?? []) index.replace(undefined, doc);
  return index;
}

/** Keys that a change carries for the activity feed but that are derived, so never stored. */
const DERIVED_KEYS: Partial<Record<ResourceKind, ReadonlySet<string>>> = {
  // label names and the neighbours in the order are shown in story changes but derived at read time
  // (from label_ids and from the ranks of the project's stories).
  story: new Set(['labels', 'before_id', 'after_id']),
  // a comment's uploaded files are shown in its create change but derived from file_attachment_ids
  // (their metadata are file_attachment documents); its ext attachments are stored on it.
  comment: new Set(['file_attachments']),
  // like a story's, an epic's neighbours in the epic order are derived from the ranks.
  epic: new Set(['before_id', 'after_id']),
};

/** The values of a change that belong in a stored document: derived keys and nulls dropped. */
export function storedValues(kind: ResourceKind, values: Values | undefined): { set: Values; unset: string[] } {
  const set: Values = {};
  const unset: string[] = [];
  if (!values) return { set, unset };
  const derived = DERIVED_KEYS[kind];
  // for...in over a parsed JSON object (own keys only): no entries array per change on replay's hot path
  for (const key in values) {
    if (derived !== undefined && derived.has(key)) continue;
    const value = values[key];
    if (value === null || value === undefined) unset.push(key);
    else set[key] = value;
  }
  return { set, unset };
}

export function emptyState(stream: string): StreamState {
  return { stream, version: 0, updatedAt: 0, lastEventId: null, docs: new Map(), derived: new Map(), indexes: new Map() };
}

/**
 * What a stored state was folded by: a snapshot of another format is not used. Raise it whenever
 * evolve() or applyChange() change what a state holds for the same events.
 */
export const DECISION_STATE_FORMAT = 2; // 2: account memberships read under event schema 3

/**
 * A decision state as stored between starts (ports/decision-state-snapshots.ts): the documents a stream's
 * deciders decide on, by kind, in fold order. Not the read-model snapshots time travel reads.
 */
export interface DecisionStateSnapshot {
  readonly stream: string;
  readonly format: number;
  readonly version: number;
  readonly updatedAt: number;
  /** The stream's event at `version`: a snapshot serves only a log that still holds that event. */
  readonly lastEventId: string;
  readonly docs: Readonly<Partial<Record<ResourceKind, readonly ResourceDoc[]>>>;
}

/** The snapshot of a state that has folded at least one event (its documents shared: store it before the state folds more). */
export function snapshotOfDecisionState(state: StreamState): DecisionStateSnapshot {
  if (state.lastEventId === null) throw new Error(`${state.stream} has folded no event`);
  const docs: Partial<Record<ResourceKind, ResourceDoc[]>> = {};
  for (const [kind, byId] of state.docs) if (byId.size > 0) docs[kind] = [...byId.values()];
  return { stream: state.stream, format: DECISION_STATE_FORMAT, version: state.version, updatedAt: state.updatedAt, lastEventId: state.lastEventId, docs };
}

/** The state a snapshot of the current format describes; derived values and indexes are built again on use. */
export function decisionStateOfSnapshot(snapshot: DecisionStateSnapshot): StreamState {
  const state = emptyState(snapshot.stream);
  state.version = snapshot.version;
  state.updatedAt = snapshot.updatedAt;
  state.lastEventId = snapshot.lastEventId;
  for (const [kind, docs] of Object.entries(snapshot.docs) as Array<[ResourceKind, readonly ResourceDoc[]]>) {
    state.docs.set(kind, new Map(docs.map((doc) => [doc.id, doc])));
  }
  return state;
}

export function docsOf(state: StreamState, kind: ResourceKind): Map<number, ResourceDoc> {
  let docs = state.docs.get(kind);
  if (!docs) {
    docs = new Map();
    state.docs.set(kind, docs);
  }
  return docs;
}

/** Applies one change to a document (or its absence); returns the new document, or null when deleted. */
export function applyChange(doc: ResourceDoc | undefined, change: ResourceChange): ResourceDoc | null {
  const type: ChangeType = change.change_type;
  if (type === 'delete') return null;
  const { set, unset } = storedValues(change.kind, change.new_values);
  const next: ResourceDoc = type === 'create' || !doc ? { id: change.id } : { ...doc };
  Object.assign(next, set);
  for (const key of unset) delete next[key];
  next.id = change.id;
  if (change.rank !== undefined) next.rank = change.rank;
  return next;
}

/**
 * Folds one recorded event into the state, in place (the state of a busy project holds thousands of
 * documents; copying them per event would cost more than the write). Callers fold only events that the
 * store has acknowledged, so a rejected decision never touches the state.
 */
export function evolve(state: StreamState, event: RecordedEvent): StreamState {
  foldChanges(state, event.data.changes);
  state.version = event.version;
  state.updatedAt = event.meta.occurred_at;
  state.lastEventId = event.id;
  return state;
}

/** Applies changes to the state's documents and maintained indexes, in place (evolve() and working copies). */
function foldChanges(state: StreamState, changes: readonly ResourceChange[]): void {
  for (const change of changes) {
    const docs = docsOf(state, change.kind);
    const before = docs.get(change.id);
    const next = applyChange(before, change);
    if (next) docs.set(change.id, next);
    else docs.delete(change.id);
    for (const index of state.indexes.values()) if (index.kind === change.kind) index.replace(before, next);
  }
}

/**
 * A working copy of a state for a decision made of several steps, each deciding on what the steps
 * before it changed (a source commit touching several stories): the document maps are copied (the
 * documents themselves are never changed in place, only replaced), derived values and indexes start
 * empty. The state itself is left as it is.
 */
export function workingCopy(state: StreamState): StreamState {
  const copy = emptyState(state.stream);
  copy.version = state.version;
  copy.updatedAt = state.updatedAt;
  copy.lastEventId = state.lastEventId;
  for (const [kind, docs] of state.docs) copy.docs.set(kind, new Map(docs));
  return copy;
}

/** Folds a step's changes into a working copy; its version moves so values derived before are computed again. */
export function foldIntoCopy(copy: StreamState, changes: readonly ResourceChange[]): void {
  foldChanges(copy, changes);
  copy.version++;
}
