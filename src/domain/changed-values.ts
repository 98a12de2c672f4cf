// What an update change records (facts §9.2): only the attributes that changed, before and after (a
// value that became absent is written as null), plus updated_at on both sides.
import type { Values } from './events.js';

export interface ChangedValues {
  original_values: Values;
  new_values: Values;
}

/** The `keys` whose values differ between `before` and `after` (arrays and objects compared by content), plus updated_at. */
export function changedValues(before: Values, after: Values, keys: readonly string[]): ChangedValues {
  const original: Values = {};
  const next: Values = {};
  for (const key of keys) {
    if (sameValue(before[key], after[key])) continue;
    original[key] = before[key] ?? null;
    next[key] = after[key] ?? null;
  }
  original.updated_at = before.updated_at;
  next.updated_at = after.updated_at;
  return { original_values: original, new_values: next };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
