// Who is calling: an API token (header `X-TrackerToken` / `X-ServiceToken`, or query `token`), or HTTP
// Basic credentials on the routes that accept them (`GET /me`). Credentials that are present but wrong
// fail here, before any authorization or lookup (spec, Authentication 4).

import { apiError } from './error-catalogue.js';
import type { Authenticator } from './app-dependencies.js';
import type { Actor } from './route-table.js';

const TOKEN_FIX = 'Recheck your API token; it is shown on your Profile page.';
const PASSWORD_FIX = 'Recheck your name (email address or Tracker username) and password.';

export interface CredentialSources {
  header(name: string): string | undefined;
  query: Readonly<Record<string, string>>;
  basicAllowed: boolean;
}

/** The authenticated person, null when no credentials were sent; throws `invalid_authentication`. */
export async function authenticate(sources: CredentialSources, auth: Authenticator): Promise<Actor | null> {
  const token = sources.header('x-trackertoken') ?? sources.header('x-servicetoken') ?? sources.query.token;
  if (token !== undefined) {
    const actor = token === '' ? null : await auth.byToken(token);
    if (!actor) throw apiError('invalid_authentication', { possible_fix: TOKEN_FIX });
    return actor;
  }
  const authorization = sources.header('authorization');
  if (!sources.basicAllowed || authorization === undefined) return null;
  const basic = parseBasic(authorization);
  const actor = basic ? await auth.byPassword(basic.login, basic.password) : null;
  if (!actor) throw apiError('invalid_authentication', { possible_fix: PASSWORD_FIX });
  return actor;
}

/** Login and password of an `Authorization: Basic ...` header, null when it is not valid Basic. */
export function parseBasic(header: string): { login: string; password: string } | null {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Whether a request says it is an XMLHttpRequest (missing credentials then answer 403, not 401). */
export function isXhr(req: { header(name: string): string | undefined }): boolean {
  return req.header('x-requested-with')?.toLowerCase() === 'xmlhttprequest';
}

/**
 * The error for a request that needs a person and sent no credentials: 401 `unauthenticated`, or 403
 * `invalid_authentication` for an XMLHttpRequest (spec, Authentication 3 and Errors "Shown cases").
 */
export function missingCredentials(xhr: boolean) {
  return xhr
    ? apiError('invalid_authentication', { general_problem: 'No authentication credentials were presented.', possible_fix: TOKEN_FIX })
    : apiError('unauthenticated');
}
