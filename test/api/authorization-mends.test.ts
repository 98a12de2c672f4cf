// Authorization mends (issue 8, item 11): account owners and admins act as project owners in every
// project of their account, and lose that when they leave the account; anonymous `GET /stories/{id}`
// answers like the project-scoped path; integer query parameters that are not integers answer 400 on
// every route.
import { expect } from 'chai';
import { INTEGER_QUERY_PARAMETERS } from '../../src/api/query-parameters.js';
import { fillPath, routeWorld, servedRoutes, type RouteWorld } from './support/route-world.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

describe('API: authorization mends', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let admin: PersonHandle;
  let bob: PersonHandle;
  let accountId: number;
  let publicProject: number;
  let privateProject: number;
  let publicStory: number;
  let privateStory: number;

  before(async () => {
    app = await storylineApp();
    [owner, admin, bob] = [await app.person('Owner'), await app.person('Admin'), await app.person('Bob')];
    const first = await app.api('POST', '/projects', { as: owner, body: { name: 'Open', public: true, new_account_name: 'Acme' } });
    accountId = first.json.account_id;
    publicProject = first.json.id;
    privateProject = (await app.api('POST', '/projects', { as: owner, body: { name: 'Closed', account_id: accountId } })).json.id;
    publicStory = (await app.api('POST', `/projects/${publicProject}/stories`, { as: owner, body: { name: 'open story' } })).json.id;
    privateStory = (await app.api('POST', `/projects/${privateProject}/stories`, { as: owner, body: { name: 'closed story' } })).json.id;
    const added = await app.api('POST', `/accounts/${accountId}/memberships`, { as: owner, body: { person_id: admin.id, admin: true } });
    expect(added.status, added.text).to.equal(200);
  });
  after(() => app.close());

  describe('account owners and admins', () => {
    it('manage memberships of a project of their account without being its member', async () => {
      const added = await app.api('POST', `/projects/${privateProject}/memberships`, { as: admin, body: { person_id: bob.id, role: 'viewer' } });
      expect(added.status, added.text).to.equal(200);
      const changed = await app.api('PUT', `/projects/${privateProject}/memberships/${added.json.id}`, { as: admin, body: { role: 'member' } });
      expect([changed.status, changed.json.role]).to.deep.equal([200, 'member']);
      const stories = await app.api('GET', `/projects/${privateProject}/stories`, { as: admin });
      expect(stories.status).to.equal(200);
    });

    it('lose the projects of the account when they leave it', async () => {
      const removed = await app.api('DELETE', `/accounts/${accountId}/memberships/${admin.id}`, { as: owner });
      expect(removed.status, removed.text).to.equal(204);
      expect((await app.api('GET', `/projects/${privateProject}`, { as: admin })).status).to.equal(403);
      expect((await app.api('PUT', `/projects/${publicProject}`, { as: admin, body: { description: 'x' } })).status).to.equal(403);
    });
  });

  describe('leaving an account', () => {
    it('removes the person from every project of the account, one event per project, and from no other', async () => {
      const carol = await app.person('Carol');
      await app.api('POST', `/accounts/${accountId}/memberships`, { as: owner, body: { person_id: carol.id, project_creator: true } });
      for (const projectId of [publicProject, privateProject]) {
        const added = await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: carol.id, role: 'member' } });
        expect(added.status, added.text).to.equal(200);
      }
      const elsewhere = (await app.api('POST', '/projects', { as: carol, body: { name: 'Her own', new_account_name: 'Carol Co' } })).json.id;
      const versionBefore = (await app.api('GET', `/projects/${privateProject}`, { as: owner })).json.version;

      const removed = await app.api('DELETE', `/accounts/${accountId}/memberships/${carol.id}`, { as: owner });
      expect(removed.status, removed.text).to.equal(204);

      expect((await app.api('GET', `/projects/${privateProject}`, { as: carol })).status).to.equal(403);
      expect((await app.api('POST', `/projects/${publicProject}/stories`, { as: carol, body: { name: 'x' } })).status).to.equal(403);
      expect((await app.api('GET', `/projects/${elsewhere}`, { as: carol })).status).to.equal(200);
      const members = (await app.api('GET', `/projects/${privateProject}/memberships`, { as: owner })).json;
      expect(members.map((m: { person: { id: number } }) => m.person.id)).to.not.include(carol.id);
      const after = await app.api('GET', `/projects/${privateProject}/activity`, { as: owner, query: { limit: 1 } });
      expect(after.json[0]).to.include({ kind: 'project_membership_delete_activity', project_version: versionBefore + 1 });
      expect(after.json[0].performed_by.id).to.equal(owner.id);
    });

    it("refuses to remove the only owner of one of the account's projects, and changes nothing", async () => {
      const dora = await app.person('Dora');
      await app.api('POST', `/accounts/${accountId}/memberships`, { as: owner, body: { person_id: dora.id, project_creator: true } });
      const hers = (await app.api('POST', '/projects', { as: dora, body: { name: 'Doras', account_id: accountId } })).json.id;
      const refused = await app.api('DELETE', `/accounts/${accountId}/memberships/${dora.id}`, { as: owner });
      expect(refused.status, refused.text).to.equal(400);
      expect(refused.json.general_problem).to.include('only owner of project Doras');
      expect((await app.api('GET', `/accounts/${accountId}/memberships/${dora.id}`, { as: owner })).status).to.equal(200);
      expect((await app.api('GET', `/projects/${hers}`, { as: dora })).status).to.equal(200);
    });
  });

  describe('GET /stories/{id} without credentials', () => {
    it('answers a story of a public project, like the project-scoped path', async () => {
      const bare = await app.api('GET', `/stories/${publicStory}`);
      const scoped = await app.api('GET', `/projects/${publicProject}/stories/${publicStory}`);
      expect(bare.status, bare.text).to.equal(200);
      expect(bare.json).to.deep.equal(scoped.json);
    });

    it('answers 401 for a private project and for an unknown id alike, 403 with XHR', async () => {
      const scoped = await app.api('GET', `/projects/${privateProject}/stories/${privateStory}`);
      const bare = await app.api('GET', `/stories/${privateStory}`);
      const unknown = await app.api('GET', '/stories/99999999');
      expect([scoped.status, bare.status, unknown.status]).to.deep.equal([401, 401, 401]);
      expect(bare.json.code).to.equal('unauthenticated');
      const xhr = await app.api('GET', `/stories/${privateStory}`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      expect(xhr.status).to.equal(403);
    });

    it('still refuses anonymous writes', async () => {
      expect((await app.api('PUT', `/stories/${publicStory}`, { body: { name: 'x' } })).status).to.equal(401);
      expect((await app.api('DELETE', `/stories/${publicStory}`)).status).to.equal(401);
    });
  });
});

