// The authorization matrix: (anonymous, non-member, viewer, member, owner, account admin) x (public,
// private project) x (read, write, settings). Read is GET /projects/:id, settings is PUT /projects/:id,
// write is a probe route declaring `project:write` (the level every member-writable resource uses), so
// the roles come from real memberships through the real access resolver.
// An account admin (or owner) who is not a member of a project acts as a project owner (our rule).
import { expect } from 'chai';
import type { RouteDefinition } from '../../src/api/route-table.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const probe: RouteDefinition = {
  method: 'POST',
  path: '/projects/:project_id/authorization_probe',
  access: 'project:write',
  answers: 'empty',
  summary: 'A probe of write access',
  async handle() {
    return { kind: 'empty' };
  },
};

type Caller = 'anonymous' | 'non-member' | 'viewer' | 'member' | 'owner' | 'account admin';
type Visibility = 'public' | 'private';
type Operation = 'read' | 'write' | 'settings';

const expected: Record<Visibility, Record<Caller, Record<Operation, number>>> = {
  public: {
    anonymous: { read: 200, write: 401, settings: 401 },
    'non-member': { read: 200, write: 403, settings: 403 },
    viewer: { read: 200, write: 403, settings: 403 },
    member: { read: 200, write: 204, settings: 403 },
    owner: { read: 200, write: 204, settings: 200 },
    'account admin': { read: 200, write: 204, settings: 200 },
  },
  private: {
    anonymous: { read: 401, write: 401, settings: 401 },
    'non-member': { read: 403, write: 403, settings: 403 },
    viewer: { read: 200, write: 403, settings: 403 },
    member: { read: 200, write: 204, settings: 403 },
    owner: { read: 200, write: 204, settings: 200 },
    'account admin': { read: 200, write: 204, settings: 200 },
  },
};

describe('API: authorization matrix', () => {
  let app: StorylineApp;
  const callers = new Map<Caller, PersonHandle | null>();
  const projects = new Map<Visibility, number>();

  before(async () => {
    app = await storylineApp({ extraRoutes: [probe] });
    const owner = await app.person('Owner');
    const [viewer, member, outsider, admin] = [await app.person('Viewer'), await app.person('Member'), await app.person('Outsider'), await app.person('Admin')];
    callers.set('anonymous', null).set('non-member', outsider).set('viewer', viewer).set('member', member).set('owner', owner).set('account admin', admin);
    const first = await app.api('POST', '/projects', { as: owner, body: { name: 'Public', public: true, new_account_name: 'Acme' } });
    const accountId = first.json.account_id;
    projects.set('public', first.json.id);
    projects.set('private', (await app.api('POST', '/projects', { as: owner, body: { name: 'Private', account_id: accountId } })).json.id);
    await app.api('POST', `/accounts/${accountId}/memberships`, { as: owner, body: { person_id: admin.id, admin: true } });
    for (const projectId of projects.values()) {
      await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: viewer.id, role: 'viewer' } });
      await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: member.id, role: 'member' } });
    }
  });
  after(() => app.close());

  for (const visibility of ['public', 'private'] as const) {
    for (const caller of Object.keys(expected[visibility]) as Caller[]) {
      it(`${caller} on a ${visibility} project`, async () => {
        const projectId = projects.get(visibility)!;
        const as = callers.get(caller) ?? undefined;
        const statuses = {
          read: (await app.api('GET', `/projects/${projectId}`, { as })).status,
          write: (await app.api('POST', `/projects/${projectId}/authorization_probe`, { as, body: {} })).status,
          settings: (await app.api('PUT', `/projects/${projectId}`, { as, body: { description: `by ${caller}` } })).status,
        };
        expect(statuses).to.deep.equal(expected[visibility][caller]);
      });
    }
  }

  it('answers 403 invalid_authentication for a bad token before any authorization, and 403 with XHR and no token', async () => {
    const projectId = projects.get('private')!;
    const bad = await app.api('GET', `/projects/${projectId}`, { headers: { 'X-TrackerToken': 'f'.repeat(32) } });
    expect([bad.status, bad.json.code]).to.deep.equal([403, 'invalid_authentication']);
    const xhr = await app.api('GET', `/projects/${projectId}`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
    expect(xhr.status).to.equal(403);
  });

  it('lets account reads only to account owners and admins', async () => {
    const accountId = (await app.api('GET', `/projects/${projects.get('public')}`, { as: callers.get('owner')! })).json.account_id;
    const statuses: Record<string, number> = {};
    for (const [caller, as] of callers) statuses[caller] = (await app.api('GET', `/accounts/${accountId}`, { as: as ?? undefined })).status;
    expect(statuses).to.deep.equal({ anonymous: 401, 'non-member': 403, viewer: 403, member: 403, owner: 200, 'account admin': 200 });
  });
});

describe('API: access follows membership changes made between other writes', () => {
  let app: StorylineApp;
  after(() => app?.close());

  it('applies a demotion, a removal and an account admin grant on the next request, however many story writes came before', async () => {
    app = await storylineApp();
    const owner = await app.person('Owner');
    const member = await app.person('Member');
    const project = await app.api('POST', '/projects', { as: owner, body: { name: 'Roles', new_account_name: 'Roles Inc' } });
    const projectId = project.json.id;
    const joined = await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: member.id, role: 'member' } });
    const write = async () => (await app.api('POST', `/projects/${projectId}/stories`, { as: member, body: { name: 'A story' } })).status;
    for (let i = 0; i < 3; i++) expect(await write()).to.equal(200);

    await app.api('PUT', `/projects/${projectId}/memberships/${joined.json.id}`, { as: owner, body: { role: 'viewer' } });
    expect(await write(), 'demoted to viewer').to.equal(403);
    expect((await app.api('GET', `/projects/${projectId}`, { as: member })).status).to.equal(200);

    await app.api('DELETE', `/projects/${projectId}/memberships/${joined.json.id}`, { as: owner });
    expect((await app.api('GET', `/projects/${projectId}`, { as: member })).status, 'removed').to.equal(403);

    await app.api('POST', `/accounts/${project.json.account_id}/memberships`, { as: owner, body: { person_id: member.id, admin: true } });
    const settings = await app.api('PUT', `/projects/${projectId}`, { as: member, body: { description: 'by the admin' } });
    expect(settings.status, 'an account admin acts as an owner').to.equal(200);
  });
});
