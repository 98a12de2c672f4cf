import { expect } from 'chai';
import { LoginThrottle } from '../../src/api/login-throttle.js';

describe('login throttle', () => {
  const options = { freeLoginFailures: 2, freeAddressFailures: 3, windowMs: 1000, baseDelayMs: 10, maxDelayMs: 40, maxEntries: 4 };

  it('waits exponentially after the free failures, capped, and forgets after the window', () => {
    const clock = { now: 0 };
    const throttle = new LoginThrottle(() => clock.now, options);
    const attempt = { login: ' Ada@Example.com', address: 'a' };
    throttle.recordFailure(attempt);
    expect(throttle.waitMs(attempt)).to.equal(0);
    throttle.recordFailure({ ...attempt, login: 'ada@example.com' });
    expect(throttle.waitMs(attempt)).to.equal(10);
    const waits = [];
    for (let i = 0; i < 4; i++) {
      throttle.recordFailure(attempt);
      waits.push(throttle.waitMs(attempt));
    }
    expect(waits).to.deep.equal([20, 40, 40, 40]);
    clock.now += 1001;
    expect(throttle.waitMs(attempt)).to.equal(0);
  });

  it('keeps at most maxEntries counters, dropping the stalest', () => {
    const clock = { now: 0 };
    const throttle = new LoginThrottle(() => clock.now, options);
    for (let i = 0; i < 100; i++) {
      clock.now += 1;
      throttle.recordFailure({ login: `user${i}`, address: `10.0.0.${i}` });
      expect(throttle.size).to.be.at.most(4);
    }
  });
});
