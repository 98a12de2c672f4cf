// Filters of the memory read store. Every filter is evaluated by mingo, except that the common shapes
// are tested directly, an order of magnitude faster (the projector's hot path, search): top-level plain
// fields compared with scalars (equality, $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists, $regex
// with $options of i / m / s on strings), arrays of scalars under equality, $in, $nin, $ne and
// $elemMatch of comparisons (any element, as MongoDB's multikey reading), `$ne: []`, and the logical
// $and / $or / $nor of such filters. Whatever else a direct test meets (objects, nested arrays, null
// against an array, other operators) hands that document to mingo, so the semantics stay exactly
// mingo's / MongoDB's.
import { Context } from 'mingo/core';
import * as queryOperators from 'mingo/operators/query';
import { Query } from 'mingo/query';
import type { QueryOperator } from 'mingo/types';
import type { Doc, Filter } from '../../ports/read-store.js';

/**
 * Mingo with its query operators alone, all a filter needs ($expr aside, which no filter uses): its root
 * module registers every operator family, some 300 files that each start (and worker) reads and compiles.
 */
const QUERY_OPTIONS = { context: Context.init({ query: operatorsOf(queryOperators) }) };

/** The module's operators: its `$` exports (the namespace of a CommonJS module also holds `default`). */
function operatorsOf(module: object): Record<`$${string}`, QueryOperator> {
  return Object.fromEntries(Object.entries(module).filter(([name]) => name.startsWith('$'))) as Record<`$${string}`, QueryOperator>;
}

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
  if (Array.isArray(value)) return expected === null ? UNDECIDED : someElement(value, (element) => element === expected);
  return isComposite(value) ? UNDECIDED : value === expected;
}

