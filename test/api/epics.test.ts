import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storyTeam, type StoryWorld, type TestPerson } from '../support/project-fixture.js';
import { storylineApp } from './support/storyline-app.js';

const versionOf = (res: { headers: Record<string, unknown> }) => Number(res.headers['x-tracker-project-version']);

describe('API: epics', () => {
  let w: StoryWorld;
  let bob: TestPerson;
  let vera: TestPerson;
  let p: number;

  before(async () => {
    const team = await storyTeam();
    ({ w, bob, vera } = team);
    p = await team.project();
  });
  after(() => w.close());

  it('creates an epic with its label (named like the epic) and answers the default keys', async () => {
    const created = await w.api('POST', `/projects/${p}/epics`, { as: bob, body: { name: 'Onboarding', description: 'First steps' } });
    expect(created.status, created.text).to.equal(200);
    const epic = created.json;
    expect(Object.keys(epic).sort()).to.deep.equal(
      ['created_at', 'description', 'id', 'kind', 'label', 'name', 'project_id', 'updated_at', 'url'].sort(),
    );
    expect(epic).to.include({ kind: 'epic', project_id: p, name: 'Onboarding', description: 'First steps', url: `http://storyline.test/epic/show/${epic.id}` });
    expect(epic.created_at).to.equal('2024-01-10T12:00:00Z');
    expect(epic.label).to.include({ kind: 'label', project_id: p, name: 'onboarding' });
    expect(epic.label.id).to.be.a('number');
    expect(versionOf(created)).to.be.a('number').and.greaterThan(0);

    const byLabelId = await w.api('GET', `/projects/${p}/epics/${epic.id}?fields=label_id,before_id,after_id,follower_ids,comment_ids`, { as: vera });
    // nulls are omitted (an only epic has no neighbours)
    expect(byLabelId.json).to.deep.equal({ id: epic.id, label_id: epic.label.id, follower_ids: [], comment_ids: [] });
    // recorded (tracker_api "client: get single epic by epic id"): label_id beside the default label
    const withLabelId = await w.api('GET', `/epics/${epic.id}?fields=:default,label_id`, { as: vera });
    expect(withLabelId.json.label_id).to.equal(epic.label.id);
    expect(withLabelId.json.label).to.deep.equal(epic.label);
    expect(withLabelId.json).to.include({ kind: 'epic', name: 'Onboarding', description: 'First steps' });
    const bare = await w.api('GET', `/epics/${epic.id}`, { as: vera });
    expect(bare.status).to.equal(200);
    expect(bare.json.name).to.equal('Onboarding');
  });

  it('orders epics, moves one with before_id, renames and relabels it, and deletes it keeping its label', async () => {
    const q = await w.project();
    const a = (await w.api('POST', `/projects/${q}/epics`, { as: w.owner, body: { name: 'A' } })).json;
    const b = (await w.api('POST', `/projects/${q}/epics`, { as: w.owner, body: { name: 'B', label: { name: 'bee' } } })).json;
    expect(b.label.name).to.equal('bee');
    const names = async () => (await w.api('GET', `/projects/${q}/epics`, { as: w.owner })).json.map((e: { name: string }) => e.name);
    expect(await names()).to.deep.equal(['A', 'B']);
    const moved = await w.api('PUT', `/projects/${q}/epics/${b.id}`, { as: w.owner, body: { before_id: a.id } });
    expect(moved.status, moved.text).to.equal(200);
    expect(await names()).to.deep.equal(['B', 'A']);
    const positions = await w.api('GET', `/projects/${q}/epics/${b.id}?fields=before_id,after_id`, { as: w.owner });
    expect(positions.json).to.deep.equal({ id: b.id, before_id: a.id });

    w.clock.now += 60_000;
    const renamed = await w.api('PUT', `/projects/${q}/epics/${a.id}`, { as: w.owner, body: { name: 'Alpha', label: { name: 'alpha' } } });
    expect(renamed.json).to.include({ name: 'Alpha', updated_at: '2024-01-10T12:01:00Z' });
    expect(renamed.json.label.name).to.equal('alpha');

    const deleted = await w.api('DELETE', `/projects/${q}/epics/${a.id}`, { as: w.owner });
    expect(deleted.status).to.equal(204);
    expect((await w.api('GET', `/projects/${q}/epics/${a.id}`, { as: w.owner })).status).to.equal(404);
    const labels = (await w.api('GET', `/projects/${q}/labels`, { as: w.owner })).json.map((l: { name: string }) => l.name);
    expect(labels).to.include('alpha');
    const project = await w.api('GET', `/projects/${q}?fields=epic_ids,epics(name)`, { as: w.owner });
    expect(project.json.epic_ids).to.deep.equal([b.id]);
    expect(project.json.epics).to.deep.equal([{ id: b.id, name: 'B' }]);
  });

  it('lists only the labels of epics with with_type=epic', async () => {
    const q = await w.project();
    await w.api('POST', `/projects/${q}/labels`, { as: w.owner, body: { name: 'plain' } });
    await w.api('POST', `/projects/${q}/epics`, { as: w.owner, body: { name: 'Epic one' } });
    const all = await w.api('GET', `/projects/${q}/labels`, { as: w.owner });
    expect(all.json.map((l: { name: string }) => l.name)).to.deep.equal(['epic one', 'plain']);
    const ofEpics = await w.api('GET', `/projects/${q}/labels?with_type=epic`, { as: w.owner });
    expect(ofEpics.json.map((l: { name: string }) => l.name)).to.deep.equal(['epic one']);
    expect((await w.api('GET', `/projects/${q}/labels?with_type=story`, { as: w.owner })).status).to.equal(400);
  });

  it('takes with_status=active (every label: none is archived) and refuses other statuses, naming the key', async () => {
    const q = await w.project();
    await w.api('POST', `/projects/${q}/labels`, { as: w.owner, body: { name: 'plain' } });
    await w.api('POST', `/projects/${q}/epics`, { as: w.owner, body: { name: 'Epic one' } });
    const active = await w.api('GET', `/projects/${q}/labels?with_status=active`, { as: w.owner });
    expect(active.json.map((l: { name: string }) => l.name)).to.deep.equal(['epic one', 'plain']);
    const epicsActive = await w.api('GET', `/projects/${q}/labels?with_status=active&with_type=epic`, { as: w.owner });
    expect(epicsActive.json.map((l: { name: string }) => l.name)).to.deep.equal(['epic one']);
    const archived = await w.api('GET', `/projects/${q}/labels?with_status=archived`, { as: w.owner });
    expect(archived.status).to.equal(400);
    expect(archived.json).to.include({ code: 'invalid_parameter' });
    expect(archived.json.validation_errors[0]).to.include({ field: 'with_status' });
  });

  it('filters the list through the search grammar', async () => {
    const q = await w.project();
    await w.api('POST', `/projects/${q}/epics`, { as: w.owner, body: { name: 'Billing revamp' } });
    await w.api('POST', `/projects/${q}/epics`, { as: w.owner, body: { name: 'Search' } });
    const found = await w.api('GET', `/projects/${q}/epics?filter=${encodeURIComponent('name:billing')}`, { as: w.owner });
    expect(found.status, found.text).to.equal(200);
    expect(found.json.map((e: { name: string }) => e.name)).to.deep.equal(['Billing revamp']);
    const mixed = await w.api('GET', `/projects/${q}/epics?filter=billing&with_state=started`, { as: w.owner });
    expect(mixed.status).to.equal(400);
    expect(mixed.json.code).to.equal('invalid_parameter');
  });

  it('refuses bad input with an error hash and writes nothing', async () => {
    const q = await w.project();
    const first = await w.api('POST', `/projects/${q}/epics`, { as: w.owner, body: { name: 'Taken' } });
    const version = versionOf(first);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'name'],
      [{ name: ' ' }, 'name'],
      [{ name: 'x'.repeat(5001) }, 'name'],
      [{ name: 'Other', label_id: 999999 }, 'label_id'],
      [{ name: 'Other', label: { name: 'taken' } }, 'label'],
      [{ name: 'Other', pull_requests: [] }, 'pull_requests'],
      [{ name: 'Other', colour: 'red' }, 'colour'],
      [{ name: 'Other', comments: [{ id: 3, text: 'x' }] }, 'comments'],
    ];
    for (const [body, field] of cases) {
      const res = await w.api('POST', `/projects/${q}/epics`, { as: w.owner, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
      expect(res.json.validation_errors.map((e: { field: string }) => e.field), JSON.stringify(body)).to.include(field);
    }
    expect((await w.api('PUT', `/projects/${q}/epics/${first.json.id}`, { as: w.owner, body: { before_id: first.json.id } })).status).to.equal(400);
    expect((await w.api('GET', `/projects/${q}/epics/424242`, { as: w.owner })).status).to.equal(404);
    const after = await w.api('GET', `/projects/${q}`, { as: w.owner });
    expect(after.json.version).to.equal(version);
  });

  it('checks access: viewers read but do not write, non-members of a private project see nothing', async () => {
    const epic = (await w.api('POST', `/projects/${p}/epics`, { as: bob, body: { name: 'Guarded' } })).json;
    expect((await w.api('POST', `/projects/${p}/epics`, { as: vera, body: { name: 'nope' } })).status).to.equal(403);
    expect((await w.api('PUT', `/projects/${p}/epics/${epic.id}`, { as: vera, body: { name: 'nope' } })).status).to.equal(403);
    expect((await w.api('DELETE', `/projects/${p}/epics/${epic.id}`, { as: vera })).status).to.equal(403);
    const stranger = await w.person('stranger');
    expect((await w.api('GET', `/projects/${p}/epics`, { as: stranger })).status).to.be.oneOf([403, 404]);
    expect((await w.api('GET', `/epics/${epic.id}`, { as: stranger })).status).to.be.oneOf([403, 404]);
    expect((await w.api('GET', `/epics/${epic.id}`)).status).to.equal(401);
  });

  it('keeps epics and their comments across a restart on the same data directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storyline-epics-'));
    try {
      const first = await storylineApp({ dataDir: dir });
      const owner = await first.person('Olive');
      const project = (await first.api('POST', '/projects', { as: owner, body: { name: 'Kept', new_account_name: 'K' } })).json.id;
      const epic = (await first.api('POST', `/projects/${project}/epics`, { as: owner, body: { name: 'Durable', comments: [{ text: 'hello' }] } })).json;
      await first.close();
      const second = await storylineApp({ dataDir: dir });
      try {
        const read = await second.api('GET', `/projects/${project}/epics/${epic.id}?fields=:default,comments`, { as: owner });
        expect(read.status).to.equal(200);
        expect(read.json.name).to.equal('Durable');
        expect(read.json.comments.map((c: { text: string }) => c.text)).to.deep.equal(['hello']);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
