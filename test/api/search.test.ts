// Search over HTTP (issue 14): GET /projects/{id}/search, the stories list's `filter` on the one engine,
// and saved searches (GET / POST /projects/{id}/my/searches, DELETE .../{search_id}) on a whole Storyline.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storyTeam, type StoryWorld, type TestPerson } from '../support/project-fixture.js';
import type { TestResponse } from './support/http-client.js';
import { storylineApp } from './support/storyline-app.js';

const DAY = 24 * 60 * 60_000;

function expectRefused(res: TestResponse, field: string): void {
  expect(res.status, res.text).to.equal(400);
  expect(res.json.kind).to.equal('error');
  expect(res.json.code).to.equal('invalid_parameter');
  expect(res.json.validation_errors[0].field).to.equal(field);
}

describe('API: search', () => {
  let w: StoryWorld;
  let bob: TestPerson;
  let vera: TestPerson;
  let outsider: TestPerson;
  let p: number;
  const ids: Record<string, number> = {};

  const create = async (body: Record<string, unknown>) => {
    const res = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body });
    expect(res.status, res.text).to.equal(200);
    return res.json.id as number;
  };
  const search = (query: string, as: TestPerson = bob, extra: Record<string, string> = {}) =>
    w.api('GET', `/projects/${p}/search`, { as, query: { query, ...extra } });
  const storyIds = (res: TestResponse): number[] => res.json.stories.stories.map((story: { id: number }) => story.id);
  const version = async () => Number((await w.api('GET', `/projects/${p}`, { as: w.owner })).json.version);

  before(async () => {
    const team = await storyTeam();
    ({ w, bob, vera } = team);
    outsider = await w.person('otto');
    p = await team.project({ iteration_length: 1, start_date: '2024-01-01' });
    // Done: accepted in the first week, before the current iteration once the clock moves on.
    ids.old = await create({ name: 'Old rocket work', story_type: 'feature', current_state: 'accepted', estimate: 2, labels: ['rocket'] });
    w.clock.now += 14 * DAY;
    ids.fuel = await create({ name: 'Rocket fuel', story_type: 'feature', current_state: 'started', estimate: 3, labels: ['rocket'], owner_ids: [bob.id] });
    ids.crash = await create({ name: 'Crash on launch', story_type: 'bug', description: 'the rocket tips over', labels: ['urgent'] });
    ids.fresh = await create({ name: 'Accepted this week', story_type: 'feature', current_state: 'accepted', estimate: 1, labels: ['rocket'] });
  });
  after(() => w.close());

  describe('GET /projects/{id}/search', () => {
    it('answers the search result container: stories and epics buckets, totals, the query echoed, no kind', async () => {
      const res = await search('label:rocket');
      expect(res.status, res.text).to.equal(200);
      expect(Object.keys(res.json)).to.have.members(['stories', 'epics', 'query']);
      expect(res.json.query).to.equal('label:rocket');
      const { stories, epics } = res.json;
      expect(Object.keys(stories)).to.have.members(['stories', 'total_points', 'total_points_completed', 'total_hits', 'total_hits_with_done']);
      expect(storyIds(res)).to.deep.equal([ids.fresh, ids.fuel]);
      expect(stories).to.include({ total_hits: 2, total_hits_with_done: 3, total_points: 4, total_points_completed: 1 });
      expect(epics).to.deep.equal({ epics: [], total_hits: 0 });
      const story = stories.stories[1];
      expect(story).to.include({ kind: 'story', id: ids.fuel, project_id: p, name: 'Rocket fuel', current_state: 'started', estimate: 3 });
      expect(story.labels[0]).to.include({ kind: 'label', name: 'rocket' });
      expect(story.url).to.equal(`http://storyline.test/story/show/${ids.fuel}`);
      expect(story.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it('counts done stories in with includedone:true, and runs state plus owner and free text', async () => {
      const done = await search('label:rocket includedone:true');
      expect(storyIds(done)).to.deep.equal([ids.old, ids.fresh, ids.fuel]);
      expect(done.json.stories).to.include({ total_hits: 3, total_hits_with_done: 3 });
      expect(storyIds(await search(`state:started owner:${bob.id}`))).to.deep.equal([ids.fuel]);
      expect(storyIds(await search('rocket -label:rocket'))).to.deep.equal([ids.crash]);
      expect(storyIds(await search('(type:bug OR estimate:3) AND -has:owner'))).to.deep.equal([ids.crash]);
    });

    it('applies nested fields and date_format inside the buckets', async () => {
      const res = await search('label:urgent', bob, { fields: 'stories(stories(name,owners),total_hits)', date_format: 'millis' });
      expect(res.json).to.deep.equal({ stories: { stories: [{ id: ids.crash, name: 'Crash on launch', owners: [] }], total_hits: 1 } });
      const dates = await search('label:urgent', bob, { fields: 'stories(stories(created_at))', date_format: 'millis' });
      expect(dates.json.stories.stories[0].created_at).to.be.a('number');
    });

    it('refuses bad queries with 400 invalid_parameter on query, saying what and where, without a 5xx', async () => {
      const unbalanced = await search('(state:started');
      expectRefused(unbalanced, 'query');
      expect(unbalanced.json.validation_errors[0].problem).to.match(/^Invalid search: .*\(at character \d+\)\.$/);
      for (const text of ['state:started OR', 'nonsense:x', 'created:2024-13-40', 'id:abc', 'name:"open', '']) {
        expectRefused(await search(text), 'query');
      }
      expectRefused(await w.api('GET', `/projects/${p}/search`, { as: bob }), 'query');
      // Sent unencoded (parentheses are legal in a query string) so that they fit the request-line limit.
      const raw = (text: string) => w.api('GET', `/projects/${p}/search?query=${text}`, { as: bob });
      const operators = await raw(Array.from({ length: 4000 }, () => 'OR').join('+'));
      expectRefused(operators, 'query');
      expect(operators.json.validation_errors[0].problem).to.match(/\(at character 1\)\.$/);
      const nested = await raw(`${'('.repeat(5000)}x${')'.repeat(5000)}`);
      expectRefused(nested, 'query');
      expect(nested.json.validation_errors[0].problem).to.include('(at character 33)');
    });

    it('is read by members of any role (and nobody else) and writes nothing', async () => {
      const before = await version();
      expect((await search('rocket', vera)).status).to.equal(200);
      const stranger = await search('rocket', outsider);
      expect(stranger.status).to.equal((await w.api('GET', `/projects/${p}/labels`, { as: outsider })).status);
      expect(stranger.status).to.be.within(403, 404);
      expect(await version()).to.equal(before);
    });
  });

  describe('the stories list filter', () => {
    const filtered = async (filter: string) => {
      const res = await w.api('GET', `/projects/${p}/stories`, { as: bob, query: { filter, fields: 'id' } });
      expect(res.status, res.text).to.equal(200);
      return res.json.map((story: { id: number }) => story.id);
    };

    it('runs the one grammar with done stories left out, in priority order, paged', async () => {
      expect(await filtered('label:rocket')).to.deep.equal([ids.fresh, ids.fuel]);
      expect(await filtered('label:rocket includedone:true')).to.deep.equal([ids.old, ids.fresh, ids.fuel]);
      expect(await filtered('state:started OR type:bug')).to.deep.equal([ids.fuel, ids.crash]);
      const page = await w.api('GET', `/projects/${p}/stories`, { as: bob, query: { filter: 'label:rocket', limit: '1', offset: '1', envelope: 'true', fields: 'id' } });
      expect(page.json.data).to.deep.equal([{ id: ids.fuel }]);
      expect(page.json.pagination).to.deep.equal({ total: 2, limit: 1, offset: 1, returned: 1 });
    });

    it('refuses a bad filter on `filter`, and filter mixed with other list parameters', async () => {
      expectRefused(await w.api('GET', `/projects/${p}/stories`, { as: bob, query: { filter: 'state:' } }), 'filter');
      expectRefused(await w.api('GET', `/projects/${p}/stories`, { as: bob, query: { filter: 'rocket', with_state: 'started' } }), 'filter');
    });

    it('answers each searcher their own is:following (the answer depends on the searcher)', async () => {
      // following is explicit (owning or requesting a story makes nobody a follower)
      for (const [story, follower] of [[ids.crash, vera], [ids.fuel, bob]] as const) {
        const follow = await w.api('PUT', `/projects/${p}/stories/${story}`, { as: w.owner, body: { follower_ids: [follower.id] } });
        expect(follow.status, follow.text).to.equal(200);
      }
      const asVera = await w.api('GET', `/projects/${p}/stories`, { as: vera, query: { filter: 'is:following', fields: 'id' } });
      const asBob = await w.api('GET', `/projects/${p}/stories`, { as: bob, query: { filter: 'is:following', fields: 'id' } });
      expect(asVera.json).to.deep.equal([{ id: ids.crash }]);
      expect(asBob.json).to.deep.equal([{ id: ids.fuel }]);
    });
  });

  describe('is:blocked and is:blocking', () => {
    it('match stories with an unresolved blocker, and stories that block another', async () => {
      const q = await w.project();
      const make = async (name: string) => (await w.api('POST', `/projects/${q}/stories`, { as: w.owner, body: { name } })).json.id as number;
      const [waiting, worded, cleared, blocker, free] = [await make('waiting'), await make('worded'), await make('cleared'), await make('blocker'), await make('free')];
      const block = async (story: number, body: Record<string, unknown>) => {
        const res = await w.api('POST', `/projects/${q}/stories/${story}/blockers`, { as: w.owner, body });
        expect(res.status, res.text).to.equal(200);
        return res.json.id as number;
      };
      await block(waiting, { description: `needs #${blocker}` });
      await block(worded, { description: 'the vendor has to answer first' });
      await block(cleared, { description: 'was waiting', resolved: true });
      const found = async (query: string) => (await w.api('GET', `/projects/${q}/search`, { as: w.owner, query: { query } })).json.stories.stories.map((s: { id: number }) => s.id).sort();
      expect(await found('is:blocked')).to.deep.equal([waiting, worded].sort());
      expect(await found('has:blockers')).to.deep.equal([waiting, worded].sort());
      expect(await found('is:blocking')).to.deep.equal([blocker]);
      expect(await found('-is:blocked')).to.deep.equal([cleared, blocker, free].sort());
      // resolving the blocker that names a story ends both sides
      const [named] = (await w.api('GET', `/projects/${q}/stories/${waiting}/blockers`, { as: w.owner })).json;
      await w.api('PUT', `/projects/${q}/stories/${waiting}/blockers/${named.id}`, { as: w.owner, body: { resolved: true } });
      expect(await found('is:blocked')).to.deep.equal([worded]);
      expect(await found('is:blocking')).to.deep.equal([]);
    });
  });

  describe('saved searches', () => {
    it('saves, lists and deletes the caller’s own searches, one project version each', async () => {
      const before = await version();
      const created = await w.api('POST', `/projects/${p}/my/searches`, { as: bob, body: { name: 'My rockets', query: 'label:rocket owner:' + bob.id } });
      expect(created.status, created.text).to.equal(200);
      expect(created.json).to.deep.equal({ kind: 'saved_search', id: created.json.id, project_id: p, name: 'My rockets', query: `label:rocket owner:${bob.id}` });
      expect(created.json.id).to.be.a('number');
      expect(Number(created.headers['x-tracker-project-version'])).to.equal(before + 1);

      const mine = await w.api('GET', `/projects/${p}/my/searches`, { as: bob });
      expect(mine.json).to.deep.equal([created.json]);
      expect((await w.api('GET', `/projects/${p}/my/searches`, { as: w.owner })).json).to.deep.equal([]);

      expect((await w.api('DELETE', `/projects/${p}/my/searches/${created.json.id}`, { as: w.owner })).status).to.equal(404);
      const deleted = await w.api('DELETE', `/projects/${p}/my/searches/${created.json.id}`, { as: bob });
      expect(deleted.status).to.equal(204);
      expect(Number(deleted.headers['x-tracker-project-version'])).to.equal(before + 2);
      expect((await w.api('GET', `/projects/${p}/my/searches`, { as: bob })).json).to.deep.equal([]);
      expect((await w.api('DELETE', `/projects/${p}/my/searches/${created.json.id}`, { as: bob })).status).to.equal(404);
    });

    it('lets viewers save their own searches; outsiders and anonymous callers are refused', async () => {
      const saved = await w.api('POST', `/projects/${p}/my/searches`, { as: vera, body: { name: 'Bugs', query: 'type:bug' } });
      expect(saved.status, saved.text).to.equal(200);
      const stranger = await w.api('POST', `/projects/${p}/my/searches`, { as: outsider, body: { name: 'Bugs', query: 'type:bug' } });
      expect(stranger.status).to.be.within(403, 404);
      expect((await w.api('POST', `/projects/${p}/my/searches`, { body: { name: 'Bugs', query: 'type:bug' } })).status).to.equal(401);
    });

    it('refuses bad input with 400 naming the key, writing nothing', async () => {
      const before = await version();
      const post = (body: Record<string, unknown>) => w.api('POST', `/projects/${p}/my/searches`, { as: bob, body });
      expectRefused(await post({ name: ' ', query: 'x' }), 'name');
      expectRefused(await post({ query: 'x' }), 'name');
      expectRefused(await post({ name: 'Broken', query: '(state:started' }), 'query');
      expectRefused(await post({ name: 'Typed', query: ['x'] }), 'query');
      expectRefused(await post({ name: 'Extra', query: 'x', shared: true }), 'shared');
      await post({ name: 'Twice', query: 'x' });
      const after = await version();
      expectRefused(await post({ name: 'TWICE', query: 'y' }), 'name');
      expect(after).to.equal(before + 1);
      expect(await version()).to.equal(after);
      expect((await w.api('DELETE', `/projects/${p}/my/searches/abc`, { as: bob })).status).to.be.within(400, 404);
    });

    it('never shows in an activity feed: a saved search is private to its owner', async () => {
      await w.api('POST', `/projects/${p}/my/searches`, { as: bob, body: { name: 'Secret plan', query: 'label:secret' } });
      for (const [path, as] of [[`/projects/${p}/activity`, w.owner], ['/my/activity', bob]] as const) {
        const feed = await w.api('GET', path, { as, query: { limit: '100' } });
        expect(feed.status, feed.text).to.equal(200);
        expect(feed.text).not.to.include('saved_search');
        expect(feed.text).not.to.include('Secret plan');
      }
    });
  });
});

describe('API: search survives a restart on the same data directory', () => {
  it('answers the same search and saved searches after the app reopens', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'storyline-search-'));
    try {
      const first = await storylineApp({ dataDir });
      const owner = await first.person('Owner');
      const project = (await first.api('POST', '/projects', { as: owner, body: { name: 'Kept', new_account_name: 'Kept Inc' } })).json.id;
      await first.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'Persistent rocket', labels: ['kept'] } });
      const saved = (await first.api('POST', `/projects/${project}/my/searches`, { as: owner, body: { name: 'Kept', query: 'rocket' } })).json;
      const searched = (await first.api('GET', `/projects/${project}/search`, { as: owner, query: { query: 'rocket label:kept' } })).json;
      await first.close();

      const second = await storylineApp({ dataDir });
      try {
        expect((await second.api('GET', `/projects/${project}/search`, { as: owner, query: { query: 'rocket label:kept' } })).json).to.deep.equal(searched);
        expect(searched.stories.total_hits).to.equal(1);
        expect((await second.api('GET', `/projects/${project}/my/searches`, { as: owner })).json).to.deep.equal([saved]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