/** Whether an element of an array of scalars satisfies the test; UNDECIDED for an array holding others. */
function someElement(array: readonly unknown[], test: (element: Scalar) => Outcome): Outcome {
  let outcome: Outcome = false;
  for (const element of array) {
    if (!isScalar(element)) return UNDECIDED;
    const holds = test(element);
    if (holds === true) return true;
    if (holds === UNDECIDED) outcome = UNDECIDED;
  }
  return outcome;
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
  if (Array.isArray(value)) return list.includes(null) ? UNDECIDED : someElement(value, (element) => isIn(element, list));
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
  if (operand === null || !isScalar(operand) || !RANGE_OPERATORS.has(operator)) return UNDECIDED;
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

/** Compiled `$regex` conditions, per condition object (a filter's lifetime, no growth). */
const regexes = new WeakMap<object, RegExp | null>();
const DIRECT_REGEX_OPTIONS = /^[ims]*$/;

function regexOf(condition: Record<string, unknown>): RegExp | null {
  let regex = regexes.get(condition);
  if (regex === undefined) {
    const { $regex: pattern, $options: options = '' } = condition;
    regex = typeof pattern === 'string' && typeof options === 'string' && DIRECT_REGEX_OPTIONS.test(options) ? new RegExp(pattern, options) : null;
    regexes.set(condition, regex);
  }
  return regex;
}

/** `$regex` (with its `$options`) on a string; missing and non-string scalars never match. */
function matchesRegex(value: unknown, condition: Record<string, unknown>): Outcome {
  const regex = regexOf(condition);
  if (regex === null || isComposite(value)) return UNDECIDED;
  return typeof value === 'string' && regex.test(value);
}

/** `$elemMatch` of comparisons on an array of scalars: one element satisfies them all. */
function elementMatches(value: unknown, operand: unknown): Outcome {
  if (!Array.isArray(value) || !isPlainObject(operand)) return UNDECIDED;
  const operators = Object.keys(operand);
  if (operators.length === 0 || !operators.every((operator) => RANGE_OPERATORS.has(operator) || operator === '$eq')) return UNDECIDED;
  return someElement(value, (element) => {
    let outcome: Outcome = true;
    for (const operator of operators) {
      const holds = operatorHolds(element, operator, operand[operator]);
      if (holds === false) return false;
      if (holds === UNDECIDED) outcome = UNDECIDED;
    }
    return outcome;
  });
}

/** `$ne: []`: anything but an empty array (an array of arrays may hold one: left to mingo). */
function differsFromEmptyArray(value: unknown): Outcome {
  if (Array.isArray(value)) return someElement(value, () => false) === UNDECIDED ? UNDECIDED : value.length > 0;
  return isComposite(value) ? UNDECIDED : true;
}

const RANGE_OPERATORS = new Set(['$gt', '$gte', '$lt', '$lte']);

function operatorHolds(value: unknown, operator: string, operand: unknown, condition?: Record<string, unknown>): Outcome {
  switch (operator) {
    case '$eq':
      return isScalar(operand) ? equals(value, operand) : UNDECIDED;
    case '$ne':
      if (Array.isArray(operand) && operand.length === 0) return differsFromEmptyArray(value);
      return isScalar(operand) ? negated(equals(value, operand)) : UNDECIDED;
    case '$regex':
      return condition === undefined ? UNDECIDED : matchesRegex(value, condition);
    case '$options':
      return condition !== undefined && '$regex' in condition ? true : UNDECIDED;
    case '$elemMatch':
      return elementMatches(value, operand);
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
  let outcome: Outcome = true;
  for (const field in filter) {
    const holds = fieldMatch(doc, field, filter[field]);
    if (holds === false) return false;
    if (holds === UNDECIDED) outcome = UNDECIDED;
  }
  return outcome;
}

/** `$and` / `$or` / `$nor` in three-valued logic: a false part of an `$and` decides it, whatever the others. */
function logicalMatch(doc: Doc, operator: string, parts: unknown): Outcome {
  if (!Array.isArray(parts) || parts.length === 0 || !parts.every(isPlainObject)) return UNDECIDED;
  const wanted = operator === '$and' ? false : true;
  let outcome: Outcome = !wanted;
  for (const part of parts as Filter[]) {
    const holds = directMatch(doc, part);
    if (holds === wanted) {
      outcome = wanted;
      break;
    }
    if (holds === UNDECIDED) outcome = UNDECIDED;
  }
  return operator === '$nor' ? negated(outcome) : outcome;
}

/** One top-level entry of a filter: a logical operator, or a field and its condition. */
function fieldMatch(doc: Doc, field: string, condition: unknown): Outcome {
  if (field === '$and' || field === '$or' || field === '$nor') return logicalMatch(doc, field, condition);
  if (field.charCodeAt(0) === 36 /* $ */ || field.includes('.')) return UNDECIDED;
  const value = doc[field];
  if (isScalar(condition)) return equals(value, condition);
  if (!isPlainObject(condition)) return UNDECIDED;
  let operators = 0;
  let outcome: Outcome = true;
  for (const operator in condition) {
    if (operator.charCodeAt(0) !== 36) return UNDECIDED;
    operators++;
    const holds = operatorHolds(value, operator, condition[operator], condition);
    if (holds === false) return false;
    if (holds === UNDECIDED) outcome = UNDECIDED;
  }
  return operators === 0 ? UNDECIDED : outcome;
}

/** A predicate for the filter: direct where possible, mingo (built once, on first need) otherwise. */
export function compileFilter(filter: Filter): DocPredicate {
  let query: Query | undefined;
  return (doc) => {
    const outcome = directMatch(doc, filter);
    return outcome === UNDECIDED ? (query ??= new Query(filter, QUERY_OPTIONS)).test(doc) : outcome;
  };
}

/** Whether one document matches (no predicate kept: for filters tested against a single document). */
export function matchesFilter(doc: Doc, filter: Filter): boolean {
  const outcome = directMatch(doc, filter);
  return outcome === UNDECIDED ? new Query(filter, QUERY_OPTIONS).test(doc) : outcome;
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

/** One end of a range of index keys. */
export interface RangeBound {
  value: string | number;
  inclusive: boolean;
}

/**
 * What an index can narrow a filter's candidates by, as a tree: documents keyed under one of `values`;
 * documents with a key within a range (an `$elemMatch` of comparisons: one element lies in it); every
 * part (`$and`, several conditions); any branch (`$or` whose every branch narrows).
 */
export type Narrowing =
  | { kind: 'keys'; field: string; values: Scalar[] }
  | { kind: 'range'; field: string; low: RangeBound | null; high: RangeBound | null }
  | { kind: 'all' | 'any'; parts: Narrowing[] };

/** The filter's narrowing, or null when no index can narrow it (a superset of its matches either way). */
export function narrowingOf(filter: Filter): Narrowing | null {
  const parts: Narrowing[] = [];
  for (const field in filter) {
    const condition = filter[field];
    if (field === '$and' || field === '$or') {
      if (!Array.isArray(condition) || !condition.every(isPlainObject)) continue;
      const branches = (condition as Filter[]).map(narrowingOf);
      if (field === '$and') parts.push(...branches.filter((branch): branch is Narrowing => branch !== null));
      else if (branches.length > 0 && branches.every((branch) => branch !== null)) parts.push({ kind: 'any', parts: branches as Narrowing[] });
    } else if (!field.startsWith('$')) parts.push(...fieldNarrowings(field, condition));
  }
  if (parts.length === 0) return null;
  return parts.length === 1 ? parts[0]! : { kind: 'all', parts };
}

function fieldNarrowings(field: string, condition: unknown): Narrowing[] {
  if (isScalar(condition)) return [{ kind: 'keys', field, values: [condition] }];
  if (!isPlainObject(condition)) return [];
  const found: Narrowing[] = [];
  if ('$eq' in condition && isScalar(condition.$eq)) found.push({ kind: 'keys', field, values: [condition.$eq] });
  if ('$in' in condition && Array.isArray(condition.$in) && condition.$in.every(isScalar)) found.push({ kind: 'keys', field, values: condition.$in });
  const range = isPlainObject(condition.$elemMatch) ? rangeOf(field, condition.$elemMatch) : null;
  if (range) found.push(range);
  return found;
}

/**
 * The range of a filter that is nothing but comparisons of one type on `field` (`{plan_key: {$gte: a,
 * $lt: b}}`), or null. Such a filter's matches, sorted by `field`, are the index keys within the range in
 * order, when no document holds several keys there (an array) or an object.
 */
export function soleRangeOn(filter: Filter, field: string): Extract<Narrowing, { kind: 'range' }> | null {
  const keys = Object.keys(filter);
  const condition = filter[field];
  if (keys.length !== 1 || keys[0] !== field || !isPlainObject(condition)) return null;
  const range = rangeOf(field, condition);
  return range?.kind === 'range' ? range : null;
}

/** The range of an `$elemMatch` of comparisons of one type (strings or numbers), or null. */
function rangeOf(field: string, comparisons: Record<string, unknown>): Narrowing | null {
  let low: RangeBound | null = null;
  let high: RangeBound | null = null;
  let type: string | null = null;
  for (const [operator, operand] of Object.entries(comparisons)) {
    if (!RANGE_OPERATORS.has(operator) || (typeof operand !== 'string' && typeof operand !== 'number')) return null;
    if (type !== null && typeof operand !== type) return null;
    type = typeof operand;
    const bound = { value: operand, inclusive: operator.endsWith('e') };
    if (operator.startsWith('$g')) low = bound;
    else high = bound;
  }
  return type === null ? null : { kind: 'range', field, low, high };
}
