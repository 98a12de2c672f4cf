// Who is calling: an API token (header `X-TrackerToken` / `X-ServiceToken`, or query `token`), or HTTP
// Basic credentials on the routes that accept them (`GET /me`). Credentials that are present but wrong
// fail here, before any authorization or lookup (spec, Authentication 4).
//
// Password sign-ins are guarded: a failure is logged (login and address, never the password) and
// counted by the login throttle; an address past its free failures, for this login or for any, answers
// 429 `too_many_requests` until its back-off has passed, without the password being checked; a login
// failing from many addresses is only slowed (login-throttle.ts).
// A person confirming their own password (`PUT /me/password`) goes through the same guard as a sign-in
// with their username.

import { setTimeout as sleep } from 'node:timers/promises';
import { apiError } from './error-catalogue.js';
import type { ApiLog, Authenticator } from './app-dependencies.js';
import type { LoginThrottle, SignInAttempt } from './login-throttle.js';
import type { Actor } from './route-table.js';

const PASSWORD_FIX = 'Recheck your name (email address or Tracker username) and password.';
const CURRENT_PASSWORD_FIX = 'Recheck your current password.';

/** The hint of a refused token: where it is shown, the board's profile page. */
export function tokenFix(siteUrl: string): string {
  return `Recheck your API token; it is shown on your profile page, ${siteUrl}/profile.`;
}
/** An XHR without credentials: the recorded invalid_authentication hashes carry no general_problem. */
const NO_CREDENTIALS_FIX = 'No credentials were presented: send your API token in the X-TrackerToken header or the token query parameter.';

export interface CredentialSources {
  header(name: string): string | undefined;
  query: Readonly<Record<string, string>>;
  basicAllowed: boolean;
  /** The client's address (the socket's), for the sign-in throttle and the log. */
  address: string;
}

export interface SignInGuard {
  throttle: LoginThrottle;
  log: Pick<ApiLog, 'warn'>;
  /** The `possible_fix` of a refused token (tokenFix). */
  tokenFix: string;
}

/** Longest login written to the log. */
const LOGGED_LOGIN_LENGTH = 100;

/**
 * The authenticated person, null when no credentials were sent; throws `invalid_authentication`, or
 * `too_many_requests` for a throttled password sign-in.
 */
export async function authenticate(sources: CredentialSources, auth: Authenticator, guard: SignInGuard): Promise<Actor | null> {
  const token = sources.header('x-trackertoken') ?? sources.header('x-servicetoken') ?? sources.query.token;
  if (token !== undefined) {
    const actor = token === '' ? null : await auth.byToken(token);
    if (!actor) throw apiError('invalid_authentication', { possible_fix: guard.tokenFix });
    return actor;
  }
  const authorization = sources.header('authorization');
  if (!sources.basicAllowed || authorization === undefined) return null;
  const basic = parseBasic(authorization);
  if (!basic) throw apiError('invalid_authentication', { possible_fix: PASSWORD_FIX });
  return signIn({ login: basic.login, address: sources.address }, basic.password, auth, guard, PASSWORD_FIX);
}

/**
 * The caller's own password, checked as a sign-in with their username from their address (throttled,
 * a failure logged and counted); throws `invalid_authentication` or `too_many_requests`.
 */
export async function confirmOwnPassword(caller: { actor: Actor; address: string }, password: string, auth: Authenticator, guard: SignInGuard): Promise<void> {
  const { actor, address } = caller;
  const signedIn = await signIn({ login: actor.username, address }, password, auth, guard, CURRENT_PASSWORD_FIX);
  if (signedIn.id !== actor.id) throw apiError('invalid_authentication', { possible_fix: CURRENT_PASSWORD_FIX });
}

function seconds(ms: number): string {
  const whole = Math.ceil(ms / 1000);
  return whole === 1 ? '1 second' : `${whole} seconds`;
}

async function signIn(attempt: SignInAttempt, password: string, auth: Authenticator, guard: SignInGuard, fix: string): Promise<Actor> {
  const { refuseMs, slowDownMs } = guard.throttle.verdict(attempt);
  if (refuseMs > 0) {
    throw apiError('too_many_requests', {
      general_problem: 'Too many failed sign-ins from this address.',
      possible_fix: `Wait ${seconds(refuseMs)} before trying again.`,
    });
  }
  if (slowDownMs > 0) await sleep(slowDownMs);
  const actor = await auth.byPassword(attempt.login, password);
  if (actor) {
    guard.throttle.recordSuccess(attempt);
    return actor;
  }
  const counts = guard.throttle.recordFailure(attempt);
  guard.log.warn('failed sign-in', {
    login: attempt.login.slice(0, LOGGED_LOGIN_LENGTH),
    address: attempt.address,
    failures: counts.pair,
    login_failures: counts.login,
    address_failures: counts.address,
    slowed_down_ms: slowDownMs,
  });
  throw apiError('invalid_authentication', { possible_fix: fix });
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
    ? apiError('invalid_authentication', { possible_fix: NO_CREDENTIALS_FIX })
    : apiError('unauthenticated');
}
