// How the embedded read stores spend a read's budget (ReadBudget, ports/read-store.ts), in units of about
// a tenth of a microsecond of the SQLite store's work: an index entry read costs ENTRY_UNITS, a document
// loaded and tested DOCUMENT_UNITS plus one per condition of the filter. Candidates are evaluated in
// slices of about SLICE_UNITS units, each charged before it runs, so a read too costly is refused before
// its work and a long one gives the event loop a turn between slices (when the budget says so).
import type { Filter, ReadBudget } from '../../ports/read-store.js';

/** Units of one index entry read (an id of a lookup). */
export const ENTRY_UNITS = 4;
/** Units of one document loaded (parsed, in the SQLite store) and visited, before its conditions. */
export const DOCUMENT_UNITS = 40;
/** Units per slice of evaluation (the budget decides when a turn of the event loop is due). */
const SLICE_UNITS = 8192;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * How many conditions a document is tested against under `filter`: each operator of a field's
 * condition (a `$in` of any length is one: a set lookup), through `$and`, `$or` and `$nor`.
 */
export function conditionCount(filter: Filter): number {
  let count = 0;
  for (const field in filter) {
    const condition = filter[field];
    if ((field === '$and' || field === '$or' || field === '$nor') && Array.isArray(condition)) {
      for (const part of condition) count += isPlainObject(part) ? conditionCount(part) : 1;
    } else count += isPlainObject(condition) ? Math.max(1, Object.keys(condition).length) : 1;
  }
  return count;
}

/** The units one candidate document costs under `filter`. */
export function candidateUnits(filter: Filter): number {
  return DOCUMENT_UNITS + conditionCount(filter);
}

/**
 * Calls `visit` with every candidate, in order, a slice at a time, charging `budget` `units` per
 * candidate before each slice; refused (the budget's error) before any visit when all of them would
 * exceed it.
 */
export async function visitCharged<T>(candidates: readonly T[], units: number, budget: ReadBudget, visit: (candidate: T) => void): Promise<void> {
  budget.afford(candidates.length * units);
  const perSlice = Math.max(1, Math.floor(SLICE_UNITS / units));
  for (let start = 0; start < candidates.length; start += perSlice) {
    const end = Math.min(candidates.length, start + perSlice);
    await budget.charge((end - start) * units);
    for (let i = start; i < end; i++) visit(candidates[i]!);
  }
}
