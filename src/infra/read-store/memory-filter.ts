// Filters of the memory read store. Every filter is evaluated by mingo, except that the common shapes
// (top-level plain fields compared with scalars: equality, $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin,
// $exists) are tested directly, which is an order of magnitude faster on the projector's hot path.
// A direct test that meets an array or object value hands that document to mingo, so array semantics
// (`label_ids: 5` matching `[3, 5]`) stay exactly mingo's.
import { Query } from 'mingo';
import type { Doc, Filter } from './port.js';

export type DocPredicate = (doc: Doc) => boolean;

/** A field test on one value: true / false, or UNDECIDED when the value is an array or object. */
type ValueTest = (value: unknown) => boolean | typeof UNDECIDED;
const UNDECIDED = 2 as const;

type Scalar = string | number | boolean | null;

function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function equals(expected: Scalar): ValueTest {
  if (expected === null) return (value) => (value === null || value === undefined ? true : typeof value === 'object' ? UNDECIDED : false);
  return (value) => (typeof value === 'object' && value !== null ? UNDECIDED : value === expected);
}

function negate(test: ValueTest): ValueTest {
  return (value) => {
    const result = test(value);
    return result === UNDECIDED ? UNDECIDED : !result;
  };
}

/** Range comparisons only match values of the operand's type, as in MongoDB. */
function compares(operator: string, operand: string | number | boolean): ValueTest | null {
  const type = typeof operand;
  const within = (value: unknown): value is string | number | boolean => typeof value === type;
  const range = (holds: (value: string | number | boolean) => boolean): ValueTest => (value) =>
    within(value) ? holds(value) : typeof value === 'object' && value !== null ? UNDECIDED : false;
  switch (operator) {
    case '$gt':
      return range((value) => value > operand);
    case '$gte':
      return range((value) => value >= operand);
    case '$lt':
      return range((value) => value < operand);
    case '$lte':
      return range((value) => value <= operand);
    default:
      return null;
  }
}

function isIn(list: Scalar[]): ValueTest {
  const members = new Set<unknown>(list);
  const matchesMissing = members.has(null);
  return (value) =>
    value === undefined || value === null ? matchesMissing : typeof value === 'object' ? UNDECIDED : members.has(value);
}

function operatorTest(operator: string, operand: unknown): ValueTest | null {
  switch (operator) {
    case '$eq':
      return isScalar(operand) ? equals(operand) : null;
    case '$ne':
      return isScalar(operand) ? negate(equals(operand)) : null;
    case '$in':
      return Array.isArray(operand) && operand.every(isScalar) ? isIn(operand) : null;
    case '$nin':
      return Array.isArray(operand) && operand.every(isScalar) ? negate(isIn(operand)) : null;
    case '$exists':
      return typeof operand === 'boolean' ? (value) => (value !== undefined) === operand : null;
    default:
      return operand !== null && isScalar(operand) ? compares(operator, operand) : null;
  }
}

/** Direct tests for the whole filter, or null when some part needs mingo. */
function directTests(filter: Filter): Array<[string, ValueTest]> | null {
  const tests: Array<[string, ValueTest]> = [];
  for (const field in filter) {
    if (field.startsWith('$') || field.includes('.')) return null;
    const condition = filter[field];
    if (isScalar(condition)) {
      tests.push([field, equals(condition)]);
      continue;
    }
    if (!isPlainObject(condition)) return null;
    let hasOperator = false;
    for (const operator in condition) {
      if (!operator.startsWith('$')) return null;
      const test = operatorTest(operator, condition[operator]);
      if (!test) return null;
      tests.push([field, test]);
      hasOperator = true;
    }
    if (!hasOperator) return null;
  }
  return tests;
}

export function compileFilter(filter: Filter): DocPredicate {
  let query: Query | undefined;
  const byMingo = (doc: Doc): boolean => (query ??= new Query(filter)).test(doc);
  const tests = directTests(filter);
  if (!tests) return byMingo;
  if (tests.length === 0) return () => true;
  return (doc) => {
    for (let i = 0; i < tests.length; i++) {
      const [field, test] = tests[i]!;
      const result = test(doc[field]);
      if (result === UNDECIDED) return byMingo(doc);
      if (!result) return false;
    }
    return true;
  };
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