describe('API: integer query parameters', function () {
  this.timeout(60_000);
  let world: RouteWorld;
  before(async () => {
    world = await routeWorld();
  });
  after(() => world?.app.close());

  it('answers 400 invalid_parameter naming the parameter on every GET route when the value is not an integer', async () => {
    const wrong: string[] = [];
    for (const route of servedRoutes(world, 'GET')) {
      const path = fillPath(route.path, world.ids);
      for (const name of INTEGER_QUERY_PARAMETERS) {
        for (const value of ['abc', '1.5', '0x10']) {
          const res = await world.app.api('GET', path, { as: world.people[0]!, query: { [name]: value } });
          // An always-enveloped route answers its errors enveloped: HTTP 200, the status in http_status.
          const enveloped = route.alwaysEnvelope === true;
          const status = enveloped ? Number(res.json?.http_status) : res.status;
          const error = enveloped ? res.json?.data : res.json;
          const field = error?.validation_errors?.[0]?.field;
          if (status !== 400 || error?.code !== 'invalid_parameter' || field !== name) wrong.push(`${path}?${name}=${value} -> ${res.status} ${res.text.slice(0, 80)}`);
        }
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('keeps integers working: since_version filters the project feed', async () => {
    const projectId = world.ids['project_id']![0]!;
    const res = await world.app.api('GET', `/projects/${projectId}/activity`, { as: world.people[0]!, query: { since_version: '3' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.every((activity: { project_version: number }) => activity.project_version > 3)).to.equal(true);
  });
});
