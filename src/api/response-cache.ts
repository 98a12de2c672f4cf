// Rendered responses of `cacheable` routes, kept as bytes. A project's version counts every change made
// to it, so (project, version, route and query, caller's role) determines the answer: an entry is never
// stale, it simply stops being asked for once the version moves on.
//
// Bounded twice, least recently used first out (lru-cache): by entries and by bytes. An entry's size counts its body,
// its key and its headers (strings at two bytes a character) plus a fixed overhead for the objects that
// hold them, so the bound follows what the heap pays; an entry larger than the whole budget is not kept.

import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface CachedResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

export interface ResponseCacheLimits {
  /** Most entries kept (0 disables the cache). */
  entries: number;
  /** Most bytes kept, as `entrySize` counts them (0 disables the cache). */
  bytes: number;
}

/** Heap bytes of the Map entry, the CachedResponse, its headers object and the Buffer's own object. */
const ENTRY_OVERHEAD_BYTES = 400;

/** What an entry costs the heap, approximately and never less than its bytes. */
export function entrySize(key: string, response: CachedResponse): number {
  let size = ENTRY_OVERHEAD_BYTES + response.body.length + key.length * 2;
  for (const name in response.headers) size += (name.length + response.headers[name]!.length) * 2;
  return size;
}

export class ResponseCache {
  /** null when the limits disable the cache. */
  private readonly entries: LRUCache<string, CachedResponse> | null;

  constructor(limits: ResponseCacheLimits) {
    this.entries =
      limits.entries > 0 && limits.bytes > 0
        ? new LRUCache({ max: limits.entries, maxSize: limits.bytes, sizeCalculation: (response, key) => entrySize(key, response) })
        : null;
  }

  get(key: string): CachedResponse | undefined {
    return this.entries?.get(key);
  }

  /** Keeps the response (replacing one under the same key); one larger than the whole budget is not kept. */
  set(key: string, response: CachedResponse): void {
    this.entries?.set(key, response);
  }

  /** Entries held. */
  get size(): number {
    return this.entries?.size ?? 0;
  }

  /** Bytes held, as `entrySize` counts them; never above the limit. */
  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
  }
}

export interface RequestKeyParts {
  method: string;
  routePath: string;
  params: Readonly<Record<string, string>>;
  query: Readonly<Record<string, string>>;
}

/** Query parameters that never change a response body. */
const IGNORED_QUERY = new Set(['token']);

/** What the request itself puts into a cache key: its route, path parameters and query (but `token`). */
export function requestKeyPart(parts: RequestKeyParts): string {
  const query = Object.keys(parts.query)
    .filter((name) => !IGNORED_QUERY.has(name))
    .sort()
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(parts.query[name]!)}`)
    .join('&');
  const params = Object.keys(parts.params).sort().map((name) => `${name}=${encodeURIComponent(parts.params[name]!)}`).join('&');
  return `${parts.method} ${parts.routePath}|${params}|${query}`;
}

export interface CacheKeyParts {
  projectId: number;
  version: number;
  /** `owner` / `member` / `viewer`, `non-member` or `anonymous`. */
  audience: string;
  /** requestKeyPart of the request. */
  request: string;
  /** What the stale warning would say (it is part of an enveloped body). */
  staleWarning: boolean | null;
  /** What else the answer depends on (`RouteDefinition.cacheVariant`), empty when nothing. */
  variant?: string;
}

export function cacheKey(parts: CacheKeyParts): string {
  return `${parts.projectId}|${parts.version}|${parts.audience}|${parts.request}|${parts.staleWarning}|${parts.variant ?? ''}`;
}

/** A strong entity tag for some bytes or a cache key. */
export function entityTag(content: string | Buffer): string {
  return `"${createHash('sha1').update(content).digest('base64url')}"`;
}

/** Whether an If-None-Match header value matches an entity tag (weak comparison, `*` included). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
