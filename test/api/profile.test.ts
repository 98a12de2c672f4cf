// The profile over HTTP (issue 34, Storyline's additions to Tracker's API for the board's profile
// page): PUT /me changes name, initials, username, email and time zone; POST /me/api_token revokes the
// token at once and answers the new one; PUT /me/password checks the current password as a sign-in
// (throttled alike) and sets the new one by the rules of `storyline person add`. Refusals answer their
// error hash and write nothing; a refused token's hint points at the board's profile page.
import { expect } from 'chai';
import { DEFAULT_LOGIN_THROTTLE } from '../../src/api/login-throttle.js';
import { createLog } from '../../src/infra/log.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const basic = (login: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` });

describe('API: the profile (PUT /me, POST /me/api_token, PUT /me/password)', function () {
  this.timeout(60_000);
  let app: StorylineApp;
  let ada: PersonHandle;
  let bob: PersonHandle;
  const logged: string[] = [];

  beforeEach(async () => {
    logged.length = 0;
    app = await storylineApp({ log: createLog('info', (line) => void logged.push(line)) });
    ada = await app.person('Ada Lovelace');
    bob = await app.person('Bob Builder');
  });
  afterEach(() => app.close());

  const people = () => app.storyline.runner.collection('people').all();
  const head = () => app.storyline.eventStore.headPosition();

  describe('PUT /me', () => {
    it('changes name, initials, username, email and time zone and answers me with the token', async () => {
      const res = await app.api('PUT', '/me', {
        as: ada,
        body: { name: 'Augusta Ada King', initials: 'AAK', username: 'countess', email: 'Countess@Example.com', time_zone: 'Europe/London' },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.include({
        kind: 'me',
        id: ada.id,
        name: 'Augusta Ada King',
        initials: 'AAK',
        username: 'countess',
        email: 'countess@example.com',
        api_token: ada.token,
        time_zone: { kind: 'time_zone', olson_name: 'Europe/London', offset: '+00:00' },
      });
      expect(res.headers['x-tracker-project-version']).to.equal(undefined);
      const me = await app.api('GET', '/me', { headers: basic('countess', ada.password) });
      expect(me.json).to.deep.include({ name: 'Augusta Ada King', email: 'countess@example.com' });
    });

    it("takes Tracker's time_zone object and a form body", async () => {
      const asObject = await app.api('PUT', '/me', { as: ada, body: { time_zone: { kind: 'time_zone', olson_name: 'America/New_York', offset: '-05:00' } } });
      expect(asObject.status, asObject.text).to.equal(200);
      expect(asObject.json.time_zone.olson_name).to.equal('America/New_York');
      const asForm = await app.api('PUT', '/me', {
        as: ada,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        rawBody: 'name=Ada+K&time_zone[olson_name]=Asia/Tokyo&receives_in_app_notifications=false',
      });
      expect(asForm.status, asForm.text).to.equal(200);
      expect(asForm.json).to.deep.include({ name: 'Ada K', receives_in_app_notifications: false });
      expect(asForm.json.time_zone.olson_name).to.equal('Asia/Tokyo');
    });

    it('refuses a taken username or email, bad values, unknown and missing fields with 400, writing nothing', async () => {
      const before = { head: await head(), people: await people() };
      const cases: [Record<string, unknown>, string | null][] = [
        [{ username: 'bob.builder' }, 'username'],
        [{ username: 'BOB.BUILDER' }, 'username'],
        [{ email: bob.email }, 'email'],
        [{ email: 'not an email' }, 'email'],
        [{ time_zone: 'Mars/Olympus_Mons' }, 'time_zone'],
        [{ name: '' }, 'name'],
        [{ initials: 'TOOLONGX' }, 'initials'],
        [{ name: 'x'.repeat(101) }, 'name'],
        [{ api_token: 'f'.repeat(32) }, 'api_token'],
        [{ password: 'a new password' }, 'password'],
        [{}, null],
      ];
      for (const [body, field] of cases) {
        const res = await app.api('PUT', '/me', { as: ada, body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.json.code).to.equal('invalid_parameter');
        if (field) expect(res.json.validation_errors.map((error: { field: string }) => error.field), JSON.stringify(body)).to.include(field);
      }
      expect({ head: await head(), people: await people() }).to.deep.equal(before);
    });

    it('needs a caller', async () => {
      const res = await app.api('PUT', '/me', { body: { name: 'Nobody' } });
      expect([res.status, res.json.code]).to.deep.equal([401, 'unauthenticated']);
    });
  });

  describe('POST /me/api_token', () => {
    it('revokes the token at once and answers me with the new one; other people keep theirs', async () => {
      const res = await app.api('POST', '/me/api_token', { as: ada });
      expect(res.status, res.text).to.equal(200);
      expect(res.json).to.deep.include({ kind: 'me', id: ada.id, username: 'ada.lovelace' });
      expect(res.json.api_token).to.match(/^[0-9a-f]{32}$/).and.not.equal(ada.token);
      const old = await app.api('GET', '/me', { as: ada });
      expect([old.status, old.json.code]).to.deep.equal([403, 'invalid_authentication']);
      expect((await app.api('GET', '/me', { headers: { 'X-TrackerToken': res.json.api_token } })).json.id).to.equal(ada.id);
      expect((await app.api('GET', '/me', { headers: basic(ada.email, ada.password) })).json.api_token).to.equal(res.json.api_token);
      expect((await app.api('GET', '/me', { as: bob })).json.id).to.equal(bob.id);
    });

    it('needs a caller, and a revoked token cannot ask for another', async () => {
      expect((await app.api('POST', '/me/api_token')).status).to.equal(401);
      await app.api('POST', '/me/api_token', { as: ada });
      const again = await app.api('POST', '/me/api_token', { as: ada });
      expect([again.status, again.json.code]).to.deep.equal([403, 'invalid_authentication']);
    });

    it("points a refused token's hint at the profile page", async () => {
      const res = await app.api('GET', '/me', { headers: { 'X-TrackerToken': '0'.repeat(32) } });
      expect(res.json.possible_fix).to.equal('Recheck your API token; it is shown on your profile page, http://storyline.test/profile.');
    });
  });

  describe('PUT /me/password', () => {
    const change = (as: PersonHandle, body: unknown) => app.api('PUT', '/me/password', { as, body });

    it('sets the new password after checking the current one; the token is kept', async () => {
      const res = await change(ada, { current_password: ada.password, password: 'a brand new password' });
      expect(res.status, res.text).to.equal(204);
      expect((await app.api('GET', '/me', { headers: basic(ada.email, 'a brand new password') })).json.api_token).to.equal(ada.token);
      expect((await app.api('GET', '/me', { headers: basic(ada.email, ada.password) })).status).to.equal(403);
      expect((await app.api('GET', '/me', { as: ada })).status).to.equal(200);
    });

    it('takes a form body', async () => {
      const res = await app.api('PUT', '/me/password', {
        as: ada,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        rawBody: `current_password=${encodeURIComponent(ada.password)}&password=form+password+1`,
      });
      expect(res.status, res.text).to.equal(204);
      expect((await app.api('GET', '/me', { headers: basic(ada.email, 'form password 1') })).status).to.equal(200);
    });

    it('refuses a wrong current password with 403 and a short or missing one with 400, changing nothing', async () => {
      const wrong = await change(ada, { current_password: 'not my password', password: 'a brand new password' });
      expect(wrong.status).to.equal(403);
      expect(wrong.json).to.include({ code: 'invalid_authentication', possible_fix: 'Recheck your current password.' });
      for (const [body, field] of [
        [{ current_password: ada.password, password: 'short' }, 'password'],
        [{ current_password: ada.password }, 'password'],
        [{ password: 'a brand new password' }, 'current_password'],
        [{ current_password: ada.password, password: 'a brand new password', name: 'x' }, 'name'],
      ] as const) {
        const res = await change(ada, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.json.validation_errors.map((error: { field: string }) => error.field)).to.include(field);
      }
      expect((await app.api('GET', '/me', { headers: basic(ada.email, ada.password) })).status).to.equal(200);
      expect((await app.api('PUT', '/me/password', { body: { current_password: ada.password, password: 'a brand new password' } })).status).to.equal(401);
    });

    it('counts a wrong current password as a failed sign-in: logged without it, and throttled with Basic sign-ins', async () => {
      for (let i = 0; i < DEFAULT_LOGIN_THROTTLE.freeLoginFailures; i++) {
        expect((await change(ada, { current_password: `guess number ${i}`, password: 'a brand new password' })).status).to.equal(403);
      }
      const throttled = await change(ada, { current_password: ada.password, password: 'a brand new password' });
      expect([throttled.status, throttled.json.code]).to.deep.equal([429, 'too_many_requests']);
      expect((await app.api('GET', '/me', { headers: basic('ada.lovelace', ada.password) })).status).to.equal(429);
      const failures = logged.filter((line) => line.includes('failed sign-in')).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(failures).to.have.length(DEFAULT_LOGIN_THROTTLE.freeLoginFailures);
      expect(failures[0]).to.include({ level: 'warn', login: 'ada.lovelace', address: '127.0.0.1' });
      expect(logged.join('')).not.to.contain('guess number');
      expect(logged.join('')).not.to.contain('a brand new password');

      app.clock.now += DEFAULT_LOGIN_THROTTLE.maxDelayMs;
      expect((await change(ada, { current_password: ada.password, password: 'a brand new password' })).status).to.equal(204);
    });
  });
});
