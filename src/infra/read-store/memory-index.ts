// A hash index of the memory read store: field value -> ids of the documents holding it. Arrays of
// scalars are indexed under each element (as MongoDB's multikey indexes); documents whose value is an
// object or an array holding objects cannot be keyed and are always candidates ("unkeyed"). A missing
// field is indexed under null, as `{field: null}` matches it. Ranges of keys (a word's beginning) are
// found by binary search in the keys of one type kept sorted, sorted again only after a key came or
// went.
import type { Doc } from '../../ports/read-store.js';
import { valueAtPath } from './json-copy.js';
import type { RangeBound } from './memory-filter.js';

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
  const keys = value.filter(isKey);
  // An array repeating a key is still keyed; only elements that are not keys (objects) make it unkeyed.
  return { keys: [...new Set(keys)], unkeyed: keys.length !== value.length };
}

export class HashIndex {
  private readonly buckets = new Map<unknown, Set<number>>();
  private readonly unkeyed = new Set<number>();
  /** The string and the number keys, each sorted; null after a key came or went. */
  private sortedKeys: { string: string[]; number: number[] } | null = null;
  /** Documents held under several keys (an array) or unkeyed: while there are any, key order is no sort order. */
  private multikeyDocuments = 0;

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
      if (!holders) {
        this.buckets.set(key, (holders = new Set()));
        this.sortedKeys = null;
      }
      holders.add(doc.id);
    }
    if (unkeyed) this.unkeyed.add(doc.id);
    if (keys.length > 1 || unkeyed) this.multikeyDocuments++;
  }

  remove(doc: Doc): void {
    const { keys, unkeyed } = this.keysOf(doc);
    for (const key of keys) {
      const holders = this.buckets.get(key);
      if (!holders) continue;
      holders.delete(doc.id);
      if (holders.size === 0) {
        this.buckets.delete(key);
        this.sortedKeys = null;
      }
    }
    if (unkeyed) this.unkeyed.delete(doc.id);
    if (keys.length > 1 || unkeyed) this.multikeyDocuments--;
  }

  /** Ids of the documents that may equal one of `values` (a superset: the filter still decides). */
  candidates(values: readonly unknown[]): Set<number> {
    const ids = new Set<number>(this.unkeyed);
    for (const value of values) for (const id of this.buckets.get(value) ?? []) ids.add(id);
    return ids;
  }

  /** Whether the document may equal one of `values` (is among `candidates(values)`). */
  holds(values: readonly unknown[], id: number): boolean {
    if (this.unkeyed.has(id)) return true;
    for (const value of values) if (this.buckets.get(value)?.has(id)) return true;
    return false;
  }

  /** The keys between the bounds (of the bounds' type), in order. */
  keysWithin(low: RangeBound | null, high: RangeBound | null): Array<string | number> {
    const type = typeof (low ?? high)?.value === 'number' ? 'number' : 'string';
    this.sortedKeys ??= sortedKeysOf([...this.buckets.keys()]);
    const keys: Array<string | number> = this.sortedKeys[type];
    const above = (key: string | number, bound: RangeBound) => (bound.inclusive ? key >= bound.value : key > bound.value);
    const below = (key: string | number, bound: RangeBound) => (bound.inclusive ? key <= bound.value : key < bound.value);
    const start = low === null ? 0 : firstIndex(keys, (key) => above(key, low));
    const end = high === null ? keys.length : firstIndex(keys, (key) => !below(key, high));
    return keys.slice(start, Math.max(start, end));
  }

  /** Whether some document is held under several keys or unkeyed. */
  get multikey(): boolean {
    return this.multikeyDocuments > 0;
  }

  /** The ids keyed between the bounds, in key order (ties by id ascending), lazily. */
  *idsInKeyOrder(low: RangeBound | null, high: RangeBound | null, direction: 1 | -1): Generator<number> {
    const keys = this.keysWithin(low, high);
    if (direction === -1) keys.reverse();
    for (const key of keys) yield* [...(this.buckets.get(key) ?? [])].sort((a, b) => a - b);
  }

  /** How many candidates `candidates(values)` would return, without building the set. */
  estimate(values: readonly unknown[]): number {
    let size = this.unkeyed.size;
    for (const value of values) size += this.buckets.get(value)?.size ?? 0;
    return size;
  }
}

function sortedKeysOf(keys: readonly unknown[]): { string: string[]; number: number[] } {
  const strings = keys.filter((key): key is string => typeof key === 'string').sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const numbers = keys.filter((key): key is number => typeof key === 'number').sort((a, b) => a - b);
  return { string: strings, number: numbers };
}

/** The first index of a sorted list from which `reached` holds (it holds from some point on). */
function firstIndex<T>(sorted: readonly T[], reached: (item: T) => boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (reached(sorted[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}
