// Password sign-ins (HTTP Basic on /me) against guessing: the same answer for an unknown login, a login
// without password and a wrong password; failures logged without the password; after 10 failures of one
// login from one address (50 from one address over any logins) within 15 minutes, that address gets 429
// `too_many_requests` with an exponential back-off, even for the right password, until the back-off has
// passed (the request clock is moved, no sleeping); nobody can lock a person out: another address that
// has not failed signs in, and a login failing from many addresses is only slowed. Client addresses are
// chosen in 127.0.0.0/8 (all loopback on Linux).
import { expect } from 'chai';
import { createLog } from '../../src/infra/log.js';
import { DEFAULT_LOGIN_THROTTLE } from '../../src/api/login-throttle.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const basic = (login: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` });

describe('API: password sign-in against guessing', function () {
  this.timeout(60_000);
  let app: StorylineApp;
  let ada: PersonHandle;
  const logged: string[] = [];

  beforeEach(async () => {
    logged.length = 0;
    app = await storylineApp({ log: createLog('info', (line) => void logged.push(line)) });
    ada = await app.person('Ada');
  });
  afterEach(() => app.close());

  const signIn = (login: string, password: string, localAddress = '127.0.0.1') => app.api('GET', '/me', { headers: basic(login, password), localAddress });

  it('answers an unknown login, an invited person without password and a wrong password alike', async () => {
    const invited = await app.api('POST', '/my/people', { as: ada, body: { emails: ['invited@example.com'] } });
    expect(invited.status, invited.text).to.equal(200);
    const answers = [await signIn('nobody@example.com', 'x'), await signIn('invited@example.com', 'x'), await signIn(ada.email, 'x')];
    expect(answers.map((res) => [res.status, res.text])).to.deep.equal(Array(3).fill([answers[0]!.status, answers[0]!.text]));
    expect(answers[0]!.json.code).to.equal('invalid_authentication');
  });

  it('logs each failure with login and address, never the password', async () => {
    await signIn(ada.email, 'Secret-Guess-1');
    const lines = logged.filter((line) => line.includes('failed sign-in'));
    expect(lines).to.have.length(1);
    const line = JSON.parse(lines[0]!);
    expect(line).to.include({ level: 'warn', login: ada.email, address: '127.0.0.1', failures: 1 });
    expect(logged.join('\n')).to.not.include('Secret-Guess-1');
  });

  it('backs one login off from one address after 10 failures, even for the right password, doubling the wait, and clears it on success', async () => {
    for (let i = 0; i < DEFAULT_LOGIN_THROTTLE.freePairFailures; i++) expect((await signIn(ada.email, `guess ${i}`)).status).to.equal(403);
    const refused = await signIn(ada.email, ada.password);
    expect(refused.status, refused.text).to.equal(429);
    expect(refused.json).to.include({ kind: 'error', code: 'too_many_requests' });
    expect(refused.json.possible_fix).to.equal('Wait 1 second before trying again.');
    // Another login from the same address is not held back by ada's count.
    const other = await app.person('Bob');
    expect((await signIn(other.email, other.password)).status).to.equal(200);

    app.clock.now += DEFAULT_LOGIN_THROTTLE.baseDelayMs;
    expect((await signIn(ada.email, 'guess 10')).status).to.equal(403);
    const doubled = await signIn(ada.email, ada.password);
    expect([doubled.status, doubled.json.possible_fix]).to.deep.equal([429, 'Wait 2 seconds before trying again.']);

    app.clock.now += 2 * DEFAULT_LOGIN_THROTTLE.baseDelayMs;
    const allowed = await signIn(ada.email, ada.password);
    expect(allowed.status, allowed.text).to.equal(200);
    expect(allowed.json.api_token).to.equal(ada.token);
    expect((await signIn(ada.email, 'one more guess')).status).to.equal(403);
  });

  it('backs an address off after its free failures over any logins (50 by default), and forgets them after the window', async () => {
    await app.close();
    const freeAddressFailures = 12;
    app = await storylineApp({ loginThrottle: { ...DEFAULT_LOGIN_THROTTLE, freeAddressFailures } });
    ada = await app.person('Ada');
    for (let i = 0; i < freeAddressFailures; i++) {
      expect((await signIn(`guess${i}@example.com`, 'x')).status).to.equal(403);
    }
    expect((await signIn(ada.email, ada.password)).status).to.equal(429);
    expect((await signIn(ada.email, ada.password, '127.0.0.2')).status).to.equal(200);
    app.clock.now += DEFAULT_LOGIN_THROTTLE.windowMs + 1;
    expect((await signIn(ada.email, ada.password)).status).to.equal(200);
  });

  it('cannot be used to lock a person out: the right password from an address that has not failed signs in, the guessing address stays held', async () => {
    const guesser = '127.0.0.2';
    const answers = [];
    for (let i = 0; i < DEFAULT_LOGIN_THROTTLE.freePairFailures + 3; i++) answers.push((await signIn(ada.email, `guess ${i}`, guesser)).status);
    expect(answers).to.deep.equal([...Array<number>(DEFAULT_LOGIN_THROTTLE.freePairFailures).fill(403), 429, 429, 429]);
    const home = await signIn(ada.email, ada.password, '127.0.0.3');
    expect(home.status, home.text).to.equal(200);
    expect(home.json.api_token).to.equal(ada.token);
    expect((await signIn(ada.email, ada.password, guesser)).status).to.equal(429);
  });

  it('slows a login failing from many addresses, boundedly, and never refuses it', async () => {
    await app.close();
    logged.length = 0;
    const throttle = { ...DEFAULT_LOGIN_THROTTLE, freeLoginFailures: 3, baseSlowDownMs: 2, maxSlowDownMs: 8 };
    app = await storylineApp({ loginThrottle: throttle, log: createLog('info', (line) => void logged.push(line)) });
    ada = await app.person('Ada');
    const answers = [];
    for (let i = 2; i < 4 + DEFAULT_LOGIN_THROTTLE.freePairFailures; i++) answers.push((await signIn(ada.email, `guess ${i}`, `127.0.0.${i}`)).status);
    expect(answers).to.deep.equal(answers.map(() => 403));
    const slowed = logged.filter((line) => line.includes('failed sign-in')).map((line) => JSON.parse(line).slowed_down_ms);
    expect(slowed.slice(0, 6)).to.deep.equal([0, 0, 0, 2, 4, 8]);
    expect(Math.max(...slowed)).to.equal(8);
    expect((await signIn(ada.email, ada.password, '127.0.0.1')).status).to.equal(200);
  });

  it('behind a named reverse proxy, counts each client the proxy saw; X-Forwarded-For from anyone else is ignored', async () => {
    await app.close();
    logged.length = 0;
    app = await storylineApp({ env: { STORYLINE_TRUSTED_PROXIES: '127.0.0.1' }, log: createLog('info', (line) => void logged.push(line)) });
    ada = await app.person('Ada');
    const viaProxy = (password: string, client: string) => app.api('GET', '/me', { headers: { ...basic(ada.email, password), 'X-Forwarded-For': `${client}, ${client}` } });
    // The proxy appends the address it was reached from: the forged left entry is never read.
    const guesses = [];
    for (let i = 0; i < DEFAULT_LOGIN_THROTTLE.freePairFailures + 1; i++) guesses.push((await viaProxy(`guess ${i}`, '203.0.113.9')).status);
    expect(guesses).to.deep.equal([...Array<number>(DEFAULT_LOGIN_THROTTLE.freePairFailures).fill(403), 429]);
    expect(JSON.parse(logged.find((line) => line.includes('failed sign-in'))!).address).to.equal('203.0.113.9');
    const home = await viaProxy(ada.password, '198.51.100.7');
    expect(home.status, home.text).to.equal(200);
    // A peer that is no named proxy is counted under its own address whatever the header says.
    const direct = [];
    for (let i = 0; i < DEFAULT_LOGIN_THROTTLE.freePairFailures + 1; i++) {
      const res = await app.api('GET', '/me', { headers: { ...basic(ada.email, `guess ${i}`), 'X-Forwarded-For': `192.0.2.${i}` }, localAddress: '127.0.0.2' });
      direct.push(res.status);
    }
    expect(direct).to.deep.equal([...Array<number>(DEFAULT_LOGIN_THROTTLE.freePairFailures).fill(403), 429]);
    expect((await viaProxy(ada.password, '198.51.100.7')).status).to.equal(200);
  });

  it('leaves token authentication alone', async () => {
    for (let i = 0; i < DEFAULT_LOGIN_THROTTLE.freeLoginFailures + 1; i++) await signIn(ada.email, `guess ${i}`);
    expect((await app.api('GET', '/me', { as: ada })).status).to.equal(200);
  });
});
