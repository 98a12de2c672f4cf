// State folding shared by every aggregate: a stream's events are lists of resource changes, so the
// state of a stream is the set of resource documents those changes describe.
import { unfound } from './errors.js';
import type { ChangeType, RecordedEvent, ResourceChange, ResourceKind, Values } from './events.js';

export type ResourceDoc = Values & { id: number; rank?: string };

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

type DocumentsByKind = Map<ResourceKind, Map<number, ResourceDoc>>;

/** The documents of one kind in a state, typed; read-only (the state changes only by folding events). */
export class Collection<D extends ResourceDoc> implements Iterable<D> {
  constructor(
    private readonly docs: DocumentsByKind,
    readonly kind: ResourceKind,
  ) {}

  get(id: number): D | undefined {
    return this.docs.get(this.kind)?.get(id) as D | undefined;
  }

  /** The document, or unfound. */
  required(id: number): D {
    const doc = this.get(id);
    if (!doc) throw unfound();
    return doc;
  }

  has(id: number): boolean {
    return this.docs.get(this.kind)?.has(id) ?? false;
  }

  get size(): number {
    return this.docs.get(this.kind)?.size ?? 0;
  }

  /** Every document, in no particular order. */
  [Symbol.iterator](): Iterator<D> {
    return ((this.docs.get(this.kind)?.values() ?? []) as Iterable<D>)[Symbol.iterator]();
  }

  /** The documents `accepts`, in no particular order. */
  filter(accepts: (doc: D) => boolean): D[] {
    const kept: D[] = [];
    for (const doc of this) if (accepts(doc)) kept.push(doc);
    return kept;
  }

  find(accepts: (doc: D) => boolean): D | undefined {
    for (const doc of this) if (accepts(doc)) return doc;
    return undefined;
  }
}

/**
 * The state of one stream, folded from its events: the documents of every resource the stream's changes
 * describe, by kind. Deciders read it through typed collections and the named look-ups a stream's state
 * class adds (project-state.ts, person-state.ts, account-state.ts); only evolve() changes it, after the
 * store acknowledged an event. Kinds of state are made by decision-states.ts from the stream's name.
 */
export class StreamState {
  /** Number of events folded so far (0 for a stream that does not exist yet). */
  version = 0;
  /** ms of the last folded event. */
  updatedAt = 0;
  /** The id of the last folded event (null before the first). */
  lastEventId: string | null = null;
  /** The documents by kind and id: the storage behind the collections, in fold order. */
  private readonly docs: DocumentsByKind = new Map();
  /** The index kept over each kind that has one (at most one per kind), made on first use. */
  private readonly indexes = new Map<ResourceKind, MaintainedIndex>();

  /** An empty state, or one holding what `from` holds (a snapshot; a state to copy, its documents shared). */
  constructor(
    readonly stream: string,
    from?: DecisionStateSnapshot | StreamState,
  ) {
    if (!from) return;
    this.version = from.version;
    this.updatedAt = from.updatedAt;
    this.lastEventId = from.lastEventId;
    if (from instanceof StreamState) {
      for (const [kind, docs] of from.docs) this.docs.set(kind, new Map(docs));
    } else {
      for (const [kind, docs] of Object.entries(from.docs) as Array<[ResourceKind, readonly ResourceDoc[]]>) {
        this.docs.set(kind, new Map(docs.map((doc) => [doc.id, doc])));
      }
    }
  }

  /**
   * The index a subclass keeps over one kind: made by `build` on first use (filled from the kind's
   * documents, usually through filledIndex), then updated with every change of that kind as events
   * are folded, so a look-up never rebuilds it. Made lazily: replay folds many states no decision reads.
   */
  protected indexed<T extends MaintainedIndex>(kind: ResourceKind, build: () => T): T {
    let index = this.indexes.get(kind);
    if (!index) this.indexes.set(kind, (index = build()));
    return index as T;
  }

  /** The typed collection of one kind of document (subclasses name theirs). */
  protected collection<D extends ResourceDoc>(kind: ResourceKind): Collection<D> {
    return new Collection<D>(this.docs, kind);
  }

  /** How many documents the state holds (what a cache of states is bounded by). */
  documentCount(): number {
    let count = 0;
    for (const docs of this.docs.values()) count += docs.size;
    return count;
  }

  /**
   * Folds one recorded event into the state, in place (the state of a busy project holds thousands of
   * documents; copying them per event would cost more than the write). Callers fold only events that the
   * store has acknowledged, so a rejected decision never touches the state.
   */
  evolve(event: RecordedEvent): this {
    this.fold(event.data.changes);
    this.version = event.version;
    this.updatedAt = event.meta.occurred_at;
    this.lastEventId = event.id;
    return this;
  }

  /**
   * A working copy for a decision made of several steps, each deciding on what the steps before it
   * changed (a source commit touching several stories): the document maps are copied (the documents
   * themselves are never changed in place, only replaced), indexes are built again on use. This state
   * is left as it is.
   */
  workingCopy(): this {
    return new (this.constructor as new (stream: string, from: StreamState) => this)(this.stream, this);
  }

  /** Folds a step's changes into a working copy; its version moves on, as an event's would. */
  foldStep(changes: readonly ResourceChange[]): void {
    this.fold(changes);
    this.version++;
  }

  /** The snapshot of a state that has folded at least one event (its documents shared: store it before the state folds more). */
  snapshot(): DecisionStateSnapshot {
    if (this.lastEventId === null) throw new Error(`${this.stream} has folded no event`);
    const docs: Partial<Record<ResourceKind, ResourceDoc[]>> = {};
    for (const [kind, byId] of this.docs) if (byId.size > 0) docs[kind] = [...byId.values()];
    return { stream: this.stream, format: DECISION_STATE_FORMAT, version: this.version, updatedAt: this.updatedAt, lastEventId: this.lastEventId, docs };
  }

  private fold(changes: readonly ResourceChange[]): void {
    for (const change of changes) {
      let docs = this.docs.get(change.kind);
      if (!docs) this.docs.set(change.kind, (docs = new Map()));
      const before = docs.get(change.id);
      const next = applyChange(before, change);
      if (next) docs.set(change.id, next);
      else docs.delete(change.id);
      this.indexes.get(change.kind)?.replace(before, next);
    }
  }
}

/** An index over the documents of one kind that its state keeps current with every change of that kind (StreamState.indexed). */
export interface MaintainedIndex<D extends ResourceDoc = ResourceDoc> {
  /** A document changed: `before` is its previous version (undefined: created), `after` its new one (null: deleted). */
  replace(before: D | undefined, after: D | null): void;
}

/** An empty index given every document of a collection, one by one in no particular order. */
export function filledIndex<D extends ResourceDoc, T extends MaintainedIndex<D>>(documents: Iterable<D>, index: T): T {
  for (const doc of documents) index.replace(undefined, doc);
  return index;
}
