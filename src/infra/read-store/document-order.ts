// Sort order of documents as MongoDB defines it (BSON comparison order), so that the memory and the
// MongoDB read stores return the same order: missing/null < numbers < strings < objects < arrays <
// booleans. Ties are broken by `id`, which every adapter appends to every sort.
import type { Doc, SortSpec } from '../../ports/read-store.js';
import { valueAtPath } from './json-copy.js';

function typeRank(value: unknown): number {
  if (value === undefined || value === null) return 1;
  switch (typeof value) {
    case 'number':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
    default:
      return Array.isArray(value) ? 5 : 4;
  }
}

export function compareValues(a: unknown, b: unknown): number {
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA - rankB;
  switch (rankA) {
    case 1:
      return 0;
    case 2:
    case 3:
    case 8:
      return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
    case 5: {
      const left = a as unknown[];
      const right = b as unknown[];
      for (let i = 0; i < Math.min(left.length, right.length); i++) {
        const order = compareValues(left[i], right[i]);
        if (order !== 0) return order;
      }
      return left.length - right.length;
    }
    default: {
      const left = JSON.stringify(a);
      const right = JSON.stringify(b);
      return left === right ? 0 : left < right ? -1 : 1;
    }
  }
}

/**
 * Mongo sorts a document by an array field using the array's smallest element ascending and its
 * largest element descending; an empty array sorts before null.
 */
function sortKey(value: unknown, direction: 1 | -1): unknown {
  if (!Array.isArray(value)) return value;
  if (value.length === 0) return undefined;
  let best = value[0];
  for (const item of value) if (compareValues(item, best) * direction < 0) best = item;
  return best;
}

/** A comparator for the sort spec, with `id` ascending as the final tie-breaker. */
export function documentComparator(sort: SortSpec | undefined): (a: Doc, b: Doc) => number {
  const fields = Object.entries(withIdTieBreaker(sort));
  if (fields.length === 1 && fields[0]![0] === 'id') {
    const direction = fields[0]![1];
    return (a, b) => (a.id - b.id) * direction;
  }
  return (a, b) => {
    for (const [field, direction] of fields) {
      if (field === 'id') return (a.id - b.id) * direction; // unique: nothing after it can matter
      const order = compareValues(sortKey(valueAtPath(a, field), direction), sortKey(valueAtPath(b, field), direction));
      if (order !== 0) return order * direction;
    }
    return 0;
  };
}

/**
 * `docs` sorted in place by `sort` (ties by id), as documentComparator orders them, each document's sort
 * keys read once rather than at every comparison (a search sorts thousands of matches by rank).
 */
export function sortDocuments(docs: Doc[], sort: SortSpec | undefined): Doc[] {
  const entries = Object.entries(withIdTieBreaker(sort));
  const idAt = entries.findIndex(([field]) => field === 'id');
  const fields = entries.slice(0, idAt); // id is unique: nothing after it can matter
  if (fields.length === 0) return docs.sort(documentComparator(sort));
  const direction = entries[idAt]![1];
  const keyed = docs.map((doc) => ({ doc, keys: fields.map(([field, order]) => sortKey(valueAtPath(doc, field), order)) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < fields.length; i++) {
      const order = compareValues(a.keys[i], b.keys[i]);
      if (order !== 0) return order * fields[i]![1];
    }
    return (a.doc.id - b.doc.id) * direction;
  });
  for (let i = 0; i < keyed.length; i++) docs[i] = keyed[i]!.doc;
  return docs;
}

/** The sort spec with the `id` tie-breaker appended (for adapters that sort natively). */
export function withIdTieBreaker(sort: SortSpec | undefined): SortSpec {
  return sort && 'id' in sort ? sort : { ...sort, id: 1 };
}

/** The one field a sort orders by before its `id` tie-breaker (ascending), or null for any other sort. */
export function singleSortField(sort: SortSpec | undefined): { field: string; direction: 1 | -1 } | null {
  const entries = Object.entries(withIdTieBreaker(sort));
  if (entries.length !== 2 || entries[1]![0] !== 'id' || entries[1]![1] !== 1 || entries[0]![0] === 'id') return null;
  return { field: entries[0]![0], direction: entries[0]![1] };
}
