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
  readonly docs: Map<ResourceKind, Map<number, ResourceDoc>>;
  /** Values derived from the docs, each tagged with the version it was computed at (project-state.ts). */
  readonly derived: Map<string, { version: number; value: unknown }>;
  /** Indexes over documents that evolve() keeps current, by name; each is built by its owner on first use. */
  readonly indexes: Map<string, MaintainedIndex>;
}

/**
 * An index over the documents of one kind that evolve() updates with every change of that kind (where a
 * value of `derived` is recomputed whole once per version): the story order (story/story-order.ts).
 */
export interface MaintainedIndex {
  readonly kind: ResourceKind;
  /** A document changed: `before` is its previous version (undefined: created), `after` its new one (null: deleted). */
  replace(before: ResourceDoc | undefined, after: ResourceDoc | null): void;
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
  return { stream, version: 0, updatedAt: 0, docs: new Map(), derived: new Map(), indexes: new Map() };
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
  for (const change of event.data.changes) {
    const docs = docsOf(state, change.kind);
    const before = docs.get(change.id);
    const next = applyChange(before, change);
    if (next) docs.set(change.id, next);
    else docs.delete(change.id);
    for (const index of state.indexes.values()) if (index.kind === change.kind) index.replace(before, next);
  }
  state.version = event.version;
  state.updatedAt = event.meta.occurred_at;
  return state;
}
