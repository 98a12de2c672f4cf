// Request checks written as JSON schemas and compiled once by ajv, at their first use (compiling every
// route's schemas when the modules load took a large part of a start): query strings and bodies are coerced
// where the real service accepted string-typed values (`"estimate": "2"`, `"complete": "false"`,
// `?limit=10`) and only there (`"estimate": true` and `"name": 1234` are refused), and every failure becomes 400 `invalid_parameter` with one validation error per field,
// worded the way the service worded type errors ("'position' must be an integer value").
//
//   const checkTask = requestSchema<TaskBody>({ type: 'object', properties: { position: { type: 'integer' } } });
//   const body = checkTask(value); // coerced in place, or throws invalid_parameter
//
// A route declares the checker of its body (`input: { body: checkTask }`): the app runs it before the
// handler, which reads the coerced body with `checkTask.read(req)`; the OpenAPI document states the
// checker's `schema` (src/api/openapi/), so what is checked and what is documented are one schema.
//
// Schemas check shapes and types; rules with their own messages (story states, point scales) stay in
// the domain. Flat bodies can be declared as a type map with src/api/resources/body-schema.ts.
import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';
import { DomainError, invalidParameter, type ValidationError } from '../domain/errors.js';

const ajv = new Ajv({ coerceTypes: true, allErrors: true, strict: true, allowUnionTypes: true });

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer value',
  number: 'a number',
  boolean: 'a boolean value',
  string: 'a string',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

/** A compiled request check: coerces its argument in place and returns it typed, or throws `invalid_parameter`. */
export interface Checker<T> {
  (value: unknown): T;
  /** The JSON schema it checks (stated by the OpenAPI document). */
  readonly schema: SchemaObject;
  /**
   * The body of a request to a route declaring this checker as `input.body`, already checked and coerced
   * by the app, typed. Throws (a programming error) on a route that does not declare it.
   */
  read(req: { readonly route: { readonly input?: { readonly body?: unknown } }; readonly body: unknown }): T;
}

/** A checker for `schema`, compiled when it first checks a value. */
export function requestSchema<T>(schema: SchemaObject): Checker<T> {
  let validate: ValidateFunction | undefined;
  const check = (value: unknown): T => {
    const uncoercible = uncoercibleValues(schema, value, '');
    if (uncoercible.length > 0) throw refusal(uncoercible);
    validate ??= ajv.compile(schema);
    if (validate(value)) return value as T;
    throw refusal(validate.errors ?? []);
  };
  const checker: Checker<T> = Object.assign(check, {
    schema,
    read(req: Parameters<Checker<T>['read']>[0]): T {
      if (req.route.input?.body !== checker) throw new Error('the route does not declare this checker as its body');
      return req.body as T;
    },
  });
  return checker;
}

/**
 * Type errors for values ajv would coerce but the service refused: ajv's `coerceTypes` also turns
 * `true` into 1, `1234` into "1234" and null into "" or 0. Only a string stands in for another type
 * (`"3"`, `"false"`, every query parameter); any other value must already have a type the schema allows.
 * Walks the schema's `type`, `properties`, `additionalProperties`, `items` and `anyOf` beside the value.
 */
function uncoercibleValues(schema: SchemaObject | boolean, value: unknown, path: string): ErrorObject[] {
  if (typeof schema !== 'object' || value === undefined) return [];
  if (Array.isArray(schema['anyOf'])) {
    const branches = (schema['anyOf'] as SchemaObject[]).map((branch) => uncoercibleValues(branch, value, path));
    return branches.some((problems) => problems.length === 0) ? [] : branches[0]!;
  }
  const types = schema.type === undefined ? null : ([] as string[]).concat(schema.type as string | string[]);
  if (types && typeof value !== 'string' && !types.some((type) => hasJsonType(value, type))) {
    return [{ keyword: 'type', instancePath: path, schemaPath: '', params: { type: types.join(',') } }];
  }
  if (Array.isArray(value)) {
    return schema.items === undefined ? [] : value.flatMap((item, index) => uncoercibleValues(schema.items, item, `${path}/${index}`));
  }
  if (value === null || typeof value !== 'object') return [];
  const properties = (schema.properties ?? {}) as Record<string, SchemaObject>;
  return Object.entries(value).flatMap(([key, member]) => {
    const memberSchema = Object.hasOwn(properties, key) ? properties[key] : schema['additionalProperties'];
    return memberSchema === undefined ? [] : uncoercibleValues(memberSchema, member, `${path}/${key}`);
  });
}

