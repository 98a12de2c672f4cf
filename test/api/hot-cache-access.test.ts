// A cached GET answered hot (its URL's shape remembered, its bytes in the response cache) still checks
// who asks and whether they may on every request: a rotated token, a removed membership and another
// caller of the same URL are refused, never served the cached bytes.
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

describe('API: hot cached GETs check credentials and access every time', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let bob: PersonHandle;
  let projectId: number;
  let bobMembershipId: number;
  const activity = () => `/projects/${projectId}/activity?limit=10`;

  /** Two identical GETs: the second is a hit (the same entity tag, answered from the cached bytes). */
  const answeredHot = async (as: PersonHandle) => {
    const first = await app.api('GET', activity(), { as });
    const second = await app.api('GET', activity(), { as });
    expect([first.status, second.status], second.text).to.deep.equal([200, 200]);
    expect(second.headers['etag']).to.equal(first.headers['etag']);
    expect(second.text).to.equal(first.text);
  };

  beforeEach(async () => {
    app = await storylineApp();
    owner = await app.person('Olive Owner');
    bob = await app.person('Bob Member');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Hot', new_account_name: 'Hot Inc' } })).json.id;
    await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name: 'Something happened' } });
    const membership = await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: bob.id, role: 'member' } });
    expect(membership.status, membership.text).to.equal(200);
    bobMembershipId = membership.json.id;
  });
  afterEach(() => app.close());

  it('refuses the old token after a rotation, and answers the new one', async () => {
    await answeredHot(owner);
    const rotated = await app.storyline.deps.secrets.rotateToken(owner.id);
    const old = await app.api('GET', activity(), { as: owner });
    expect(old.status).to.equal(403);
    expect(old.json.code).to.equal('invalid_authentication');
    const fresh = await app.api('GET', activity(), { as: { ...owner, token: rotated } });
    expect(fresh.status, fresh.text).to.equal(200);
  });

  it('refuses a token given in the query after a rotation', async () => {
    const withToken = () => app.api('GET', activity(), { query: { token: owner.token } });
    expect([(await withToken()).status, (await withToken()).status]).to.deep.equal([200, 200]);
    await app.storyline.deps.secrets.rotateToken(owner.id);
    const refused = await withToken();
    expect(refused.status).to.equal(403);
    expect(refused.json.code).to.equal('invalid_authentication');
  });

  it('refuses a member whose membership was removed', async () => {
    await answeredHot(bob);
    const removed = await app.api('DELETE', `/projects/${projectId}/memberships/${bobMembershipId}`, { as: owner });
    expect(removed.status, removed.text).to.equal(204);
    const refused = await app.api('GET', activity(), { as: bob });
    expect(refused.status).to.equal(403);
    expect(refused.json.code).to.equal('unauthorized_operation');
  });

  it('refuses another caller of the same URL who may not see the project, and one without credentials', async () => {
    await answeredHot(owner);
    const stranger = await app.person('Stranger');
    const refused = await app.api('GET', activity(), { as: stranger });
    expect(refused.status).to.equal(403);
    expect(refused.json.code).to.equal('unauthorized_operation');
    const anonymous = await app.api('GET', activity());
    expect(anonymous.status).to.equal(401);
  });

  it('checks the integer parameters of a URL whose path was answered hot', async () => {
    await answeredHot(owner);
    const refused = await app.api('GET', `/projects/${projectId}/activity?limit=ten`, { as: owner });
    expect(refused.status).to.equal(400);
    expect(refused.json.code).to.equal('invalid_parameter');
  });
});
