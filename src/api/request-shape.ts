// What a request's method and URL alone decide: its query, the method it acts as, its route and path
// parameters, its `fields` selection, the request part of its cache key and the path its access-log line
// shows. A hot GET repeats one URL, so a shape parsed and checked once is remembered (bounded, least
// recently used first out) and the next request with the same method and URL skips that work; who asks,
// and whether they may, is still checked on every request. Only a shape that passed every check of the
// URL is remembered, so a remembered one never hides an error.

import { LRUCache } from 'lru-cache';
import type { FieldSelection } from './fields-selection.js';
import type { HttpMethod, RouteDefinition } from './route-table.js';
import { pathWithoutSecrets } from './secret-paths.js';

export interface RequestShape {
  /** The path as sent, no query. */
  path: string;
  /** The raw query string ('' when none). */
  queryString: string;
  /** Parsed query parameters (frozen: shared by every request of this shape). */
  query: Readonly<Record<string, string>>;
  method: HttpMethod;
  route: RouteDefinition;
  params: Readonly<Record<string, string>>;
  /** The version prefix the path was matched under. */
  prefix: string;
  selection: FieldSelection;
  /** The request's part of a response-cache key (response-cache.ts requestKeyPart). */
  cacheKeyPart: string;
  /** What the access log shows as the path: no `token`, no invitation secret. */
  loggedPath: string;
}

export interface RequestShapeLimits {
  /** Most shapes remembered (0: none). */
  entries: number;
  /** Longest URL remembered, in characters; longer ones are parsed every time. */
  urlLength: number;
}

export const DEFAULT_REQUEST_SHAPE_LIMITS: RequestShapeLimits = { entries: 1000, urlLength: 2048 };

export class RequestShapes {
  private readonly shapes: LRUCache<string, RequestShape> | null;

  constructor(private readonly limits: RequestShapeLimits = DEFAULT_REQUEST_SHAPE_LIMITS) {
    this.shapes = limits.entries > 0 ? new LRUCache({ max: limits.entries }) : null;
  }

  get(method: string, url: string): RequestShape | undefined {
    return this.shapes?.get(`${method} ${url}`);
  }

  /** Shapes remembered. */
  get size(): number {
    return this.shapes?.size ?? 0;
  }

  remember(method: string, url: string, shape: RequestShape): void {
    if (url.length > this.limits.urlLength) return;
    Object.freeze(shape.query);
    Object.freeze(shape.params);
    this.shapes?.set(`${method} ${url}`, shape);
  }
}

/** The access log's path of a request: without an invitation's secret, its query without `token`. */
export function loggedPath(path: string, queryString: string): string {
  const shown = pathWithoutSecrets(path);
  if (queryString === '') return shown;
  const query = new URLSearchParams(queryString);
  query.delete('token');
  const kept = query.toString();
  return kept === '' ? shown : `${shown}?${kept}`;
}
