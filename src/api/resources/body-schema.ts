// Flat request bodies declared as a map of field types (`{ person_id: 'integer', favorite: 'boolean' }`),
// checked by the one ajv adapter (src/api/request-schema.ts): declared integer and boolean fields are
// coerced from the strings the real service accepted, wrong types answer `invalid_parameter`. Fields
// left untyped are checked by the domain, which owns their rules and messages. A field may also be given
// as a schema of its own (`text(TEXT_LIMITS.email)`) where a length bound must hold before the domain.
import type { SchemaObject } from 'ajv';
import { requestSchema, type Checker } from '../request-schema.js';

export type FieldType = 'integer' | 'boolean' | 'string' | 'integer[]' | 'string[]';

/** A checker that coerces a body in place and throws `invalid_parameter` for wrongly typed fields. */
export function bodyChecker(fields: Readonly<Record<string, FieldType | SchemaObject>>): Checker<Record<string, unknown>> {
  const properties: Record<string, SchemaObject> = {};
  for (const [name, type] of Object.entries(fields)) {
    if (typeof type !== 'string') properties[name] = type;
    else properties[name] = type.endsWith('[]') ? { type: 'array', items: { type: type.slice(0, -2) } } : { type };
  }
  return requestSchema<Record<string, unknown>>({ type: 'object', properties });
}
