import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

describe('API: accounts', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let admin: PersonHandle;
  let creator: PersonHandle;
  let plain: PersonHandle;
  let accountId: number;

  before(async () => {
    app = await storylineApp();
    [owner, admin, creator, plain] = [await app.person('Oona Owner'), await app.person('Adam Admin'), await app.person('Cora Creator'), await app.person('Paul Plain')];
    accountId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Seed', new_account_name: 'Acme' } })).json.account_id;
    await app.api('POST', `/accounts/${accountId}/memberships`, { as: owner, body: { person_id: admin.id, admin: true } });
    await app.api('POST', `/accounts/${accountId}/memberships`, { as: owner, body: { person_id: creator.id, project_creator: 'true' } });
    await app.api('POST', `/accounts/${accountId}/memberships`, { as: owner, body: { person_id: plain.id } });
  });
  after(() => app.close());

  it('shows the account to owners and admins only', async () => {
    for (const who of [owner, admin]) {
      const res = await app.api('GET', `/accounts/${accountId}`, { as: who });
      expect(res.status).to.equal(200);
      expect(res.json).to.deep.equal({
        kind: 'account', id: accountId, name: 'Acme', plan: 'self_hosted', status: 'active',
        created_at: '2024-01-10T12:00:00Z', updated_at: '2024-01-10T12:00:00Z',
      });
    }
    for (const who of [creator, plain]) {
      const res = await app.api('GET', `/accounts/${accountId}`, { as: who });
      expect(res.status).to.equal(403);
      expect(res.json.code).to.equal('unauthorized_operation');
    }
    expect((await app.api('GET', '/accounts/999999', { as: owner })).status).to.equal(404);
    expect((await app.api('GET', `/accounts/${accountId}`)).status).to.equal(401);
  });

  it('lists managed accounts and summaries filtered by project creation permission', async () => {
    expect((await app.api('GET', '/accounts', { as: admin })).json.map((a: any) => a.id)).to.deep.equal([accountId]);
    expect((await app.api('GET', '/accounts', { as: plain })).json).to.deep.equal([]);
    const summaries = await app.api('GET', '/account_summaries', { as: plain });
    expect(summaries.json).to.deep.equal([{ kind: 'account_summary', id: accountId, name: 'Acme', status: 'active', plan: 'self_hosted' }]);
    for (const [who, expected] of [[plain, 0], [creator, 1], [admin, 1], [owner, 1]] as const) {
      const res = await app.api('GET', '/account_summaries', { as: who, query: { with_permission: 'project_creation' } });
      expect(res.json.length, who.email).to.equal(expected);
    }
    expect((await app.api('GET', '/account_summaries', { as: owner, query: { with_permission: 'flying' } })).status).to.equal(400);
  });

  it('lists, reads, changes and removes memberships by person id', async () => {
    const list = await app.api('GET', `/accounts/${accountId}/memberships`, { as: admin });
    expect(list.json.map((m: any) => [m.person.id, m.owner, m.admin, m.project_creator])).to.deep.equal([
      [owner.id, true, true, true],
      [admin.id, false, true, false],
      [creator.id, false, false, true],
      [plain.id, false, false, false],
    ]);
    expect(list.json[0]).to.include.keys('kind', 'id', 'account_id', 'created_at', 'updated_at');
    expect(list.json[0].person.email).to.equal(owner.email);
    const one = await app.api('GET', `/accounts/${accountId}/memberships/${plain.id}`, { as: owner });
    expect(one.json.person.id).to.equal(plain.id);
    const changed = await app.api('PUT', `/accounts/${accountId}/memberships/${plain.id}`, { as: admin, body: { project_creator: true } });
    expect(changed.json.project_creator).to.equal(true);
    expect((await app.api('PUT', `/accounts/${accountId}/memberships/${plain.id}`, { as: admin, body: { owner: true } })).status).to.equal(403);
    expect((await app.api('GET', `/accounts/${accountId}/memberships`, { as: plain })).status).to.equal(403);
    expect((await app.api('DELETE', `/accounts/${accountId}/memberships/${plain.id}`, { as: plain })).status).to.equal(403);
    expect((await app.api('DELETE', `/accounts/${accountId}/memberships/${plain.id}`, { as: admin })).status).to.equal(204);
    expect((await app.api('GET', `/accounts/${accountId}/memberships/${plain.id}`, { as: owner })).status).to.equal(404);
  });

  it('invites by email, rejects duplicates and keeps the last owner', async () => {
    const invited = await app.api('POST', `/accounts/${accountId}/memberships`, { as: owner, body: { email: 'new@example.com', name: 'New Person' } });
    expect(invited.status).to.equal(200);
    expect(invited.json.person).to.deep.include({ name: 'New Person', email: 'new@example.com' });
    const duplicate = await app.api('POST', `/accounts/${accountId}/memberships`, { as: owner, body: { email: 'NEW@example.com' } });
    expect(duplicate.status).to.equal(400);
    expect((await app.api('POST', `/accounts/${accountId}/memberships`, { as: owner, body: { admin: 'perhaps', email: 'x@example.com' } })).status).to.equal(400);
    const demote = await app.api('PUT', `/accounts/${accountId}/memberships/${owner.id}`, { as: owner, body: { owner: false } });
    expect(demote.status).to.equal(400);
    expect(demote.json.validation_errors[0].problem).to.equal('An account must keep at least one owner.');
  });
});
