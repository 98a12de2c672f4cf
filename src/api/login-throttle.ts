// Brute-force brake for password sign-ins (HTTP Basic on `/me`): failures are counted per login and per
// client address within a window; past a number of free failures, every further attempt on that login
// (or from that address) waits an exponentially growing back-off, answered 429 `too_many_requests`
// without checking the password. A success clears its login's count (not its address's, so one valid
// account cannot reset the count of an address guessing others).
//
// Memory is bounded: at most `maxEntries` counters, the least recently failed dropped first; a counter
// whose window has passed counts as new.

export interface LoginThrottleOptions {
  /** Failures of one login allowed within the window before back-off starts. */
  freeLoginFailures: number;
  /** Failures from one address allowed within the window before back-off starts. */
  freeAddressFailures: number;
  /** A counter forgets its failures this long after the last one. */
  windowMs: number;
  /** The first back-off; each further failure doubles it, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Most counters kept (logins and addresses together). */
  maxEntries: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  freeLoginFailures: 10,
  freeAddressFailures: 50,
  windowMs: 15 * 60_000,
  baseDelayMs: 1_000,
  maxDelayMs: 15 * 60_000,
  maxEntries: 10_000,
};

interface Counter {
  failures: number;
  lastFailureAt: number;
}

export interface SignInAttempt {
  /** The login as sent (compared lower-cased and trimmed). */
  login: string;
  address: string;
}

export class LoginThrottle {
  /** Map order is recency of the last failure: the first key is the stalest. */
  private readonly counters = new Map<string, Counter>();

  constructor(
    private readonly clock: () => number,
    private readonly options: LoginThrottleOptions = DEFAULT_LOGIN_THROTTLE,
  ) {}

  /** Milliseconds the attempt must still wait; 0 when it may be checked now. */
  waitMs(attempt: SignInAttempt): number {
    const now = this.clock();
    return Math.max(
      this.wait(loginKey(attempt), this.options.freeLoginFailures, now),
      this.wait(addressKey(attempt), this.options.freeAddressFailures, now),
    );
  }

  /** Counts a failed attempt against its login and its address; returns the login's failures in the window. */
  recordFailure(attempt: SignInAttempt): number {
    const now = this.clock();
    this.bump(addressKey(attempt), now);
    return this.bump(loginKey(attempt), now);
  }

  recordSuccess(attempt: SignInAttempt): void {
    this.counters.delete(loginKey(attempt));
  }

  /** Counters held (bounded by `maxEntries`). */
  get size(): number {
    return this.counters.size;
  }

  private wait(key: string, free: number, now: number): number {
    const counter = this.live(key, now);
    if (!counter || counter.failures < free) return 0;
    const delay = Math.min(this.options.baseDelayMs * 2 ** Math.min(counter.failures - free, 30), this.options.maxDelayMs);
    return Math.max(0, counter.lastFailureAt + delay - now);
  }

  private bump(key: string, now: number): number {
    const failures = (this.live(key, now)?.failures ?? 0) + 1;
    this.counters.delete(key);
    this.counters.set(key, { failures, lastFailureAt: now });
    while (this.counters.size > this.options.maxEntries) this.counters.delete(this.counters.keys().next().value as string);
    return failures;
  }

  /** The counter of `key` unless its window has passed. */
  private live(key: string, now: number): Counter | undefined {
    const counter = this.counters.get(key);
    if (counter && now - counter.lastFailureAt > this.options.windowMs) {
      this.counters.delete(key);
      return undefined;
    }
    return counter;
  }
}

function loginKey(attempt: SignInAttempt): string {
  return `login:${attempt.login.trim().toLowerCase()}`;
}

function addressKey(attempt: SignInAttempt): string {
  return `address:${attempt.address}`;
}
