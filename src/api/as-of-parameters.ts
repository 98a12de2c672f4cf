// The time-travel parameters of a GET (`as_of_version=N`, `as_of=<datetime>`): read and checked here,
// served by the pipeline (app.ts) with the project's read models at that version (queries/time-travel.ts).
//
// - `as_of_version` is a project version: an integer from 1 to the current version, else 400
//   `invalid_parameter` naming it.
// - `as_of` is a datetime (the one parser, datetime-parameter.ts): the project's last version at or
//   before that instant; an instant before the project existed answers 404 `unfound_resource`.
// - Both at once, either on a write, or on a route that is not a project-scoped read served from read
//   models (the activity feeds read the log): 400 `invalid_parameter` naming the parameter.
import { invalidField, unfound } from '../domain/errors.js';
import { DATETIME_PARAMETER, datetimeParameter } from './datetime-parameter.js';
import type { HttpMethod, RouteDefinition } from './route-table.js';

export const AS_OF_VERSION = 'as_of_version';
export const AS_OF = 'as_of';

/** The time-travel parameters as the OpenAPI document states them (read by asOfRequest). */
export const AS_OF_PARAMETERS = {
  type: 'object',
  properties: {
    [AS_OF_VERSION]: { type: 'integer', minimum: 1, description: 'Answer as the project stood at this version (1 to the current one).' },
    [AS_OF]: { ...DATETIME_PARAMETER, description: `Answer as the project stood at this instant (its last version then): ${String(DATETIME_PARAMETER.description)}` },
  },
} as const;

/** What a request asks for: a version, an instant, or the present (null). */
export type AsOfRequest = { version: number } | { instant: number } | null;

const POSITIVE_INTEGER = /^\s*[0-9]{1,16}\s*$/;

/** The time the request travels to, refused where it cannot be served. */
export function asOfRequest(query: Readonly<Record<string, string>>, method: HttpMethod, route: RouteDefinition, served: boolean): AsOfRequest {
  const version = query[AS_OF_VERSION];
  const instant = query[AS_OF];
  if (version === undefined && instant === undefined) return null;
  const name = version !== undefined ? AS_OF_VERSION : AS_OF;
  if (version !== undefined && instant !== undefined) throw invalidField(AS_OF, `'${AS_OF}' and '${AS_OF_VERSION}' cannot be given together`);
  if (method !== 'GET') throw invalidField(name, `'${name}' is only accepted on GET: the past cannot be changed`);
  if (!served || !servesTimeTravel(route)) {
    throw invalidField(name, `'${name}' is only accepted on the GETs of a project's resources`);
  }
  if (version !== undefined) {
    if (!POSITIVE_INTEGER.test(version) || !Number.isSafeInteger(Number(version))) throw outOfRange();
    return { version: Number(version) };
  }
  return { instant: datetimeParameter(AS_OF, instant)! };
}

/** Whether a route serves `as_of_version` / `as_of` (when the app serves time travel at all): project-scoped reads from read models. */
export function servesTimeTravel(route: Pick<RouteDefinition, 'method' | 'access' | 'timeTravel'>): boolean {
  return route.method === 'GET' && route.access.startsWith('project:') && route.timeTravel !== false;
}

/** The version to answer at, checked against the project's current one. */
export function checkedAsOfVersion(version: number, current: number): number {
  if (version < 1 || version > current) throw outOfRange(current);
  return version;
}

/** An instant before the project's first event: the project did not exist then. */
export function versionFoundAt(version: number): number {
  if (version < 1) throw unfound();
  return version;
}

function outOfRange(current?: number): Error {
  const range = current === undefined ? 'a project version (an integer of at least 1)' : `a project version from 1 to ${current}`;
  return invalidField(AS_OF_VERSION, `'${AS_OF_VERSION}' must be ${range}`);
}
