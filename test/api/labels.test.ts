import { expect } from 'chai';
import { storyTeam, type StoryWorld, type TestPerson } from '../support/project-fixture.js';

describe('API: labels', () => {
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

  it('creates labels in lower case, unique per project regardless of case, and lists them by name', async () => {
    const created = await w.api('POST', `/projects/${p}/labels`, { as: bob, body: { name: '  Zeta ' } });
    expect(created.status).to.equal(200);
    expect(created.json).to.deep.equal({
      kind: 'label', id: created.json.id, project_id: p, name: 'zeta', created_at: '2024-01-10T12:00:00Z', updated_at: '2024-01-10T12:00:00Z',
    });
    await w.api('POST', `/projects/${p}/labels`, { as: bob, body: { name: 'alpha' } });
    const duplicate = await w.api('POST', `/projects/${p}/labels`, { as: bob, body: { name: 'ZETA' } });
    expect(duplicate.status).to.equal(400);
    expect(duplicate.json.validation_errors).to.deep.equal([{ field: 'name', problem: 'Name has already been taken' }]);
    const blank = await w.api('POST', `/projects/${p}/labels`, { as: bob, body: { name: ' ' } });
    expect(blank.json.validation_errors).to.deep.equal([{ field: 'name', problem: "Name can't be blank" }]);
    const missing = await w.api('POST', `/projects/${p}/labels`, { as: bob, body: {} });
    expect(missing.json.validation_errors).to.deep.equal([{ field: 'name', problem: 'this endpoint requires the parameter: name' }]);
    expect((await w.api('POST', `/projects/${p}/labels`, { as: vera, body: { name: 'nope' } })).status).to.equal(403);

    const list = await w.api('GET', `/projects/${p}/labels`, { as: vera });
    expect(list.json.map((label: { name: string }) => label.name)).to.deep.equal(['alpha', 'zeta']);
    expect(list.headers).not.to.have.property('x-tracker-pagination-total');
    const other = await w.project();
    expect((await w.api('POST', `/projects/${other}/labels`, { as: w.owner, body: { name: 'zeta' } })).status).to.equal(200);
  });

  it('reads, renames and deletes a label; deleting takes it off its stories', async () => {
    const label = (await w.api('POST', `/projects/${p}/labels`, { as: bob, body: { name: 'old' } })).json;
    const story = (await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 's', labels: ['old', 'kept'] } })).json;
    expect((await w.api('GET', `/projects/${p}/labels/${label.id}`, { as: vera })).json.name).to.equal('old');

    w.clock.now += 60_000;
    const renamed = await w.api('PUT', `/projects/${p}/labels/${label.id}`, { as: bob, body: { name: 'New' } });
    expect(renamed.status).to.equal(200);
    expect(renamed.json).to.include({ id: label.id, name: 'new', updated_at: '2024-01-10T12:01:00Z' });
    const carried = await w.api('GET', `/projects/${p}/stories/${story.id}`, { as: bob });
    // In name order as assigned ('kept' < 'old'); a later rename does not reorder stored label ids.
    expect(carried.json.labels.map((l: { name: string }) => l.name)).to.deep.equal(['kept', 'new']);

    const deleted = await w.api('DELETE', `/projects/${p}/labels/${label.id}`, { as: bob });
    expect(deleted.status).to.equal(204);
    expect(deleted.headers['x-tracker-project-version']).to.be.a('string');
    expect((await w.api('GET', `/projects/${p}/labels/${label.id}`, { as: bob })).status).to.equal(404);
    const after = await w.api('GET', `/projects/${p}/stories/${story.id}`, { as: bob });
    expect(after.json.labels.map((l: { name: string }) => l.name)).to.deep.equal(['kept']);
    expect((await w.api('DELETE', `/projects/${p}/labels/${label.id}`, { as: bob })).status).to.equal(404);
  });

  it('returns per-state story counts on request', async () => {
    const q = await w.project();
    await w.api('POST', `/projects/${q}/stories`, { as: w.owner, body: { name: 'a', labels: ['counted'], current_state: 'started', estimate: 2 } });
    await w.api('POST', `/projects/${q}/stories`, { as: w.owner, body: { name: 'b', labels: ['counted'], estimate: 0 } });
    const res = await w.api('GET', `/projects/${q}/labels?fields=:default,counts`, { as: w.owner });
    const counts = res.json[0].counts;
    expect(counts.kind).to.equal('story_counts');
    expect(counts.number_of_stories_by_state).to.include({ kind: 'counts_by_story_state', started: 1, unscheduled: 1, accepted: 0 });
    expect(counts.sum_of_story_estimates_by_state).to.include({ started: 2, unscheduled: 0 });
    expect(counts.number_of_zero_point_stories_by_state).to.include({ unscheduled: 1, started: 0 });
    const plain = await w.api('GET', `/projects/${q}/labels`, { as: w.owner });
    expect(plain.json[0]).not.to.have.property('counts');
  });
});