/** Whether a JSON value already has `type` (integers are numbers; ajv checks integrality itself). */
function hasJsonType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
    case 'number':
      return typeof value === 'number';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    default:
      return typeof value === type;
  }
}

/** Schema properties for text limited to `max` characters (code points, as `maxLength` counts them). */
export function text(max: number, nullable = false): SchemaObject {
  return { type: nullable ? ['string', 'null'] : 'string', maxLength: max };
}

/**
 * The error for failed checks: `invalid_parameter` with one validation error per field; a length limit
 * also goes in `requirement`, as the service reported limits (facts §4.3).
 */
function refusal(errors: readonly ErrorObject[]): DomainError {
  const error = invalidParameter(problemsOf(errors));
  const limit = errors.find((e) => e.keyword === 'maxLength' || e.keyword === 'maxItems');
  return limit ? new DomainError('invalid_parameter', { ...error.details, requirement: problemOf(limit).problem }) : error;
}

/** One problem per field: the first ajv error that names it (union types report one per branch). */
function problemsOf(errors: readonly ErrorObject[]): ValidationError[] {
  const byField = new Map<string, ValidationError>();
  for (const error of errors) {
    const problem = problemOf(error);
    if (!byField.has(problem.field)) byField.set(problem.field, problem);
  }
  return [...byField.values()];
}

function problemOf(error: ErrorObject): ValidationError {
  const path = error.instancePath.split('/').filter(Boolean);
  const topLevelKey = path.length === 0 && (error.keyword === 'required' || error.keyword === 'additionalProperties');
  const field = topLevelKey ? String(error.params['missingProperty'] ?? error.params['additionalProperty']) : (path[0] ?? 'body');
  const inside = path.length > 1 ? ` (at ${path.slice(1).join('.')})` : '';
  switch (error.keyword) {
    case 'type': {
      const types = String(error.params['type']).split(',');
      return { field, problem: `'${field}' must be ${types.map((type) => TYPE_WORDS[type] ?? type).join(' or ')}${inside}` };
    }
    case 'enum': {
      const allowed = (error.params['allowedValues'] as unknown[]).map(String).join(', ');
      return { field, problem: `'${field}' must be one of ${allowed}${inside}` };
    }
    case 'required':
      return path.length === 0
        ? { field, problem: `this endpoint requires the parameter: ${field}` }
        : { field, problem: `'${field}' needs '${String(error.params['missingProperty'])}'${inside}` };
    case 'minimum':
      return { field, problem: `'${field}' must be at least ${String(error.params['limit'])}${inside}` };
    case 'maximum':
      return { field, problem: `'${field}' must be at most ${String(error.params['limit'])}${inside}` };
    case 'maxItems':
      return { field, problem: `'${field}' can hold at most ${String(error.params['limit'])} values${inside}` };
    case 'maxLength':
      return { field, problem: `'${field}' parameter must be ${String(error.params['limit'])} characters or less.${inside ? ` ${inside.trim()}` : ''}` };
    case 'additionalProperties':
      return path.length === 0
        ? { field, problem: `'${field}' is not a parameter of this endpoint` }
        : { field, problem: `'${field}' must not hold '${String(error.params['additionalProperty'])}'${inside}` };
    case 'false schema':
      return { field, problem: path.length > 1 ? `'${field}' must not hold '${path.at(-1)}'${inside}` : `'${field}' is not allowed here` };
    default:
      return { field, problem: `'${field}' is not valid${inside}` };
  }
}
