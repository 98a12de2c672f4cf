// Invitations over HTTP (issue 34, Storyline's addition to Tracker's API): an owner makes a one-time
// link for a member who cannot sign in yet; the link shows what it invites to and is accepted once with
// name, username and password, answering `me` with the token. Every refusal answers its error hash and
// writes nothing; the secret never reaches an event, a read model or a log line.
import { expect } from 'chai';
import { createLog } from '../../src/infra/log.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const DAY_MS = 86_400_000;
const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
const secretOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

describe('API: invitations', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let member: PersonHandle;
  let viewer: PersonHandle;
  let outsider: PersonHandle;
  let projectId: number;
  const logLines: string[] = [];

  before(async () => {
    app = await storylineApp({ log: createLog('info', (line) => void logLines.push(line)) });
    owner = await app.person('Olivia Owner');
    member = await app.person('Mia Member');
    viewer = await app.person('Vic Viewer');
    outsider = await app.person('Otto Outsider');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Joinable', new_account_name: 'Join Inc' } })).json.id;
    for (const [person, role] of [[member, 'member'], [viewer, 'viewer']] as const) {
      expect((await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: person.id, role } })).status).to.equal(200);
    }
  });
  after(() => app.close());

  /** A new member invited by email (a person without a password); returns the membership. */
  async function newMember(email: string): Promise<{ id: number; person_id: number }> {
    const res = await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { email, role: 'member' } });
    expect(res.status, res.text).to.equal(200);
    return { id: res.json.id, person_id: res.json.person.id };
  }

  function invite(membershipId: number, as: PersonHandle = owner) {
    return app.api('POST', `/projects/${projectId}/memberships/${membershipId}/invitation`, { as });
  }

  async function projectVersion(): Promise<number> {
    return (await app.api('GET', `/projects/${projectId}`, { as: owner })).json.version;
  }

  /** What a refusal must leave as it was: the project, the log's head and every person's profile. */
  async function written(): Promise<unknown> {
    const people = await app.storyline.runner.collection('people').all();
    expect(people).to.have.length.above(3);
    return { version: await projectVersion(), head: await app.storyline.eventStore.headPosition(), people };
  }

  it('makes a link for the member, shows what it invites to, and accepts it once', async () => {
    const membership = await newMember('ada@example.com');
    const made = await invite(membership.id);
    expect(made.status, made.text).to.equal(200);
    expect(made.json).to.deep.equal({
      kind: 'invitation',
      project_id: projectId,
      person_id: membership.person_id,
      email: 'ada@example.com',
      url: made.json.url,
      expires_at: new Date(app.clock.now + 7 * DAY_MS).toISOString().replace('.000', ''),
      emailed: false,
    });
    expect(made.json.url).to.match(/^http:\/\/storyline\.test\/invitations\/[A-Za-z0-9_-]{43}$/);
    const secret = secretOf(made.json.url);

    const shown = await app.api('GET', `/invitations/${secret}`);
    expect(shown.status, shown.text).to.equal(200);
    expect(shown.json).to.deep.equal({
      kind: 'invitation',
      project_id: projectId,
      project_name: 'Joinable',
      email: 'ada@example.com',
      inviter_name: 'Olivia Owner',
      expires_at: made.json.expires_at,
    });
    expect((await app.api('GET', `/invitations/${secret}`, { query: { date_format: 'millis' } })).json.expires_at).to.equal(app.clock.now + 7 * DAY_MS);

    const accepted = await app.api('POST', `/invitations/${secret}/accept`, { body: { name: 'Ada Lovelace', username: 'ada', password: 'analytical engine' } });
    expect(accepted.status, accepted.text).to.equal(200);
    expect(accepted.json).to.deep.include({ kind: 'me', id: membership.person_id, name: 'Ada Lovelace', username: 'ada', initials: 'AL', email: 'ada@example.com' });
    expect(accepted.json.api_token).to.match(/^[0-9a-f]{32}$/);
    expect(accepted.json.projects.map((summary: { project_id: number }) => summary.project_id)).to.deep.equal([projectId]);

    const me = await app.api('GET', '/me', { headers: { 'X-TrackerToken': accepted.json.api_token } });
    expect(me.json).to.deep.include({ id: membership.person_id, username: 'ada' });
    const signIn = await app.api('GET', '/me', { headers: { Authorization: basic('ada', 'analytical engine') } });
    expect(signIn.status).to.equal(200);
    expect(signIn.json.api_token).to.equal(accepted.json.api_token);

    // used: the link is gone for both routes, and the person can no longer be invited
    for (const res of [await app.api('GET', `/invitations/${secret}`), await app.api('POST', `/invitations/${secret}/accept`, { body: { name: 'X', username: 'x', password: 'another password' } })]) {
      expect(res.status).to.equal(404);
      expect(res.json.code).to.equal('unfound_resource');
    }
    const again = await invite(membership.id);
    expect(again.status).to.equal(400);
    expect(again.json).to.deep.include({ code: 'invalid_parameter' });
    expect(again.json.validation_errors).to.deep.equal([{ field: 'membership_id', problem: again.json.validation_errors[0].problem }]);
    expect(again.json.validation_errors[0].problem).to.contain('already has an account');
  });

  it('accepts a form body, as every JSON write route does', async () => {
    const membership = await newMember('form@example.com');
    const secret = secretOf((await invite(membership.id)).json.url);
    const accepted = await app.api('POST', `/invitations/${secret}/accept`, {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      rawBody: 'name=Grace+Hopper&username=grace&initials=GMH&password=cobol+compiler',
    });
    expect(accepted.status, accepted.text).to.equal(200);
    expect(accepted.json).to.deep.include({ name: 'Grace Hopper', username: 'grace', initials: 'GMH' });
  });

  it('replaces the earlier link when asked again', async () => {
    const membership = await newMember('twice@example.com');
    const first = secretOf((await invite(membership.id)).json.url);
    const second = secretOf((await invite(membership.id)).json.url);
    expect(second).not.to.equal(first);
    expect((await app.api('GET', `/invitations/${first}`)).status).to.equal(404);
    expect((await app.api('POST', `/invitations/${first}/accept`, { body: { name: 'Old Link', username: 'oldlink', password: 'long enough' } })).status).to.equal(404);
    expect((await app.api('GET', `/invitations/${second}`)).status).to.equal(200);
  });

  it('refuses an expired link, an unknown one and a malformed one with 404', async () => {
    const membership = await newMember('late@example.com');
    const secret = secretOf((await invite(membership.id)).json.url);
    const start = app.clock.now;
    try {
      app.clock.now = start + 7 * DAY_MS - 1000;
      expect((await app.api('GET', `/invitations/${secret}`)).status).to.equal(200);
      app.clock.now = start + 7 * DAY_MS;
      const before = await written();
      for (const res of [await app.api('GET', `/invitations/${secret}`), await app.api('POST', `/invitations/${secret}/accept`, { body: { name: 'Late', username: 'late', password: 'long enough' } })]) {
        expect(res.status).to.equal(404);
        expect(res.json.code).to.equal('unfound_resource');
      }
      expect(await written()).to.deep.equal(before);
    } finally {
      app.clock.now = start;
    }
    for (const secret of ['A'.repeat(43), 'short', '%zz', 'x'.repeat(500)]) {
      expect((await app.api('GET', `/invitations/${secret}`)).status, secret).to.equal(404);
      expect((await app.api('POST', `/invitations/${secret}/accept`, { body: { name: 'N', username: 'n', password: 'long enough' } })).status, secret).to.equal(404);
    }
  });

  it('withdraws the link of a member who was removed', async () => {
    const membership = await newMember('removed@example.com');
    const secret = secretOf((await invite(membership.id)).json.url);
    expect((await app.api('DELETE', `/projects/${projectId}/memberships/${membership.id}`, { as: owner })).status).to.equal(204);
    expect((await app.api('GET', `/invitations/${secret}`)).status).to.equal(404);
  });

  it('refuses a taken username, a short password and missing fields with 400, writing nothing', async () => {
    const membership = await newMember('picky@example.com');
    const secret = secretOf((await invite(membership.id)).json.url);
    const before = await written();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'Picky', username: 'olivia.owner', password: 'long enough' }, 'username'],
      [{ name: 'Picky', username: 'OLIVIA.OWNER', password: 'long enough' }, 'username'],
      [{ name: 'Picky', username: 'picky', password: 'short' }, 'password'],
      [{ name: 'Picky', username: 'picky', password: 'x'.repeat(1025) }, 'password'],
      [{ username: 'picky', password: 'long enough' }, 'name'],
      [{ name: 'Picky', password: 'long enough' }, 'username'],
      [{ name: 'Picky', username: 'picky' }, 'password'],
      [{ name: 'Picky', username: 'no spaces allowed', password: 'long enough' }, 'username'],
      [{ name: '   ', username: 'picky', password: 'long enough' }, 'name'],
      [{ name: 'Picky', username: 'picky', password: 12345678 }, 'password'],
      [{ name: 'Picky', username: 'picky', password: 'long enough', email: 'other@example.com' }, 'email'],
    ];
    for (const [body, field] of cases) {
      const res = await app.api('POST', `/invitations/${secret}/accept`, { body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
      expect(res.json.validation_errors.map((error: { field: string }) => error.field), JSON.stringify(body)).to.include(field);
    }
    expect(await written()).to.deep.equal(before);
    expect((await app.api('GET', `/invitations/${secret}`)).status).to.equal(200);
  });

  it('lets only the project owners invite, and only members of the project', async () => {
    const membership = await newMember('guarded@example.com');
    const before = await written();
    for (const [as, status, code] of [[member, 403, 'unauthorized_operation'], [viewer, 403, 'unauthorized_operation']] as const) {
      const res = await invite(membership.id, as);
      expect(res.status, res.text).to.equal(status);
      expect(res.json.code).to.equal(code);
    }
    expect((await invite(membership.id, outsider)).status).to.equal(403);
    const anonymous = await app.api('POST', `/projects/${projectId}/memberships/${membership.id}/invitation`);
    expect(anonymous.status).to.equal(401);
    expect(anonymous.json.code).to.equal('unauthenticated');
    const unknown = await invite(99999999);
    expect(unknown.status).to.equal(404);
    expect(unknown.json.code).to.equal('unfound_resource');
    const ownMembership = (await app.api('GET', `/projects/${projectId}/memberships`, { as: owner })).json.find((m: { person: { id: number } }) => m.person.id === member.id);
    const hasPassword = await invite(ownMembership.id);
    expect(hasPassword.status).to.equal(400);
    expect(hasPassword.json.validation_errors[0].field).to.equal('membership_id');
    expect(await written()).to.deep.equal(before);
  });

  it('finishes an acceptance that stopped between the profile and the password when it is sent again', async () => {
    const membership = await newMember('crash@example.com');
    const secret = secretOf((await invite(membership.id)).json.url);
    const secrets = app.storyline.deps.secrets;
    const acceptInvitation = secrets.acceptInvitation.bind(secrets);
    secrets.acceptInvitation = async () => {
      throw new Error('the process stopped here');
    };
    try {
      const failed = await app.api('POST', `/invitations/${secret}/accept`, { body: { name: 'Crash Test', username: 'crash', password: 'try again later' } });
      expect(failed.status).to.equal(500);
    } finally {
      secrets.acceptInvitation = acceptInvitation;
    }
    // the profile was written, the password not: the link still works, and sending it again finishes
    expect((await app.api('GET', `/invitations/${secret}`)).status).to.equal(200);
    const retried = await app.api('POST', `/invitations/${secret}/accept`, { body: { name: 'Crash Test', username: 'crash', password: 'try again later' } });
    expect(retried.status, retried.text).to.equal(200);
    expect(retried.json).to.deep.include({ name: 'Crash Test', username: 'crash' });
    expect((await app.api('GET', '/me', { headers: { Authorization: basic('crash', 'try again later') } })).status).to.equal(200);
  });

  it('accepts one of two simultaneous acceptances of a link', async () => {
    const membership = await newMember('race@example.com');
    const secret = secretOf((await invite(membership.id)).json.url);
    const answers = await Promise.all(
      ['first', 'second'].map((name) => app.api('POST', `/invitations/${secret}/accept`, { body: { name, username: `racer.${name}`, password: `${name} password` } })),
    );
    expect(answers.map((res) => res.status).sort()).to.deep.equal([200, 404]);
    const winner = answers.find((res) => res.status === 200)!.json;
    const person = await app.api('GET', '/me', { headers: { 'X-TrackerToken': winner.api_token } });
    expect(person.json.name).to.equal(winner.name);
  });

  it('keeps every secret out of the log, the events and the read models', async () => {
    logLines.splice(0);
    const membership = await newMember('private@example.com');
    const made = await invite(membership.id);
    const secret = secretOf(made.json.url);
    await app.api('GET', `/invitations/${secret}`);
    await app.server.request('GET', `/v5/%69nvitations/${secret}`);
    await app.server.request('GET', `/services/v5/invitations%2F${secret}`);
    await app.api('POST', `/invitations/${secret}/accept`, { body: { name: 'Private Person', username: 'private', password: 'secret password' } });
    const requestPaths = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['message'] === 'request').map((line) => line['path']);
    expect(requestPaths).to.include('/services/v5/invitations/{secret}');
    expect(requestPaths).to.include('/services/v5/invitations/{secret}/accept');
    const events = JSON.stringify(await app.storyline.eventStore.readAll());
    const readModels: unknown[] = [];
    for (const name of await app.storyline.readStore.listCollections()) readModels.push(await app.storyline.readStore.collection(name).all());
    for (const [where, text] of [['log', logLines.join('')], ['events', events], ['read models', JSON.stringify(readModels)]]) {
      expect(text, where).not.to.contain(secret);
      expect(text, where).not.to.contain('secret password');
    }
  });
});
