// Filters of the memory read store. Every filter is evaluated by mingo, except that the common shapes
// (top-level plain fields compared with scalars: equality, $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin,
// $exists) are tested directly, which is an order of magnitude faster on the projector's hot path.
// A direct test that meets an array or object value hands that document to mingo, so array semantics
// (`label_ids: 5` matching `[3, 5]`) stay exactly mingo's.
import { Query } from 'mingo';
import type { Doc, Filter } from '../../ports/read-store.js';

export type DocPredicate = (doc: Doc) => boolean;

/** Result of a direct test that cannot decide (array / object value, or a shape left to mingo). */
const UNDECIDED = 2 as const;
type Outcome = boolean | typeof UNDECIDED;

type Scalar = string | number | boolean | null;

function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function isComposite(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

function equals(value: unknown, expected: Scalar): Outcome {
  if (value === undefined || value === null) return expected === null;
  return isComposite(value) ? UNDECIDED : value === expected;
}

function negated(outcome: Outcome): Outcome {
  return outcome === UNDECIDED ? UNDECIDED : !outcome;
}

/** Lists longer than this are tested through a Set built once per list (a query's `$in` of many ids). */
const SHORT_LIST = 8;
/** The scalars of a long `$in` list as a set, or null when it holds a non-scalar (left to mingo). */
const listSets = new WeakMap<unknown[], Set<unknown> | null>();

function setOf(list: unknown[]): Set<unknown> | null {
  let set = listSets.get(list);
  if (set === undefined) {
    set = list.every(isScalar) ? new Set(list) : null;
    listSets.set(list, set);
  }
  return set;
}

function isIn(value: unknown, list: unknown): Outcome {
  if (!Array.isArray(list)) return UNDECIDED;
  if (value === undefined) value = null;
  if (isComposite(value)) return UNDECIDED;
  if (list.length > SHORT_LIST) {
    const set = setOf(list);
    return set === null ? UNDECIDED : set.has(value);
  }
  for (const item of list) {
    if (!isScalar(item)) return UNDECIDED;
    if (item === value) return true;
  }
  return false;
}

/** Range comparisons only match values of the operand's type, as in MongoDB. */
function compares(value: unknown, operator: string, operand: unknown): Outcome {
  if (operand === null || !isScalar(operand)) return UNDECIDED;
  if (typeof value !== typeof operand) return isComposite(value) ? UNDECIDED : false;
  const left = value as string | number | boolean;
  switch (operator) {
    case '$gt':
      return left > operand;
    case '$gte':
      return left >= operand;
    case '$lt':
      return left < operand;
    case '$lte':
      return left <= operand;
    default:
      return UNDECIDED;
  }
}

function operatorHolds(value: unknown, operator: string, operand: unknown): Outcome {
  switch (operator) {
    case '$eq':
      return isScalar(operand) ? equals(value, operand) : UNDECIDED;
    case '$ne':
      return isScalar(operand) ? negated(equals(value, operand)) : UNDECIDED;
    case '$in':
      return isIn(value, operand);
    case '$nin':
      return negated(isIn(value, operand));
    case '$exists':
      return typeof operand === 'boolean' ? (value !== undefined) === operand : UNDECIDED;
    default:
      return compares(value, operator, operand);
  }
}

/**
 * The filter evaluated directly on `doc`: interpreted, nothing compiled or allocated, since most filters
 * of the hot path are tested against one document found by id. UNDECIDED hands the doc to mingo.
 */
function directMatch(doc: Doc, filter: Filter): Outcome {
  for (const field in filter) {
    if (field.charCodeAt(0) === 36 /* $ */ || field.includes('.')) return UNDECIDED;
    const condition = filter[field];
    const value = doc[field];
    if (isScalar(condition)) {
      const outcome = equals(value, condition);
      if (outcome !== true) return outcome;
      continue;
    }
    if (!isPlainObject(condition)) return UNDECIDED;
    let operators = 0;
    for (const operator in condition) {
      if (operator.charCodeAt(0) !== 36) return UNDECIDED;
      operators++;
      const outcome = operatorHolds(value, operator, condition[operator]);
      if (outcome !== true) return outcome;
    }
    if (operators === 0) return UNDECIDED;
  }
  return true;
}

/** A predicate for the filter: direct where possible, mingo (built once, on first need) otherwise. */
export function compileFilter(filter: Filter): DocPredicate {
  let query: Query | undefined;
  return (doc) => {
    const outcome = directMatch(doc, filter);
    return outcome === UNDECIDED ? (query ??= new Query(filter)).test(doc) : outcome;
  };
}

/** Whether one document matches (no predicate kept: for filters tested against a single document). */
export function matchesFilter(doc: Doc, filter: Filter): boolean {
  const outcome = directMatch(doc, filter);
  return outcome === UNDECIDED ? new Query(filter).test(doc) : outcome;
}

/** A top-level condition that an index can answer: the field equals one of `values`. */
export interface KeyCondition {
  field: string;
  values: Scalar[];
}

/** The filter's conditions an index can narrow by: top-level (or top-level `$and`) equality and `$in`. */
export function keyConditions(filter: Filter, into: KeyCondition[] = []): KeyCondition[] {
  for (const field in filter) {
    const condition = filter[field];
    if (field === '$and' && Array.isArray(condition)) {
      for (const part of condition) if (isPlainObject(part)) keyConditions(part, into);
      continue;
    }
    if (field.startsWith('$')) continue;
    if (isScalar(condition)) into.push({ field, values: [condition] });
    else if (isPlainObject(condition)) {
      if ('$eq' in condition && isScalar(condition.$eq)) into.push({ field, values: [condition.$eq] });
      if ('$in' in condition && Array.isArray(condition.$in) && condition.$in.every(isScalar)) {
        into.push({ field, values: condition.$in });
      }
    }
  }
  return into;
}

/** The fields an upsert seeds its new document with: the filter's top-level (and `$and`) equalities. */
export function equalityFields(filter: Filter, into: Record<string, unknown> = {}): Record<string, unknown> {
  for (const field in filter) {
    const condition = filter[field];
    if (field === '$and' && Array.isArray(condition)) {
      for (const part of condition) if (isPlainObject(part)) equalityFields(part, into);
      continue;
    }
    if (field.startsWith('$')) continue;
    if (isPlainObject(condition)) {
      const operators = Object.keys(condition).filter((key) => key.startsWith('$'));
      if (operators.length === 0) into[field] = condition;
      else if (operators.length === 1 && '$eq' in condition) into[field] = condition.$eq;
    } else into[field] = condition;
  }
  return into;
}

/** A top-level numeric range an index can narrow by: `{field: {$gt/$gte/$lt/$lte: number}}`. */
export interface RangeCondition {
  field: string;
  lower?: { value: number; inclusive: boolean };
  upper?: { value: number; inclusive: boolean };
}

/** The filter's numeric ranges on top-level fields (and inside a top-level `$and`). */
export function rangeConditions(filter: Filter, into: RangeCondition[] = []): RangeCondition[] {
  for (const field in filter) {
    const condition = filter[field];
    if (field === '$and' && Array.isArray(condition)) {
      for (const part of condition) if (isPlainObject(part)) rangeConditions(part, into);
      continue;
    }
    if (field.startsWith('$') || !isPlainObject(condition)) continue;
    const range: RangeCondition = { field };
    for (const operator in condition) {
      const operand = condition[operator];
      if (typeof operand !== 'number' || Number.isNaN(operand)) continue;
      if (operator === '$gt' || operator === '$gte') range.lower = { value: operand, inclusive: operator === '$gte' };
      if (operator === '$lt' || operator === '$lte') range.upper = { value: operand, inclusive: operator === '$lte' };
    }
    if (range.lower || range.upper) into.push(range);
  }
  return into;
}
