// The entries of a scoped index of the SQLite read store (IndexSpec `within`): one key per document and
// scope value, a byte string whose order (SQLite compares blobs as memcmp) is the order of (the scope,
// then the field as document-order.ts sorts it), so the documents of one scope come out of the entries
// in sort order (ties by id, the entries' last column) and a page reads only its own documents.
//
// - The scope is a number (a project id): 0x02 and the double in 8 order-preserving bytes. An array of
//   numbers puts the document in the scope of each; any other value puts it in none (a scope walk is
//   only asked for an equality on a number, which such a document never matches).
// - The field follows: missing or null 0x01, a number 0x02 and its 8 bytes, a string 0x03 and its UTF-8
//   bytes (UTF-8 order is JavaScript's order for text below U+D800). A value that order cannot hold (an
//   array, an object, a boolean, text from U+D800 up) is keyed by the scope and 0xFF alone: while the
//   scope holds such a key, it is not walked.
import type { Doc } from '../../ports/read-store.js';
import { valueAtPath } from './json-copy.js';
import type { IndexKeys } from './memory-index.js';

const NULL_TAG = 0x01;
const NUMBER_TAG = 0x02;
const STRING_TAG = 0x03;
const UNORDERED_TAG = 0xff;

/** Text whose UTF-8 order may differ from JavaScript's (UTF-16 code units). */
const ORDERED_UNLIKE_UTF8 = /[\uD800-\uFFFF]/;

function encodedNumber(value: number): Buffer {
  const bytes = Buffer.alloc(9);
  bytes[0] = NUMBER_TAG;
  bytes.writeDoubleBE(value === 0 ? 0 : value, 1); // -0 sorts as 0
  // Positive: the sign bit set; negative: every bit inverted (larger magnitudes first).
  if (bytes[1]! & 0x80) for (let i = 1; i < 9; i++) bytes[i] = ~bytes[i]! & 0xff;
  else bytes[1]! |= 0x80;
  return bytes;
}

/** The field's value as ordered bytes, or null when the order cannot hold it. */
function encodedSortValue(value: unknown): Buffer | null {
  if (value === undefined || value === null) return Buffer.of(NULL_TAG);
  if (typeof value === 'number') return encodedNumber(value);
  if (typeof value === 'string') return ORDERED_UNLIKE_UTF8.test(value) ? null : Buffer.concat([Buffer.of(STRING_TAG), Buffer.from(value, 'utf8')]);
  return null;
}

/** The scopes a document is in: its numbers at `within` (distinct). */
function scopesOf(doc: Doc, within: string): number[] {
  const value = valueAtPath(doc, within);
  if (typeof value === 'number') return [value];
  return Array.isArray(value) ? [...new Set(value.filter((item): item is number => typeof item === 'number'))] : [];
}

/** The entries of `doc` in the index of `field` within `within`. */
export function scopedKeysOf(doc: Doc, within: string, field: string): IndexKeys {
  const sortValue = encodedSortValue(valueAtPath(doc, field)) ?? Buffer.of(UNORDERED_TAG);
  return { keys: scopesOf(doc, within).map((scope) => Buffer.concat([encodedNumber(scope), sortValue])), unkeyed: false };
}

/** The keys of one scope: every key from `low` (inclusive) to `high` (exclusive), and the key that says the scope cannot be walked in order. */
export function scopeKeyRange(scope: number): { low: Buffer; high: Buffer; unordered: Buffer } {
  const prefix = encodedNumber(scope);
  const unordered = Buffer.concat([prefix, Buffer.of(UNORDERED_TAG)]);
  return { low: prefix, high: unordered, unordered };
}
