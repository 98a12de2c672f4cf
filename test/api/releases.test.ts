import { expect } from 'chai';
import { storyWorld, type StoryWorld } from '../support/project-fixture.js';

describe('API: releases', () => {
  let w: StoryWorld;
  let p: number;
  const ids: Record<string, number> = {};

  before(async () => {
    w = await storyWorld();
    const bob = await w.person('bob');
    p = await w.project({ time_zone: 'America/New_York' });
    await w.member(p, bob, 'member');
    const create = async (body: Record<string, unknown>) => {
      const res = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body });
      expect(res.status, res.text).to.equal(200);
      return res.json.id as number;
    };
    // Created bottom-up with explicit states so the order reads: done, r1 stories, r1, r2 stories, r2, icebox
    ids.r2 = await create({ name: 'R2', story_type: 'release', current_state: 'unstarted', deadline: '2024-03-01T00:00:00Z' });
    ids.late = await create({ name: 'Late, "quoted"', current_state: 'unstarted' });
    await w.api('PUT', `/projects/${p}/stories/${ids.late}`, { as: w.owner, body: { before_id: ids.r2 } });
    ids.r1 = await create({ name: 'R1', story_type: 'release', current_state: 'unstarted', before_id: ids.late });
    ids.early = await create({ name: 'Early', current_state: 'unstarted', before_id: ids.r1, estimate: 2, owner_ids: [w.owner.id, bob.id], labels: ['b', 'a'] });
    ids.done = await create({ name: 'Done', current_state: 'accepted', estimate: 1, accepted_at: Date.UTC(2024, 0, 9, 3, 4, 5), owner_ids: [bob.id] });
    ids.ice = await create({ name: 'Ice' });
  });
  after(() => w.close());

  it('lists releases in priority order, filtered by state, paginated', async () => {
    const order = await w.api('GET', `/projects/${p}/stories?fields=name`, { as: w.owner });
    expect(order.json.map((s: { name: string }) => s.name)).to.deep.equal(['Done', 'Early', 'R1', 'Late, "quoted"', 'R2', 'Ice']);
    const res = await w.api('GET', `/projects/${p}/releases`, { as: w.owner });
    expect(res.json.map((r: { id: number }) => r.id)).to.deep.equal([ids.r1, ids.r2]);
    expect(res.json[1]).to.deep.equal({
      kind: 'release', id: ids.r2, created_at: '2024-01-10T12:00:00Z', updated_at: '2024-01-10T12:00:00Z', name: 'R2',
      current_state: 'unstarted', url: `http://storyline.test/story/show/${ids.r2}`, project_id: p, labels: [], deadline: '2024-03-01T00:00:00Z',
    });
    expect(res.headers['x-tracker-pagination-total']).to.equal('2');
    const page = await w.api('GET', `/projects/${p}/releases?offset=1&limit=1`, { as: w.owner });
    expect(page.json.map((r: { id: number }) => r.id)).to.deep.equal([ids.r2]);
    expect((await w.api('GET', `/projects/${p}/releases?with_state=accepted`, { as: w.owner })).json).to.deep.equal([]);
    expect((await w.api('GET', `/projects/${p}/releases?deadline_after=2024-02-01`, { as: w.owner })).json.map((r: { id: number }) => r.id)).to.deep.equal([ids.r2]);
    expect((await w.api('GET', `/projects/${p}/releases?with_state=bogus`, { as: w.owner })).status).to.equal(400);
  });

  it('reads one release; a story that is not a release is unfound there', async () => {
    const res = await w.api('GET', `/projects/${p}/releases/${ids.r1}?fields=name,description,accepted_at`, { as: w.owner });
    expect(res.json).to.deep.equal({ id: ids.r1, name: 'R1' });
    expect((await w.api('GET', `/projects/${p}/releases/${ids.early}`, { as: w.owner })).status).to.equal(404);
  });

  it('lists the stories between the previous release marker and the release', async () => {
    const first = await w.api('GET', `/projects/${p}/releases/${ids.r1}/stories?fields=name`, { as: w.owner });
    expect(first.json.map((s: { name: string }) => s.name)).to.deep.equal(['Done', 'Early']);
    const second = await w.api('GET', `/projects/${p}/releases/${ids.r2}/stories?fields=name`, { as: w.owner });
    expect(second.json.map((s: { name: string }) => s.name)).to.deep.equal(['Late, "quoted"']);
  });

  it('renders the stories as CSV with the spec columns, accepted times in the project zone, one Owned By per owner', async () => {
    const res = await w.api('GET', `/projects/${p}/releases/${ids.r1}/stories.csv`, { as: w.owner });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/csv; charset=utf-8');
    expect(res.text.split('\r\n')).to.deep.equal([
      'State,Accepted at (America/New_York),Type,Estimate,Title,ID,Labels,Owned By,Owned By',
      `accepted,2024-01-08 22:04:05,feature,1,Done,${ids.done},,Bob,`,
      `unstarted,,feature,2,Early,${ids.early},"a, b",Olivia Owner,Bob`,
      '',
    ]);
    const quoted = await w.api('GET', `/projects/${p}/releases/${ids.r2}/stories.csv`, { as: w.owner });
    expect(quoted.text.split('\r\n')[1]).to.equal(`unstarted,,feature,,"Late, ""quoted""",${ids.late},,,`);
  });
});
