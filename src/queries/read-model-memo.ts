// Answers derived from the live read models, remembered until the read models next change
// (ports/read-model-changes.ts), or, for answers derived from a few collections, until one of those does. A hot read (the authentication and the access check of every request)
// then costs one Map lookup instead of store lookups and document copies, and a write anywhere forgets
// everything: an answer is never older than the read models it was computed from.
//
// - An answer computed while a change became visible is not remembered (the stamp moved during it).
// - Remembered values are deep-frozen when first served again: every request shares them, and a caller
//   that tried to change one would throw instead of changing what the next request sees. (Freezing at the
//   first hit, not when remembered: under writes most answers are forgotten before anyone asks again.)
// - At most `maxEntries` answers; when full, everything is forgotten (callers are per person and project,
//   so a full memo is rare and refilling it is what an empty one costs).
import type { ReadModelChanges } from '../ports/read-model-changes.js';

export interface ReadModelMemoOptions {
  /** Answers remembered at most (default 10,000). */
  maxEntries?: number;
  /**
   * The only collections the answers are derived from (logical names): they are forgotten when one of
   * these changes, not at every change of the read models.
   */
  dependsOn?: readonly string[];
}

export class ReadModelMemo<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly maxEntries: number;
  private readonly stamp: () => number;
  private stampSeen: number;

  constructor(changes: ReadModelChanges, options: ReadModelMemoOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    const dependsOn = options.dependsOn;
    this.stamp = dependsOn ? () => changes.stampOf(dependsOn) : () => changes.stamp();
    this.stampSeen = this.stamp();
  }

  /** The remembered answer for `key`, else `compute()`'s, remembered when nothing changed meanwhile. */
  async get(key: K, compute: () => Promise<V>): Promise<V> {
    const stamp = this.stamp();
    if (stamp !== this.stampSeen) {
      this.entries.clear();
      this.stampSeen = stamp;
    } else if (this.entries.has(key)) {
      return deepFreeze(this.entries.get(key)!);
    }
    const value = await compute();
    if (this.stamp() === stamp) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const member of Object.values(value)) deepFreeze(member);
  return Object.freeze(value);
}
