// Query parameters whose value is an integer on every route that reads them (the spec's `int` type):
// a value that is not a whole number answers 400 `invalid_parameter` naming the parameter on every
// route, before any handler runs, so no route can read `since_version=abc` as absent or as NaN. Ranges
// (at least 1, not negative, an id that exists) stay with the route that reads the parameter.
//
// A route module that reads a new integer parameter adds its name here.
import { invalidParameter, type ValidationError } from '../domain/errors.js';

export const INTEGER_QUERY_PARAMETERS: readonly string[] = [
  'limit', 'offset', 'since_version', 'after_story_id', 'before_story_id', 'project_id',
];

const INTEGER = /^\s*-?[0-9]{1,16}\s*$/;

/** Throws `invalid_parameter` naming every integer parameter whose value is not an integer (empty means absent). */
export function assertIntegerQueryParameters(query: Readonly<Record<string, string>>): void {
  const problems: ValidationError[] = [];
  for (const name of INTEGER_QUERY_PARAMETERS) {
    const value = query[name];
    if (value === undefined || value === '' || (INTEGER.test(value) && Number.isSafeInteger(Number(value)))) continue;
    problems.push({ field: name, problem: `'${name}' must be an integer value` });
  }
  if (problems.length > 0) throw invalidParameter(problems);
}
