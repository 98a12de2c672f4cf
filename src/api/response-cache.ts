// Rendered responses of `cacheable` routes, kept as bytes. A project's version counts every change made
// to it, so (project, version, route and query, caller's role) determines the answer: an entry is never
// stale, it simply stops being asked for once the version moves on. Bounded, least recently used first out.

import { createHash } from 'node:crypto';

export interface CachedResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();

  constructor(private readonly capacity: number) {}

  get(key: string): CachedResponse | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Re-insert to mark it most recently used (Map keeps insertion order).
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, response: CachedResponse): void {
    if (this.capacity <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, response);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

export interface CacheKeyParts {
  projectId: number;
  version: number;
  /** `owner` / `member` / `viewer`, `non-member` or `anonymous`. */
  audience: string;
  method: string;
  routePath: string;
  params: Readonly<Record<string, string>>;
  query: Readonly<Record<string, string>>;
  /** What the stale warning would say (it is part of an enveloped body). */
  staleWarning: boolean | null;
}

/** Query parameters that never change a response body. */
const IGNORED_QUERY = new Set(['token']);

export function cacheKey(parts: CacheKeyParts): string {
  const query = Object.keys(parts.query)
    .filter((name) => !IGNORED_QUERY.has(name))
    .sort()
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(parts.query[name]!)}`)
    .join('&');
  const params = Object.keys(parts.params).sort().map((name) => `${name}=${encodeURIComponent(parts.params[name]!)}`).join('&');
  return `${parts.projectId}|${parts.version}|${parts.audience}|${parts.method} ${parts.routePath}|${params}|${query}|${parts.staleWarning}`;
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
