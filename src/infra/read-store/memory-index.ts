// A hash index of the memory read store: field value -> ids of the documents holding it. Arrays of
// scalars are indexed under each element (as MongoDB's multikey indexes); documents whose value is an
// object or an array holding objects cannot be keyed and are always candidates ("unkeyed"). A missing
// field is indexed under null, as `{field: null}` matches it.
import type { Doc } from '../../ports/read-store.js';
import { valueAtPath } from './json-copy.js';

export class DuplicateKeyError extends Error {
  constructor(readonly collection: string, readonly field: string, readonly value: unknown) {
    super(`duplicate key in ${collection}: ${field} = ${JSON.stringify(value)}`);
    this.name = 'DuplicateKeyError';
  }
}

export type IndexKeys = { keys: unknown[]; unkeyed: boolean };

function isKey(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && value !== undefined);
}

/** The keys a document is indexed under for `field` (shared with the SQLite read store's index entries). */
export function indexKeysOf(doc: Doc, field: string): IndexKeys {
  const value = valueAtPath(doc, field);
  if (value === undefined || value === null) return { keys: [null], unkeyed: false };
  if (!Array.isArray(value)) return isKey(value) ? { keys: [value], unkeyed: false } : { keys: [], unkeyed: true };
  const keys = [...new Set(value.filter(isKey))];
  return { keys, unkeyed: keys.length !== value.length };
}

export class HashIndex {
  private readonly buckets = new Map<unknown, Set<number>>();
  private readonly unkeyed = new Set<number>();

  constructor(
    readonly collection: string,
    readonly field: string,
    readonly unique: boolean,
  ) {}

  private keysOf(doc: Doc): IndexKeys {
    return indexKeysOf(doc, this.field);
  }

  /** Throws DuplicateKeyError when adding `doc` would break uniqueness (missing values are exempt). */
  checkUnique(doc: Doc): void {
    if (!this.unique) return;
    for (const key of this.keysOf(doc).keys) {
      if (key === null) continue;
      const holders = this.buckets.get(key);
      if (holders && (holders.size > 1 || !holders.has(doc.id))) throw new DuplicateKeyError(this.collection, this.field, key);
    }
  }

  add(doc: Doc): void {
    const { keys, unkeyed } = this.keysOf(doc);
    for (const key of keys) {
      let holders = this.buckets.get(key);
      if (!holders) this.buckets.set(key, (holders = new Set()));
      holders.add(doc.id);
    }
    if (unkeyed) this.unkeyed.add(doc.id);
  }

  remove(doc: Doc): void {
    const { keys, unkeyed } = this.keysOf(doc);
    for (const key of keys) {
      const holders = this.buckets.get(key);
      if (!holders) continue;
      holders.delete(doc.id);
      if (holders.size === 0) this.buckets.delete(key);
    }
    if (unkeyed) this.unkeyed.delete(doc.id);
  }

  /** Ids of the documents that may equal one of `values` (a superset: the filter still decides). */
  candidates(values: readonly unknown[]): Set<number> {
    const ids = new Set<number>(this.unkeyed);
    for (const value of values) for (const id of this.buckets.get(value) ?? []) ids.add(id);
    return ids;
  }

  /** How many candidates `candidates(values)` would return, without building the set. */
  estimate(values: readonly unknown[]): number {
    let size = this.unkeyed.size;
    for (const value of values) size += this.buckets.get(value)?.size ?? 0;
    return size;
  }
}
