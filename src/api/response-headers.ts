// Headers: the ones every response carries (CORS, pinger interval, content type, cache control, planned
// deprecation and downtime), and the `X-Tracker-*` / `X-Service-*` pairs sent in both spellings.

import type { ApiConfig } from './app-dependencies.js';

/** The real service's allow-list (facts §11), extended with our spellings of the same headers. */
const CORS_ALLOW_HEADERS = [
  'X-TrackerToken', 'DNT', 'X-Mx-ReqToken', 'Keep-Alive', 'User-Agent', 'X-Requested-With', 'If-Modified-Since',
  'Cache-Control', 'Content-Type', 'X-Tracker-Warn-Unless-Project-Version-Is', 'X-ServiceToken',
  'X-Service-Warn-Unless-Project-Version-Is',
].join(',');

/** Not in the facts: lets browser clients read the headers the conventions put information in. */
const CORS_EXPOSE_HEADERS = [
  'Project-Version', 'Pagination-Total', 'Pagination-Limit', 'Pagination-Offset', 'Pagination-Returned',
  'Warning-Project-Was-Stale', 'Deprecation-Warning', 'Downtime-Start', 'Downtime-Finish', 'Client-Pinger-Interval',
].flatMap((suffix) => [`X-Tracker-${suffix}`, `X-Service-${suffix}`]).concat('ETag', 'Retry-After').join(',');

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export type HeaderBag = Record<string, string>;

/** Sets `X-Tracker-<suffix>` and `X-Service-<suffix>`. */
export function setServiceHeader(headers: HeaderBag, suffix: string, value: string | number | boolean): void {
  const text = String(value);
  headers[`X-Tracker-${suffix}`] = text;
  headers[`X-Service-${suffix}`] = text;
}

/** Headers of every response, computed once per app. */
export function commonHeaders(config: Pick<ApiConfig, 'deprecationWarning' | 'downtime'>): Readonly<HeaderBag> {
  const headers: HeaderBag = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Credentials': 'false',
    'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS,
    'Access-Control-Expose-Headers': CORS_EXPOSE_HEADERS,
    'Cache-Control': 'max-age=0, private, must-revalidate',
  };
  setServiceHeader(headers, 'Client-Pinger-Interval', 20);
  if (config.deprecationWarning) setServiceHeader(headers, 'Deprecation-Warning', config.deprecationWarning);
  if (config.downtime) {
    setServiceHeader(headers, 'Downtime-Start', config.downtime.start);
    setServiceHeader(headers, 'Downtime-Finish', config.downtime.finish);
  }
  return Object.freeze(headers);
}

/** Members every envelope carries when configured. */
export function commonEnvelopeMembers(config: ApiConfig): Readonly<Record<string, unknown>> {
  const members: Record<string, unknown> = {};
  if (config.deprecationWarning) members.deprecation_warning = config.deprecationWarning;
  if (config.downtime) members.downtime = { start: config.downtime.start, finish: config.downtime.finish };
  return Object.freeze(members);
}

/** `gzip` listed in Accept-Encoding without `q=0`. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip') return false;
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
