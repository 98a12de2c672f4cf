import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

describe('API: projects', () => {
  let app: StorylineApp;
  let ada: PersonHandle;
  let accountId: number;

  before(async () => {
    app = await storylineApp();
    ada = await app.person('Ada Lovelace');
    const first = await app.api('POST', '/projects', { as: ada, body: { name: 'First', new_account_name: 'Analytical' } });
    accountId = first.json.account_id;
  });
  after(() => app.close());

  it('creates a project with the service defaults at version 1, the creator as owner', async () => {
    const res = await app.api('POST', '/projects', { as: ada, body: { name: 'Defaults', account_id: accountId } });
    expect(res.status).to.equal(200);
    expect(res.json).to.deep.include({
      kind: 'project',
      name: 'Defaults',
      version: 1,
      iteration_length: 1,
      week_start_day: 'Monday',
      point_scale: '0,1,2,3',
      point_scale_is_custom: false,
      bugs_and_chores_are_estimatable: false,
      automatic_planning: true,
      enable_tasks: true,
      enable_following: true,
      velocity_averaged_over: 3,
      number_of_done_iterations_to_show: 12,
      initial_velocity: 10,
      public: false,
      project_type: 'private',
      atom_enabled: false,
      account_id: accountId,
      time_zone: { kind: 'time_zone', olson_name: 'Etc/UTC', offset: '+00:00' },
      created_at: '2024-01-10T12:00:00Z',
      start_time: '2024-01-08T00:00:00Z',
      current_iteration_number: 1,
    });
    expect(res.json).not.to.have.property('join_as');
    expect(res.headers['x-tracker-project-version']).to.equal('1');
    const members = await app.api('GET', `/projects/${res.json.id}/memberships`, { as: ada });
    expect(members.json.map((m: any) => [m.person.id, m.role])).to.deep.equal([[ada.id, 'owner']]);
  });

  it('accepts string-typed numbers and booleans, and every setting', async () => {
    const res = await app.api('POST', '/projects', {
      as: ada,
      body: {
        name: 'Strings',
        account_id: String(accountId),
        iteration_length: '2',
        public: 'true',
        point_scale: '0,1,2,4,8',
        week_start_day: 'Sunday',
        start_date: '2024-01-07',
        time_zone: 'America/Los_Angeles',
        join_as: 'viewer',
        description: 'A project',
      },
    });
    expect(res.status).to.equal(200);
    expect(res.json).to.deep.include({ iteration_length: 2, public: true, project_type: 'public', start_date: '2024-01-07', start_time: '2024-01-07T08:00:00Z' });
    expect(res.json.time_zone).to.deep.equal({ kind: 'time_zone', olson_name: 'America/Los_Angeles', offset: '-08:00' });
    const withJoin = await app.api('GET', `/projects/${res.json.id}`, { as: ada, query: { fields: ':default,join_as' } });
    expect(withJoin.json.join_as).to.equal('viewer');
    const millis = await app.api('GET', `/projects/${res.json.id}`, { as: ada, query: { date_format: 'millis', fields: 'start_time,created_at' } });
    expect(millis.json).to.deep.equal({ id: res.json.id, start_time: Date.UTC(2024, 0, 7, 8), created_at: Date.UTC(2024, 0, 10, 12) });
  });

  for (const [body, field, text] of [
    [{}, 'name', 'this endpoint requires the parameter: name'],
    [{ name: 'x'.repeat(51) }, 'name', "'name' parameter must be 50 characters or less."],
    [{ name: 'First' }, 'name', 'The project name you entered is already taken.'],
    [{ name: 'P', iteration_length: 5 }, 'iteration_length', 'iteration_length can only be between 1 and 4.'],
    [{ name: 'P', iteration_length: 'two' }, 'iteration_length', "'iteration_length' must be an integer value"],
    [{ name: 'P', start_date: '2024-01-09' }, 'start_date', "start_date falls on a Tuesday, but the project's week_start_day is Monday."],
    [{ name: 'P', start_date: '1988-01-04' }, 'start_date', 'start_date is too far in the past.'],
    [{ name: 'P', point_scale: '1,2,x' }, 'point_scale', 'point_scale must be a comma-delimited list of decimal numbers, such as 0,1,2,3.'],
    [{ name: 'P', public: 'maybe' }, 'public', "'public' must be a boolean value"],
  ] as const) {
    it(`rejects ${JSON.stringify(body)} with 400 on ${field}`, async () => {
      const res = await app.api('POST', '/projects', { as: ada, body: { account_id: accountId, ...body } });
      expect(res.status).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
      expect(res.json.validation_errors.map((e: any) => e.field)).to.include(field);
      const problems = [res.json.general_problem, res.json.requirement, ...res.json.validation_errors.map((e: any) => e.problem)];
      expect(problems).to.include(text);
    });
  }

  it('lets the same name live in another account', async () => {
    const res = await app.api('POST', '/projects', { as: ada, body: { name: 'First', new_account_name: 'Second account' } });
    expect(res.status).to.equal(200);
    expect(res.json.account_id).not.to.equal(accountId);
  });

  it('does not create the account when the project is rejected', async () => {
    const before = (await app.api('GET', '/accounts', { as: ada })).json.length;
    const res = await app.api('POST', '/projects', { as: ada, body: { name: '', new_account_name: 'Orphan' } });
    expect(res.status).to.equal(400);
    expect((await app.api('GET', '/accounts', { as: ada })).json.length).to.equal(before);
  });

  it('creates an owner-less project with no_owner, which the account owner still manages as account owner', async () => {
    const res = await app.api('POST', '/projects', { as: ada, body: { name: 'Ownerless', account_id: accountId, no_owner: true } });
    expect(res.status).to.equal(200);
    const memberships = await app.api('GET', `/projects/${res.json.id}/memberships`, { as: ada });
    expect([memberships.status, memberships.json]).to.deep.equal([200, []]);
    expect((await app.api('GET', '/projects', { as: ada })).json.map((p: { id: number }) => p.id)).to.not.include(res.json.id);
  });

  it('requires the project creation permission of the account', async () => {
    const bob = await app.person('Bob Builder');
    const res = await app.api('POST', '/projects', { as: bob, body: { name: 'Sneaky', account_id: accountId } });
    expect(res.status).to.equal(403);
    expect(res.json.code).to.equal('unauthorized_operation');
    const noAccount = await app.api('POST', '/projects', { as: bob, body: { name: 'Mine' } });
    expect(noAccount.status).to.equal(400);
    await app.api('POST', `/accounts/${accountId}/memberships`, { as: ada, body: { person_id: bob.id, project_creator: true } });
    const allowed = await app.api('POST', '/projects', { as: bob, body: { name: 'Allowed' } });
    expect(allowed.status).to.equal(200);
    expect(allowed.json.account_id).to.equal(accountId);
  });

  it('updates settings, raising the version, and keeps version counting every change', async () => {
    const created = await app.api('POST', '/projects', { as: ada, body: { name: 'Versioned', account_id: accountId } });
    const id = created.json.id;
    app.clock.now += 60_000;
    const res = await app.api('PUT', `/projects/${id}`, { as: ada, body: { iteration_length: 3, name: 'Renamed', enable_following: false } });
    expect(res.status).to.equal(200);
    expect(res.json).to.deep.include({ version: 2, iteration_length: 3, name: 'Renamed', enable_following: true, updated_at: '2024-01-10T12:01:00Z' });
    expect(res.headers['x-tracker-project-version']).to.equal('2');
    const patched = await app.api('PATCH', `/projects/${id}`, { as: ada, body: { public: true } });
    expect(patched.json).to.deep.include({ version: 3, public: true, project_type: 'public' });
    const invalid = await app.api('PUT', `/projects/${id}`, { as: ada, body: { velocity_averaged_over: 9 } });
    expect(invalid.status).to.equal(400);
    expect((await app.api('GET', `/projects/${id}`, { as: ada })).json.version).to.equal(3);
  });

  it('lists the caller projects, filtered by account_ids', async () => {
    const all = await app.api('GET', '/projects', { as: ada });
    expect(all.status).to.equal(200);
    expect(all.json.every((p: any) => p.kind === 'project')).to.equal(true);
    const names = all.json.map((p: any) => p.name);
    expect(names).to.include.members(['First', 'Defaults']);
    expect(names).not.to.include('Ownerless');
    const filtered = await app.api('GET', '/projects', { as: ada, query: { account_ids: String(accountId) } });
    expect(filtered.json.every((p: any) => p.account_id === accountId)).to.equal(true);
    expect(filtered.json.length).to.be.lessThan(all.json.length);
    expect((await app.api('GET', '/projects', { as: ada, query: { account_ids: '1,x' } })).status).to.equal(400);
  });

  it('deletes a project: 204, then 404', async () => {
    const created = await app.api('POST', '/projects', { as: ada, body: { name: 'Doomed', account_id: accountId } });
    const res = await app.api('DELETE', `/projects/${created.json.id}`, { as: ada });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expect((await app.api('GET', `/projects/${created.json.id}`, { as: ada })).status).to.equal(404);
    expect((await app.api('GET', '/me', { as: ada })).json.projects.map((p: any) => p.project_id)).not.to.include(created.json.id);
    const again = await app.api('POST', '/projects', { as: ada, body: { name: 'Doomed', account_id: accountId } });
    expect(again.status).to.equal(200);
  });

  it('nests the account summary and memberships on request', async () => {
    const res = await app.api('GET', '/projects', { as: ada, query: { fields: 'name,account,memberships(role)', account_ids: String(accountId) } });
    const first = res.json.find((p: any) => p.name === 'First');
    expect(first.account).to.deep.include({ kind: 'account_summary', id: accountId, name: 'Analytical' });
    expect(first.memberships).to.deep.equal([{ id: first.memberships[0].id, role: 'owner' }]);
  });
});
