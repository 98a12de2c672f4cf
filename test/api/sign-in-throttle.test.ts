// Password sign-ins (HTTP Basic on /me) against guessing: the same answer for an unknown login, a login
// without password and a wrong password; failures logged without the password; after 10 failures of one
// login (50 from one address) within 15 minutes, 429 `too_many_requests` with an exponential back-off,
// even for the right password, until the back-off has passed (the request clock is moved, no sleeping).
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

  const signIn = (login: string, password: string) => app.api('GET', '/me', { headers: basic(login, password) });

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

  it('backs one login off after 10 failures, even for the right password, doubling the wait, and clears it on success', async () => {
    for (let i = 0; i < DEFAULT_LOGIN_THROTTLE.freeLoginFailures; i++) expect((await signIn(ada.email, `guess ${i}`)).status).to.equal(403);
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
    app.clock.now += DEFAULT_LOGIN_THROTTLE.windowMs + 1;
    expect((await signIn(ada.email, ada.password)).status).to.equal(200);
  });

  it('leaves token authentication alone', async () => {
    for (let i = 0; i < DEFAULT_LOGIN_THROTTLE.freeLoginFailures + 1; i++) await signIn(ada.email, `guess ${i}`);
    expect((await app.api('GET', '/me', { as: ada })).status).to.equal(200);
  });
});
