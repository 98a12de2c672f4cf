// The one reading of `limit` and `offset` (facts §3), for every paginated GET:
// - `limit`: an integer of 0 or more, default 100; larger than 500 is reduced to 500 (not refused);
//   `limit=0` answers no items but the pagination total.
// - `offset`: an integer of 0 or more, default 0; past the end answers [] with the total.
// Anything else is 400 `invalid_parameter` naming the parameter.
import type { SchemaObject } from 'ajv';
import { invalidParameter, type ValidationError } from '../domain/errors.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, type Page } from '../queries/page.js';

/** The page parameters as the OpenAPI document states them for every paginated GET (read by pageParams). */
export const PAGE_PARAMETERS: { readonly type: 'object'; readonly properties: Readonly<Record<'limit' | 'offset', SchemaObject>> } = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 0, default: DEFAULT_PAGE_LIMIT, description: `Items per page; more than ${MAX_PAGE_LIMIT} is reduced to ${MAX_PAGE_LIMIT}.` },
    offset: { type: 'integer', minimum: 0, default: 0, description: 'Items skipped; past the end answers [] with the total.' },
  },
};

export function pageParams(query: Readonly<Record<string, string>>): Page {
  const problems: ValidationError[] = [];
  const limit = countParam(query, 'limit', problems);
  const offset = countParam(query, 'offset', problems);
  if (problems.length > 0) throw invalidParameter(problems);
  return { limit: Math.min(limit ?? DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT), offset: offset ?? 0 };
}

/** A non-negative integer parameter, null when absent or empty. */
export function countParam(query: Readonly<Record<string, string>>, name: string, problems: ValidationError[]): number | null {
  const raw = query[name];
  if (raw === undefined || raw.trim() === '') return null;
  const text = raw.trim();
  if (!/^-?[0-9]{1,15}$/.test(text)) {
    problems.push({ field: name, problem: `'${name}' must be an integer value` });
    return null;
  }
  const value = Number(text);
  if (value < 0) {
    problems.push({ field: name, problem: `'${name}' must be at least 0` });
    return null;
  }
  return value;
}
