import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

describe('API: /me and /my/people', () => {
  let app: StorylineApp;
  let ada: PersonHandle;
  let bob: PersonHandle;
  let projectId: number;

  before(async () => {
    app = await storylineApp();
    ada = await app.person('Ada Lovelace');
    bob = await app.person('Bob Stranger');
    const created = await app.api('POST', '/projects', { as: ada, body: { name: 'Engine', new_account_name: 'Analytical' } });
    expect(created.status).to.equal(200);
    projectId = created.json.id;
  });
  after(() => app.close());

  it('answers every me field with the token, accounts and membership summaries', async () => {
    const res = await app.api('GET', '/me', { as: ada });
    expect(res.status).to.equal(200);
    expect(res.json).to.deep.include({
      kind: 'me',
      id: ada.id,
      name: 'Ada Lovelace',
      initials: 'AL',
      username: 'ada.lovelace',
      email: ada.email,
      api_token: ada.token,
      has_ext_identity: false,
      receives_in_app_notifications: true,
      twofactor_auth_enabled: false,
      time_zone: { kind: 'time_zone', olson_name: 'Etc/UTC', offset: '+00:00' },
      created_at: '2024-01-10T12:00:00Z',
    });
    expect(res.json.accounts).to.deep.equal([{ kind: 'account_summary', id: res.json.accounts[0].id, name: 'Analytical', status: 'active', plan: 'self_hosted' }]);
    expect(res.json.projects).to.have.length(1);
    expect(res.json.projects[0]).to.deep.include({ kind: 'membership_summary', project_id: projectId, project_name: 'Engine', role: 'owner', favorite: false });
    expect(res.json.projects[0].project_color).to.match(/^[0-9a-f]{6}$/);
    expect(res.headers['x-tracker-project-version']).to.equal(undefined);
  });

  it('gives the token for HTTP Basic with username or email, and 403 for a wrong password', async () => {
    for (const login of ['ada.lovelace', ada.email, ada.email.toUpperCase()]) {
      const res = await app.api('GET', '/me', { headers: { Authorization: basic(login, ada.password) } });
      expect(res.status, login).to.equal(200);
      expect(res.json.api_token).to.equal(ada.token);
    }
    const wrong = await app.api('GET', '/me', { headers: { Authorization: basic('ada.lovelace', 'nope') } });
    expect(wrong.status).to.equal(403);
    expect(wrong.json.code).to.equal('invalid_authentication');
    const unknown = await app.api('GET', '/me', { headers: { Authorization: basic('nobody', 'nope') } });
    expect(unknown.status).to.equal(403);
  });

  it('rejects an unknown token, accepts the query parameter and asks for credentials when none are sent', async () => {
    expect((await app.api('GET', '/me', { headers: { 'X-TrackerToken': '0'.repeat(32) } })).status).to.equal(403);
    expect((await app.api('GET', '/me', { query: { token: ada.token } })).json.id).to.equal(ada.id);
    expect((await app.api('GET', '/me', { headers: { 'X-ServiceToken': bob.token } })).json.id).to.equal(bob.id);
    const anonymous = await app.api('GET', '/me');
    expect(anonymous.status).to.equal(401);
    expect(anonymous.json.code).to.equal('unauthenticated');
  });

  it('applies fields to me and its nested summaries', async () => {
    const res = await app.api('GET', '/me', { as: ada, query: { fields: 'name,projects(project_name)' } });
    expect(res.json).to.deep.equal({ id: ada.id, name: 'Ada Lovelace', projects: [{ id: res.json.projects[0].id, project_name: 'Engine' }] });
  });

  it('adds known people by email, inviting unknown ones, and lists them with their collaboration factor', async () => {
    const posted = await app.api('POST', '/my/people', { as: ada, body: { emails: ['carol@example.com', bob.email] } });
    expect(posted.status).to.equal(200);
    expect(posted.json.map((k: any) => [k.kind, k.person.email, k.collaboration_factor])).to.have.deep.members([
      ['known_person', undefined, 0],
      ['known_person', undefined, 0],
    ]);
    const carol = posted.json.find((k: any) => k.person.name !== 'Bob Stranger').person;
    // An invitee's default name and username say nothing of the email.
    expect(carol).to.include({ name: `user${carol.id}`, username: `user${carol.id}` });

    const invite = await app.api('POST', `/projects/${projectId}/memberships`, { as: ada, body: { email: bob.email, role: 'member' } });
    expect(invite.status).to.equal(200);
    const listed = await app.api('GET', '/my/people', { as: ada });
    expect(listed.json.map((k: any) => [k.person.name, k.collaboration_factor, k.person.email])).to.deep.equal([
      ['Bob Stranger', 1, bob.email],
      [`user${carol.id}`, 0, undefined],
    ]);
    const inProject = await app.api('GET', '/my/people', { as: ada, query: { project_id: projectId } });
    expect(inProject.json.map((k: any) => k.person.id)).to.deep.equal([bob.id]);
  });

  it('validates /my/people bodies and project ids', async () => {
    expect((await app.api('POST', '/my/people', { as: ada, body: { emails: [] } })).json.code).to.equal('invalid_parameter');
    expect((await app.api('POST', '/my/people', { as: ada, body: { emails: 'x@y.z' } })).status).to.equal(400);
    expect((await app.api('POST', '/my/people', { as: ada, body: { emails: ['not an email'] } })).json.validation_errors[0].field).to.equal('email');
    expect((await app.api('GET', '/my/people', { as: ada, query: { project_id: 999999 } })).status).to.equal(404);
    const stranger = await app.person('Dan Outside');
    expect((await app.api('GET', '/my/people', { as: stranger, query: { project_id: projectId } })).status).to.equal(403);
  });
});
