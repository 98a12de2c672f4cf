// Brute-force brake for password sign-ins (HTTP Basic on `/me`), built so that nobody can lock another
// person out. Failures are counted within a window per (login, address), per address and per login:
// - a (login, address) pair or an address past its free failures backs off: every further attempt from
//   that address (for that login, or for any) waits an exponentially growing back-off, answered 429
//   `too_many_requests` without checking the password;
// - a login past its free failures over all addresses is only slowed: each attempt on it is held a
//   bounded delay before its password is checked, whatever the password; never refused, so a correct
//   password from an address that has not failed always signs in.
// A success clears its pair's and its login's counts (not its address's, so one valid account cannot
// reset the count of an address guessing others).
//
// Memory is bounded: at most `maxEntries` counters of each kind, the least recently failed dropped
// first; a counter whose window has passed counts as new.

export interface LoginThrottleOptions {
  /** Failures of one login from one address allowed within the window before that pair backs off. */
  freePairFailures: number;
  /** Failures from one address (any logins) allowed within the window before the address backs off. */
  freeAddressFailures: number;
  /** Failures of one login (from any addresses) within the window before its attempts are slowed. */
  freeLoginFailures: number;
  /** A counter forgets its failures this long after the last one. */
  windowMs: number;
  /** The first back-off; each further failure doubles it, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** The first slow-down of a login failing from many addresses; doubling per failure up to `maxSlowDownMs`. */
  baseSlowDownMs: number;
  maxSlowDownMs: number;
  /** Most counters kept of each kind (pairs, addresses, logins). */
  maxEntries: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  freePairFailures: 10,
  freeAddressFailures: 50,
  freeLoginFailures: 10,
  windowMs: 15 * 60_000,
  baseDelayMs: 1_000,
  maxDelayMs: 15 * 60_000,
  baseSlowDownMs: 250,
  maxSlowDownMs: 2_000,
  maxEntries: 10_000,
};

export interface SignInAttempt {
  /** The login as sent (compared lower-cased and trimmed). */
  login: string;
  address: string;
}

/** What the throttle says of an attempt before its password is checked. */
export interface SignInVerdict {
  /** Milliseconds the attempt's address must still wait: refused (429) when above 0. */
  refuseMs: number;
  /** Milliseconds to hold the attempt before checking its password (a login failing from many addresses). */
  slowDownMs: number;
}

/** Failures in the window of the attempt's pair, address and login, after counting one. */
export interface FailureCounts {
  pair: number;
  address: number;
  login: number;
}

export class LoginThrottle {
  private readonly pairs: FailureCounters;
  private readonly addresses: FailureCounters;
  private readonly logins: FailureCounters;

  constructor(
    private readonly clock: () => number,
    private readonly options: LoginThrottleOptions = DEFAULT_LOGIN_THROTTLE,
  ) {
    this.pairs = new FailureCounters(clock, options);
    this.addresses = new FailureCounters(clock, options);
    this.logins = new FailureCounters(clock, options);
  }

  verdict(attempt: SignInAttempt): SignInVerdict {
    const { freePairFailures, freeAddressFailures, freeLoginFailures, baseDelayMs, maxDelayMs, baseSlowDownMs, maxSlowDownMs } = this.options;
    const now = this.clock();
    const refuseMs = Math.max(
      remaining(this.pairs.get(pairKey(attempt)), freePairFailures, baseDelayMs, maxDelayMs, now),
      remaining(this.addresses.get(attempt.address), freeAddressFailures, baseDelayMs, maxDelayMs, now),
    );
    const login = this.logins.get(loginKey(attempt));
    const slowDownMs = login && login.failures >= freeLoginFailures ? backOff(login.failures - freeLoginFailures, baseSlowDownMs, maxSlowDownMs) : 0;
    return { refuseMs, slowDownMs };
  }

  /** Counts a failed attempt against its pair, its address and its login. */
  recordFailure(attempt: SignInAttempt): FailureCounts {
    return {
      pair: this.pairs.bump(pairKey(attempt)),
      address: this.addresses.bump(attempt.address),
      login: this.logins.bump(loginKey(attempt)),
    };
  }

  recordSuccess(attempt: SignInAttempt): void {
    this.pairs.delete(pairKey(attempt));
    this.logins.delete(loginKey(attempt));
  }

  /** Counters held of each kind (each bounded by `maxEntries`). */
  get sizes(): { pairs: number; addresses: number; logins: number } {
    return { pairs: this.pairs.size, addresses: this.addresses.size, logins: this.logins.size };
  }
}

interface Counter {
  failures: number;
  lastFailureAt: number;
}

/** Failure counters by key within the window, at most `maxEntries`, the least recently failed dropped first. */
class FailureCounters {
  /** Map order is recency of the last failure: the first key is the stalest. */
  private readonly counters = new Map<string, Counter>();

  constructor(
    private readonly now: () => number,
    private readonly options: Pick<LoginThrottleOptions, 'windowMs' | 'maxEntries'>,
  ) {}

  /** The counter of `key` unless its window has passed. */
  get(key: string): Counter | undefined {
    const counter = this.counters.get(key);
    if (counter && this.now() - counter.lastFailureAt > this.options.windowMs) {
      this.counters.delete(key);
      return undefined;
    }
    return counter;
  }

  /** Counts one failure of `key` now; returns its failures in the window. */
  bump(key: string): number {
    const failures = (this.get(key)?.failures ?? 0) + 1;
    this.counters.delete(key);
    this.counters.set(key, { failures, lastFailureAt: this.now() });
    while (this.counters.size > this.options.maxEntries) this.counters.delete(this.counters.keys().next().value as string);
    return failures;
  }

  delete(key: string): void {
    this.counters.delete(key);
  }

  get size(): number {
    return this.counters.size;
  }
}

/** What is left of the back-off of a counter past its free failures (0 when none). */
function remaining(counter: Counter | undefined, free: number, baseMs: number, maxMs: number, now: number): number {
  if (!counter || counter.failures < free) return 0;
  return Math.max(0, counter.lastFailureAt + backOff(counter.failures - free, baseMs, maxMs) - now);
}

/** `baseMs` doubled `beyond` times, at most `maxMs`. */
function backOff(beyond: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** Math.min(beyond, 30), maxMs);
}

function loginKey(attempt: SignInAttempt): string {
  return attempt.login.trim().toLowerCase();
}

function pairKey(attempt: SignInAttempt): string {
  return `${attempt.address}\n${loginKey(attempt)}`;
}
