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
    // the creator is owner, project creator and timekeeper, not an admin unless made one
    expect(list.json.map((m: any) => [m.id, m.person.id, m.owner, m.admin, m.project_creator, m.timekeeper, m.time_enterer])).to.deep.equal([
      [owner.id, owner.id, true, false, true, true, false],
      [admin.id, admin.id, false, true, false, false, false],
      [creator.id, creator.id, false, false, true, false, false],
      [plain.id, plain.id, false, false, false, false, false],
    ]);
    expect(Object.keys(list.json[0])).to.deep.equal([
      'kind', 'id', 'account_id', 'person', 'owner', 'admin', 'project_creator', 'timekeeper', 'time_enterer', 'created_at', 'updated_at',
    ]);
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

  it('identifies memberships by their person and lets owners and admins set the time flags', async () => {
    const extra = await app.person('Tina Time');
    const added = await app.api('POST', `/accounts/${accountId}/memberships`, { as: admin, body: { person_id: extra.id, time_enterer: true } });
    expect(added.status, added.text).to.equal(200);
    expect(added.json).to.include({ id: extra.id, timekeeper: false, time_enterer: true, admin: false });
    const changed = await app.api('PUT', `/accounts/${accountId}/memberships/${extra.id}`, { as: admin, body: { timekeeper: 'true', time_enterer: false } });
    expect(changed.json).to.include({ id: extra.id, timekeeper: true, time_enterer: false });
    expect((await app.api('GET', `/accounts/${accountId}/memberships/${extra.id}`, { as: owner })).json).to.include({ id: extra.id, timekeeper: true });
    const madeAdmin = await app.api('PUT', `/accounts/${accountId}/memberships/${owner.id}`, { as: owner, body: { admin: true } });
    expect(madeAdmin.json).to.include({ id: owner.id, owner: true, admin: true });

    const list = async () => (await app.api('GET', `/accounts/${accountId}/memberships`, { as: owner })).text;
    const before = await list();
    const refusals = [
      await app.api('PUT', `/accounts/${accountId}/memberships/${extra.id}`, { as: creator, body: { timekeeper: false } }),
      await app.api('PUT', `/accounts/${accountId}/memberships/${extra.id}`, { as: admin, body: { timekeeper: 'sometimes' } }),
      await app.api('PUT', `/accounts/${accountId}/memberships/${extra.id}`, { as: admin, body: { time_enterer: 1 } }),
    ];
    expect(refusals.map((res) => [res.status, res.json.code])).to.deep.equal([
      [403, 'unauthorized_operation'], [400, 'invalid_parameter'], [400, 'invalid_parameter'],
    ]);
    expect(refusals[1]!.json.validation_errors[0].field).to.equal('timekeeper');
    expect(await list()).to.equal(before);
    await app.api('DELETE', `/accounts/${accountId}/memberships/${extra.id}`, { as: owner });
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
