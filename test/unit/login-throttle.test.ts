import { expect } from 'chai';
import { LoginThrottle } from '../../src/api/login-throttle.js';

describe('login throttle', () => {
  const options = {
    freePairFailures: 2, freeAddressFailures: 3, freeLoginFailures: 4, windowMs: 1000, baseDelayMs: 10, maxDelayMs: 40,
    baseSlowDownMs: 5, maxSlowDownMs: 20, maxEntries: 4,
  };

  it('refuses a (login, address) pair exponentially after its free failures, capped, and forgets after the window', () => {
    const clock = { now: 0 };
    const throttle = new LoginThrottle(() => clock.now, options);
    const attempt = { login: ' Ada@Example.com', address: 'a' };
    throttle.recordFailure(attempt);
    expect(throttle.verdict(attempt).refuseMs).to.equal(0);
    throttle.recordFailure({ ...attempt, login: 'ada@example.com' });
    expect(throttle.verdict(attempt).refuseMs).to.equal(10);
    const waits = [];
    for (let i = 0; i < 4; i++) {
      throttle.recordFailure(attempt);
      waits.push(throttle.verdict(attempt).refuseMs);
    }
    expect(waits).to.deep.equal([20, 40, 40, 40]);
    clock.now += 1001;
    expect(throttle.verdict(attempt).refuseMs).to.equal(0);
  });

  it('never refuses a login from an address that has not failed: it only slows it, boundedly', () => {
    const throttle = new LoginThrottle(() => 0, options);
    const verdicts = [];
    for (let i = 0; i < 8; i++) {
      throttle.recordFailure({ login: 'ada', address: `guesser ${i}` });
      verdicts.push(throttle.verdict({ login: 'ada', address: 'home' }));
    }
    expect(verdicts.map((verdict) => verdict.refuseMs)).to.deep.equal([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(verdicts.map((verdict) => verdict.slowDownMs)).to.deep.equal([0, 0, 0, 5, 10, 20, 20, 20]);
    expect(throttle.verdict({ login: 'bob', address: 'home' }).slowDownMs).to.equal(0);
    throttle.recordSuccess({ login: 'ada', address: 'home' });
    expect(throttle.verdict({ login: 'ada', address: 'home' }).slowDownMs).to.equal(0);
  });

  it('refuses an address past its free failures over any logins; a success does not clear it', () => {
    const throttle = new LoginThrottle(() => 0, options);
    for (let i = 0; i < 3; i++) throttle.recordFailure({ login: `user${i}`, address: 'a' });
    throttle.recordSuccess({ login: 'valid', address: 'a' });
    expect(throttle.verdict({ login: 'valid', address: 'a' }).refuseMs).to.equal(10);
    expect(throttle.verdict({ login: 'valid', address: 'b' }).refuseMs).to.equal(0);
  });

  it('keeps at most maxEntries counters of each kind, dropping the stalest', () => {
    const clock = { now: 0 };
    const throttle = new LoginThrottle(() => clock.now, options);
    for (let i = 0; i < 100; i++) {
      clock.now += 1;
      throttle.recordFailure({ login: `user${i}`, address: `10.0.0.${i}` });
      const { pairs, addresses, logins } = throttle.sizes;
      expect(Math.max(pairs, addresses, logins)).to.be.at.most(4);
    }
    // The stalest went first: the latest failures are still counted.
    throttle.recordFailure({ login: 'user99', address: '10.0.0.99' });
    expect(throttle.verdict({ login: 'user99', address: '10.0.0.99' }).refuseMs).to.equal(10);
  });
});
