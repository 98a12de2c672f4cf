// Workspaces over HTTP (issue 31 item 1): `/my/workspaces[/{id}]`, the recorded key set and nesting,
// a person's own only, only the projects they can still see, `/me` fields, and bad input answered with
// the error hash and nothing written. A workspace's writes are events of its person's stream.
import { expect } from 'chai';
import { storyTeam, type StoryWorld, type TestPerson } from '../support/project-fixture.js';
import type { TestResponse } from './support/http-client.js';

describe('API: workspaces', () => {
  let w: StoryWorld;
  let bob: TestPerson;
  let vera: TestPerson;
  let shared: number;
  let other: number;
  let open: number;

  const mine = (as: TestPerson) => w.api('GET', '/my/workspaces', { as });
  const expectRefused = (res: TestResponse, field: string) => {
    expect(res.status, res.text).to.equal(400);
    expect(res.json).to.include({ kind: 'error', code: 'invalid_parameter' });
    expect(res.json.validation_errors.map((e: { field: string }) => e.field)).to.include(field);
  };

  before(async () => {
    const team = await storyTeam();
    ({ w, bob, vera } = team);
    shared = await team.project({ name: 'Shared' });
    other = await w.project({ name: 'Owner only' });
    open = await w.project({ name: 'Open to all', public: true });
  });
  after(() => w.close());

  it('creates, lists, shows, renames and deletes the caller\'s workspace with the recorded keys', async () => {
    const created = await w.api('POST', '/my/workspaces', { as: bob, body: { name: 'Multi-Project Workspace', project_ids: [open, shared] } });
    expect(created.status, created.text).to.equal(200);
    expect(created.json).to.deep.equal({ kind: 'workspace', id: created.json.id, name: 'Multi-Project Workspace', person_id: bob.id, project_ids: [open, shared] });
    expect(created.headers).to.not.have.property('x-tracker-project-version');

    const listed = await w.api('GET', '/my/workspaces?fields=:default,projects(id,name)', { as: bob });
    expect(listed.status).to.equal(200);
    expect(listed.headers).to.not.have.property('x-tracker-pagination-total');
    expect(listed.json).to.deep.equal([{
      kind: 'workspace', id: created.json.id, name: 'Multi-Project Workspace', person_id: bob.id, project_ids: [open, shared],
      projects: [{ id: open, name: 'Open to all' }, { id: shared, name: 'Shared' }],
    }]);
    const one = await w.api('GET', `/my/workspaces/${created.json.id}`, { as: bob });
    expect(one.json).to.deep.equal(created.json);

    const renamed = await w.api('PUT', `/my/workspaces/${created.json.id}`, { as: bob, body: { name: 'Everything', project_ids: [shared] } });
    expect(renamed.status, renamed.text).to.equal(200);
    expect(renamed.json).to.include({ name: 'Everything' });
    expect(renamed.json.project_ids).to.deep.equal([shared]);

    const removed = await w.api('DELETE', `/my/workspaces/${created.json.id}`, { as: bob });
    expect(removed.status).to.equal(204);
    expect((await mine(bob)).json).to.deep.equal([]);
    expect((await w.api('GET', `/my/workspaces/${created.json.id}`, { as: bob })).status).to.equal(404);
  });

  it('belongs to its person only: others get 404 and never see it listed', async () => {
    const created = (await w.api('POST', '/my/workspaces', { as: bob, body: { name: 'Private', project_ids: [shared] } })).json;
    expect((await mine(vera)).json).to.deep.equal([]);
    for (const [method, body] of [['GET', undefined], ['PUT', { name: 'Taken' }], ['DELETE', undefined]] as const) {
      const res = await w.api(method, `/my/workspaces/${created.id}`, { as: vera, ...(body ? { body } : {}) });
      expect(res.status, method).to.equal(404);
      expect(res.json.code).to.equal('unfound_resource');
    }
    expect((await w.api('GET', `/my/workspaces/${created.id}`, { as: bob })).json.name).to.equal('Private');
    expect((await w.api('GET', '/my/workspaces')).status).to.equal(401);
    await w.api('DELETE', `/my/workspaces/${created.id}`, { as: bob });
  });

  it('lists only the projects its person can still see', async () => {
    const q = await w.project({ name: 'Leaving' });
    await w.member(q, vera, 'member');
    const created = (await w.api('POST', '/my/workspaces', { as: vera, body: { name: 'Mine', project_ids: [q, shared] } })).json;
    expect(created.project_ids).to.deep.equal([q, shared]);
    const memberships = (await w.api('GET', `/projects/${q}/memberships`, { as: w.owner })).json;
    const veras = memberships.find((m: { person: { id: number } }) => m.person.id === vera.id);
    expect((await w.api('DELETE', `/projects/${q}/memberships/${veras.id}`, { as: w.owner })).status).to.equal(204);
    const after = (await w.api('GET', `/my/workspaces/${created.id}?fields=project_ids,projects(name)`, { as: vera })).json;
    expect(after).to.deep.equal({ id: created.id, project_ids: [shared], projects: [{ id: shared, name: 'Shared' }] });
    // a rename keeps the hidden project stored: it shows again should she come back
    expect((await w.api('PUT', `/my/workspaces/${created.id}`, { as: vera, body: { name: 'Renamed' } })).status).to.equal(200);
    await w.member(q, vera, 'viewer');
    expect((await w.api('GET', `/my/workspaces/${created.id}`, { as: vera })).json.project_ids).to.deep.equal([q, shared]);
  });

  it('shows workspace_ids and workspaces on /me when asked for', async () => {
    const a = (await w.api('POST', '/my/workspaces', { as: bob, body: { name: 'A' } })).json;
    const b = (await w.api('POST', '/my/workspaces', { as: bob, body: { name: 'B', project_ids: [shared] } })).json;
    const plain = (await w.api('GET', '/me', { as: bob })).json;
    expect(plain).to.not.have.any.keys('workspaces', 'workspace_ids');
    const me = (await w.api('GET', '/me?fields=workspace_ids,workspaces(name,project_ids)', { as: bob })).json;
    expect(me).to.deep.equal({ id: bob.id, workspace_ids: [a.id, b.id], workspaces: [{ id: a.id, name: 'A', project_ids: [] }, { id: b.id, name: 'B', project_ids: [shared] }] });
  });

  it('refuses a missing or blank name, unknown keys, bad ids and projects the caller cannot see, writing nothing', async () => {
    const before = (await mine(bob)).json.length;
    expectRefused(await w.api('POST', '/my/workspaces', { as: bob, body: {} }), 'name');
    expectRefused(await w.api('POST', '/my/workspaces', { as: bob, body: { name: '   ' } }), 'name');
    expectRefused(await w.api('POST', '/my/workspaces', { as: bob, body: { name: 'x'.repeat(256) } }), 'name');
    expectRefused(await w.api('POST', '/my/workspaces', { as: bob, body: { name: 'x', colour: 'red' } }), 'colour');
    expectRefused(await w.api('POST', '/my/workspaces', { as: bob, body: { name: 'x', project_ids: ['one'] } }), 'project_ids');
    expectRefused(await w.api('POST', '/my/workspaces', { as: bob, body: { name: 'x', project_ids: [other] } }), 'project_ids');
    expectRefused(await w.api('POST', '/my/workspaces', { as: bob, body: { name: 'x', project_ids: [999999] } }), 'project_ids');
    const [first] = (await mine(bob)).json;
    expectRefused(await w.api('PUT', `/my/workspaces/${first.id}`, { as: bob, body: {} }), 'name');
    expectRefused(await w.api('PUT', `/my/workspaces/${first.id}`, { as: bob, body: { project_ids: [other] } }), 'project_ids');
    expect((await w.api('GET', '/my/workspaces/abc', { as: bob })).status).to.equal(404);
    expect((await mine(bob)).json.length).to.equal(before);
    expect((await w.api('GET', `/my/workspaces/${first.id}`, { as: bob })).json).to.deep.equal(first);
  });

  it('accepts string ids as Tracker did', async () => {
    const created = await w.api('POST', '/my/workspaces', { as: bob, body: { name: 'Strings', project_ids: [String(shared)] } });
    expect(created.status, created.text).to.equal(200);
    expect(created.json.project_ids).to.deep.equal([shared]);
  });
});
