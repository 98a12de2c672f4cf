// Request-body checks with ajv: the declared integer and boolean fields are coerced from the strings the
// real service accepted (`"1"`, `"false"`), and a field of the wrong type is reported the way the
// service worded it ("'iteration_length' must be an integer value"). Fields left untyped in a schema
// are checked by the domain, which owns their rules and messages.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { invalidParameter, type ValidationError } from '../../domain/errors.js';

export type FieldType = 'integer' | 'boolean' | 'string' | 'integer[]' | 'string[]';

const ajv = new Ajv({ coerceTypes: true, allErrors: true, strict: true });

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer value',
  boolean: 'a boolean value',
  string: 'a string',
  array: 'an array',
  object: 'an object',
};

/** A function that coerces `body` in place and throws `invalid_parameter` for wrongly typed fields. */
export function bodyChecker(fields: Readonly<Record<string, FieldType>>): (body: Record<string, unknown>) => Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(fields)) {
    properties[name] = type.endsWith('[]') ? { type: 'array', items: { type: type.slice(0, -2) } } : { type };
  }
  const validate: ValidateFunction = ajv.compile({ type: 'object', properties });
  return (body) => {
    if (validate(body)) return body;
    throw invalidParameter((validate.errors ?? []).map(problemOf));
  };
}

function problemOf(error: ErrorObject): ValidationError {
  const path = error.instancePath.split('/').filter(Boolean);
  const field = path[0] ?? 'body';
  const expected = typeof error.params['type'] === 'string' ? error.params['type'] : undefined;
  const words = expected ? (TYPE_WORDS[expected] ?? expected) : 'valid';
  const inside = path.length > 1 ? ' (every element)' : '';
  return { field, problem: `'${field}' must be ${words}${inside}` };
}
