import { expect } from 'chai';
import { storyTeam, type StoryTeam, type StoryWorld, type TestPerson } from '../support/project-fixture.js';

describe('API: stories', () => {
  let w: StoryWorld;
  let bob: TestPerson;
  let vera: TestPerson;
  let stranger: TestPerson;
  let team: StoryTeam;

  before(async () => {
    team = await storyTeam();
    ({ w, bob, vera } = team);
    stranger = await w.person('stranger');
  });
  after(() => w.close());

  const projectWithTeam = (settings: Record<string, unknown> = {}) => team.project(settings);

  async function create(projectId: number, body: Record<string, unknown>, as: TestPerson = w.owner) {
    const res = await w.api('POST', `/projects/${projectId}/stories`, { as, body });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }

  async function update(projectId: number, storyId: number, body: Record<string, unknown>) {
    const res = await w.api('PUT', `/projects/${projectId}/stories/${storyId}`, { as: w.owner, body });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }

  async function order(projectId: number, query = ''): Promise<number[]> {
    const res = await w.api('GET', `/projects/${projectId}/stories?fields=id${query}`, { as: w.owner });
    expect(res.status, res.text).to.equal(200);
    return res.json.map((story: { id: number }) => story.id);
  }

  describe('create', () => {
    it('applies the defaults, answers the story with the new project version, and omits nulls', async () => {
      const p = await projectWithTeam();
      const before = await w.api('GET', `/projects/${p}`, { as: w.owner });
      const res = await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 'First' } });
      expect(res.status).to.equal(200);
      expect(res.json).to.deep.equal({
        kind: 'story',
        id: res.json.id,
        project_id: p,
        name: 'First',
        story_type: 'feature',
        current_state: 'unscheduled',
        requested_by_id: bob.id,
        owner_ids: [],
        labels: [],
        created_at: '2024-01-10T12:00:00Z',
        updated_at: '2024-01-10T12:00:00Z',
        url: `http://storyline.test/story/show/${res.json.id}`,
        story_priority: 'p3',
      });
      expect(Number(res.headers['x-tracker-project-version'])).to.equal(before.json.version + 1);
    });

    it('accepts string-typed numbers and nested tasks and labels (by name, object or id), names lower-cased', async () => {
      const p = await projectWithTeam();
      const existing = await w.api('POST', `/projects/${p}/labels`, { as: w.owner, body: { name: 'Backend' } });
      const story = await create(p, {
        name: 'Rich',
        current_state: 'started',
        estimate: '2',
        owned_by_id: String(bob.id),
        labels: ['UI', { name: 'ui' }, { name: 'Mobile' }],
        label_ids: [existing.json.id],
        tasks: [{ description: 'one' }, { description: 'two', complete: 'true' }],
        description: 'Some words',
      });
      expect(story).to.deep.include({ estimate: 2, owned_by_id: bob.id, owner_ids: [bob.id], current_state: 'started' });
      expect(story.labels.map((label: { name: string }) => label.name)).to.deep.equal(['backend', 'mobile', 'ui']);
      const tasks = await w.api('GET', `/projects/${p}/stories/${story.id}?fields=tasks,task_ids,label_ids`, { as: w.owner });
      expect(tasks.json.tasks.map((t: { description: string; position: number; complete: boolean }) => [t.description, t.position, t.complete])).to.deep.equal([
        ['one', 1, false],
        ['two', 2, true],
      ]);
      expect(tasks.json.task_ids).to.have.length(2);
      expect(tasks.json.label_ids).to.have.length(3);
      expect(tasks.json).not.to.have.property('labels');
    });

    it('reports each broken rule as invalid_parameter with one validation error per field', async () => {
      const p = await projectWithTeam();
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{}, 'name', 'this endpoint requires the parameter: name'],
        [{ name: 'x', estimate: 5 }, 'estimate', "5 is not a valid estimate for this project's point scale (0,1,2,3)."],
        [{ name: 'x', current_state: 'started' }, 'estimate', 'Stories in the started state must be estimated.'],
        [{ name: 'x', current_state: 'accepted' }, 'estimate', 'Stories in the accepted state must be estimated.'],
        [{ name: 'x', story_type: 'bug', estimate: 1 }, 'estimate', 'Bugs and chores cannot be estimated in this project.'],
        [{ name: 'x', deadline: '2024-02-01T00:00:00Z' }, 'deadline', 'Only releases can have a deadline.'],
        [{ name: 'x', estimate: 'lots' }, 'estimate', "'estimate' must be a number or null"],
        [{ name: 'x', owner_ids: [stranger.id] }, 'owner_ids', `Person ${stranger.id} is not a member of this project.`],
        [{ name: 'x', created_at: '2001-01-01T00:00:00Z' }, 'created_at', 'created_at must lie between 2005-01-01T00:00:00Z and the current time.'],
        [{ name: 'x', current_state: 'None' }, 'current_state', 'current_state must be one of feature'],
        [{ name: 'x', tasks: [{ id: 3, description: 'no ids' }] }, 'tasks', "'tasks' must not hold 'id' (at 0.id)"],
      ];
      for (const [body, field, problem] of cases) {
        const res = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.json.code).to.equal('invalid_parameter');
        const error = res.json.validation_errors.find((e: { field: string }) => e.field === field);
        expect(error, `${JSON.stringify(body)} -> ${res.text}`).to.not.equal(undefined);
        if (field !== 'current_state') expect(error.problem).to.equal(problem);
        expect(res.headers).not.to.have.property('x-tracker-project-version');
      }
    });

    it('estimates bugs and chores on the project point scale when the project allows it, fractional values included', async () => {
      const p = await projectWithTeam({ bugs_and_chores_are_estimatable: true, point_scale: '0,0.5,1,2' });
      const bug = await create(p, { name: 'b', story_type: 'bug', estimate: '0.5' });
      expect(bug.estimate).to.equal(0.5);
      const res = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body: { name: 'c', story_type: 'chore', estimate: 3 } });
      expect(res.status).to.equal(400);
    });

    it('refuses viewers, strangers and anonymous callers', async () => {
      const p = await projectWithTeam();
      expect((await w.api('POST', `/projects/${p}/stories`, { as: vera, body: { name: 'x' } })).status).to.equal(403);
      expect((await w.api('POST', `/projects/${p}/stories`, { as: stranger, body: { name: 'x' } })).status).to.equal(403);
      expect((await w.api('POST', `/projects/${p}/stories`, { body: { name: 'x' } })).status).to.equal(401);
      expect((await w.api('GET', `/projects/${p}/stories`, { as: vera })).status).to.equal(200);
      expect((await w.api('GET', `/projects/${p}/stories`, { as: stranger })).status).to.equal(403);
    });
  });

  describe('priority order', () => {
    it('puts new stories at the top of the Icebox and moves them by state', async () => {
      const p = await projectWithTeam();
      const a = (await create(p, { name: 'A' })).id;
      const b = (await create(p, { name: 'B' })).id;
      expect(await order(p)).to.deep.equal([b, a]);

      // unscheduled -> unstarted: to the bottom of the Backlog, above the Icebox
      await update(p, a, { current_state: 'unstarted' });
      const c = (await create(p, { name: 'C', current_state: 'unstarted' })).id;
      expect(await order(p)).to.deep.equal([a, c, b]);

      // starting moves the story into Current, above the Backlog
      await update(p, c, { current_state: 'started', estimate: 1 });
      expect(await order(p)).to.deep.equal([c, a, b]);

      // accepting moves up, below the last accepted story (none yet: the top)
      await update(p, a, { current_state: 'accepted', estimate: 2 });
      expect(await order(p)).to.deep.equal([a, c, b]);
      const accepted = await w.api('GET', `/projects/${p}/stories/${a}`, { as: w.owner });
      expect(accepted.json.accepted_at).to.equal('2024-01-10T12:00:00Z');

      // back to the Icebox: its top
      await update(p, c, { current_state: 'unscheduled' });
      expect(await order(p)).to.deep.equal([a, c, b]);
      const left = await w.api('GET', `/projects/${p}/stories/${a}`, { as: w.owner });
      expect(left.json).to.have.property('accepted_at');
      await update(p, a, { current_state: 'rejected' });
      const rejected = await w.api('GET', `/projects/${p}/stories/${a}`, { as: w.owner });
      expect(rejected.json).not.to.have.property('accepted_at');
    });

    it('lists done and current first, then the Backlog, then the Icebox', async () => {
      const p = await projectWithTeam();
      const ice = (await create(p, { name: 'ice' })).id;
      const backlog = (await create(p, { name: 'backlog', current_state: 'unstarted' })).id;
      const started = (await create(p, { name: 'started', current_state: 'started', estimate: 1 })).id;
      const done = (await create(p, { name: 'done', current_state: 'accepted', estimate: 1 })).id;
      const list = await w.api('GET', `/projects/${p}/stories?fields=current_state`, { as: w.owner });
      expect(list.json.map((s: { id: number }) => s.id)).to.deep.equal([done, started, backlog, ice]);
    });

    it('renders before_id / after_id from the order and moves a story with them (and group)', async () => {
      const p = await projectWithTeam();
      const one = (await create(p, { name: '1', current_state: 'unstarted' })).id;
      const two = (await create(p, { name: '2', current_state: 'unstarted' })).id;
      const three = (await create(p, { name: '3', current_state: 'unstarted' })).id;
      const ice = (await create(p, { name: 'ice' })).id;
      expect(await order(p)).to.deep.equal([one, two, three, ice]);
      const res = await w.api('GET', `/projects/${p}/stories?fields=before_id,after_id`, { as: w.owner });
      expect(res.json).to.deep.equal([
        { id: one, before_id: two },
        { id: two, before_id: three, after_id: one },
        { id: three, before_id: ice, after_id: two },
        { id: ice, after_id: three },
      ]);

      await update(p, three, { before_id: one });
      expect(await order(p)).to.deep.equal([three, one, two, ice]);
      await update(p, three, { after_id: two });
      expect(await order(p)).to.deep.equal([one, two, three, ice]);
      // an Icebox story dropped into the Backlog with group scheduled becomes unstarted
      const moved = await update(p, ice, { before_id: one, group: 'scheduled' });
      expect(moved.current_state).to.equal('unstarted');
      expect(await order(p)).to.deep.equal([ice, one, two, three]);
      // a scheduled story cannot be dropped into the Icebox without group unscheduled
      const other = (await create(p, { name: 'other ice' })).id;
      const refused = await w.api('PUT', `/projects/${p}/stories/${one}`, { as: w.owner, body: { after_id: other } });
      expect(refused.status).to.equal(400);
      expect(refused.json.validation_errors[0].field).to.equal('after_id');
      const single = await w.api('GET', `/projects/${p}/stories/${two}?fields=before_id,after_id`, { as: w.owner });
      expect(single.json).to.deep.equal({ id: two, before_id: three, after_id: one });
    });
  });

  describe('list filters and pagination', () => {
    let p: number;
    const ids: Record<string, number> = {};

    before(async () => {
      p = await projectWithTeam({ bugs_and_chores_are_estimatable: true });
      w.clock.now = Date.UTC(2024, 0, 11, 9);
      ids.login = (await create(p, { name: 'Login page', labels: ['auth'], story_type: 'feature', description: 'Sign in with "magic" links' })).id;
      w.clock.now = Date.UTC(2024, 0, 12, 9);
      ids.crash = (await create(p, { name: 'Crash on save', story_type: 'bug', story_priority: 'p1', labels: ['Auth', 'urgent fix'] })).id;
      w.clock.now = Date.UTC(2024, 0, 13, 9);
      ids.cleanup = (await create(p, { name: 'Cleanup', story_type: 'chore', current_state: 'accepted', estimate: 1 })).id;
      ids.release = (await create(p, { name: 'Release 1', story_type: 'release', current_state: 'unstarted', deadline: Date.UTC(2024, 1, 1) })).id;
      w.clock.now = Date.UTC(2024, 0, 14, 9);
    });

    it('filters by state, label name (any case), type and priority', async () => {
      expect(await order(p, '&with_state=accepted')).to.deep.equal([ids.cleanup]);
      expect(await order(p, '&with_label=AUTH')).to.deep.equal([ids.crash, ids.login]);
      expect(await order(p, '&with_label=nothing')).to.deep.equal([]);
      expect(await order(p, '&with_story_type=bug')).to.deep.equal([ids.crash]);
      expect(await order(p, '&with_story_priority=p1')).to.deep.equal([ids.crash]);
      const bad = await w.api('GET', `/projects/${p}/stories?with_state=sleeping&with_story_type=epic`, { as: w.owner });
      expect(bad.status).to.equal(400);
      expect(bad.json.validation_errors.map((e: { field: string }) => e.field)).to.deep.equal(['with_state', 'with_story_type']);
    });

    it('windows the order with after_story_id / before_story_id', async () => {
      const all = await order(p);
      expect(all).to.deep.equal([ids.cleanup, ids.release, ids.crash, ids.login]);
      expect(await order(p, `&after_story_id=${ids.release}`)).to.deep.equal([ids.crash, ids.login]);
      expect(await order(p, `&before_story_id=${ids.crash}`)).to.deep.equal([ids.cleanup, ids.release]);
      expect(await order(p, `&after_story_id=${ids.cleanup}&before_story_id=${ids.login}`)).to.deep.equal([ids.release, ids.crash]);
      expect((await w.api('GET', `/projects/${p}/stories?after_story_id=999999`, { as: w.owner })).status).to.equal(400);
    });

    it('bounds dates exclusively, given as ISO 8601 or milliseconds', async () => {
      expect(await order(p, '&created_after=2024-01-11T09:00:00Z')).to.deep.equal([ids.cleanup, ids.release, ids.crash]);
      expect(await order(p, `&created_before=${Date.UTC(2024, 0, 12, 9)}`)).to.deep.equal([ids.login]);
      expect(await order(p, '&accepted_after=2024-01-01&accepted_before=2024-01-14')).to.deep.equal([ids.cleanup]);
      expect(await order(p, '&deadline_before=2024-03-01')).to.deep.equal([ids.release]);
      expect(await order(p, '&updated_after=2024-01-12T09:00:00Z')).to.deep.equal([ids.cleanup, ids.release]);
      expect((await w.api('GET', `/projects/${p}/stories?created_after=yesterday`, { as: w.owner })).status).to.equal(400);
    });

    it('paginates with limit and offset (default 100, larger limits reduced to 500) in the headers and the envelope', async () => {
      const page = await w.api('GET', `/projects/${p}/stories?limit=2&offset=1&fields=id`, { as: w.owner });
      expect(page.json.map((s: { id: number }) => s.id)).to.deep.equal([ids.release, ids.crash]);
      expect(page.headers).to.include({
        'x-tracker-pagination-total': '4',
        'x-tracker-pagination-limit': '2',
        'x-tracker-pagination-offset': '1',
        'x-tracker-pagination-returned': '2',
      });
      const big = await w.api('GET', `/projects/${p}/stories?limit=10000&envelope=true`, { as: w.owner });
      expect(big.json.pagination).to.deep.equal({ total: 4, limit: 500, offset: 0, returned: 4 });
      const plain = await w.api('GET', `/projects/${p}/stories`, { as: w.owner });
      expect(plain.headers['x-tracker-pagination-limit']).to.equal('100');
      const past = await w.api('GET', `/projects/${p}/stories?offset=10`, { as: w.owner });
      expect(past.json).to.deep.equal([]);
      expect((await w.api('GET', `/projects/${p}/stories?limit=ten`, { as: w.owner })).json.validation_errors[0]).to.deep.equal({
        field: 'limit',
        problem: "'limit' must be an integer value",
      });
    });

    it('evaluates the filter grammar: state, label, id, type, name, free text, quotes and negation', async () => {
      const f = (text: string) => order(p, `&filter=${encodeURIComponent(text)}`);
      expect(await f('state:accepted,unstarted')).to.deep.equal([ids.cleanup, ids.release]);
      expect(await f('label:"urgent fix"')).to.deep.equal([ids.crash]);
      expect(await f('label:""')).to.deep.equal([ids.cleanup, ids.release]);
      expect(await f(`id:${ids.login},${ids.crash}`)).to.deep.equal([ids.crash, ids.login]);
      expect(await f('type:Bug,chore')).to.deep.equal([ids.cleanup, ids.crash]);
      expect(await f('-type:release -type:chore')).to.deep.equal([ids.crash, ids.login]);
      expect(await f('"magic" LINKS')).to.deep.equal([ids.login]);
      expect(await f('"on save"')).to.deep.equal([ids.crash]);
      expect(await f('name:release')).to.deep.equal([ids.release]);
      expect(await f('label:auth state:unscheduled')).to.deep.equal([ids.crash, ids.login]);
    });

    it('rejects filter mixed with other parameters, unknown terms and bad syntax', async () => {
      const mixed = await w.api('GET', `/projects/${p}/stories?filter=state:accepted&with_label=auth`, { as: w.owner });
      expect(mixed.status).to.equal(400);
      expect(mixed.json.validation_errors[0].field).to.equal('filter');
      const allowed = await w.api('GET', `/projects/${p}/stories?filter=state:accepted&limit=1&offset=0&date_format=millis&fields=id&envelope=true`, { as: w.owner });
      expect(allowed.json.data).to.deep.equal([{ id: ids.cleanup }]);
      for (const text of ['label:"open', 'id:one', 'nonsense:x', '(state:started']) {
        const res = await w.api('GET', `/projects/${p}/stories?filter=${encodeURIComponent(text)}`, { as: w.owner });
        expect(res.status, text).to.equal(400);
        expect(res.json.code).to.equal('invalid_parameter');
      }
      // The whole grammar runs now: owner: is a term like any other (bob owns none of these stories).
      expect(await order(p, `&filter=${encodeURIComponent('owner:bob')}`)).to.deep.equal([]);
    });
  });

  describe('reads', () => {
    it('serves bulk reads (unknown ids skipped, at most 500) and single reads in and outside the project path', async () => {
      const p = await projectWithTeam();
      const other = await projectWithTeam();
      const a = (await create(p, { name: 'a' })).id;
      const b = (await create(p, { name: 'b' })).id;
      const foreign = (await create(other, { name: 'foreign' })).id;
      const bulk = await w.api('GET', `/projects/${p}/stories/bulk?ids=${b},999999,${a},${foreign}&fields=name`, { as: vera });
      expect(bulk.json).to.deep.equal([{ id: b, name: 'b' }, { id: a, name: 'a' }]);
      const tooMany = Array.from({ length: 501 }, (_, i) => i + 1).join(',');
      expect((await w.api('GET', `/projects/${p}/stories/bulk?ids=${tooMany}`, { as: w.owner })).status).to.equal(400);
      expect((await w.api('GET', `/projects/${p}/stories/bulk`, { as: w.owner })).status).to.equal(400);

      expect((await w.api('GET', `/projects/${p}/stories/${foreign}`, { as: w.owner })).status).to.equal(404);
      expect((await w.api('GET', `/projects/${p}/stories/abc`, { as: w.owner })).status).to.equal(404);
      const bare = await w.api('GET', `/stories/${a}?fields=name,project_id`, { as: vera });
      expect(bare.json).to.deep.equal({ id: a, name: 'a', project_id: p });
      expect(bare.headers['x-tracker-project-version']).to.be.a('string');
      expect((await w.api('GET', `/stories/${a}`, { as: stranger })).status).to.equal(403);
      expect((await w.api('GET', '/stories/999999', { as: w.owner })).status).to.equal(404);
      expect((await w.api('PUT', `/stories/${a}`, { as: vera, body: { name: 'no' } })).status).to.equal(403);
    });

    it('nests people on request, emails shown for project members only', async () => {
      const p = await projectWithTeam();
      const s = await create(p, { name: 'people', owner_ids: [bob.id, w.owner.id], follower_ids: [vera.id] }, bob);
      const res = await w.api('GET', `/projects/${p}/stories/${s.id}?fields=owned_by,requested_by,owners,followers,follower_ids`, { as: vera });
      expect(res.json.owned_by).to.deep.equal({ kind: 'person', id: bob.id, name: 'Bob', email: bob.email, initials: res.json.owned_by.initials, username: 'bob' });
      expect(res.json.owners.map((o: { id: number }) => o.id)).to.deep.equal([bob.id, w.owner.id]);
      expect(res.json.requested_by.id).to.equal(bob.id);
      expect(res.json.follower_ids).to.deep.equal([vera.id]); // requesting and owning do not make followers
      expect(res.json).not.to.have.property('owned_by_id');
      const defaults = await w.api('GET', `/projects/${p}/stories/${s.id}?fields=:default,comment_ids,blocked_story_ids`, { as: vera });
      expect(defaults.json).to.include({ owned_by_id: bob.id });
      expect(defaults.json.comment_ids).to.deep.equal([]);
      expect(defaults.json.blocked_story_ids).to.deep.equal([]);

      // a public project's non-members read the story but not its people's emails
      const open = await projectWithTeam({ public: true });
      const shared = await create(open, { name: 'public', owner_ids: [bob.id] });
      const outsider = await w.api('GET', `/projects/${open}/stories/${shared.id}?fields=owned_by`, { as: stranger });
      expect(outsider.status).to.equal(200);
      expect(outsider.json.owned_by).to.deep.include({ id: bob.id, name: 'Bob' });
      expect(outsider.json.owned_by).not.to.have.property('email');
      const insider = await w.api('GET', `/projects/${open}/stories/${shared.id}/owners`, { as: vera });
      expect(insider.json[0].email).to.equal(bob.email);
    });
  });

  describe('updates and deletes', () => {
    it('updates partially, replaces labels, clears with null and keeps the project version contiguous', async () => {
      const p = await projectWithTeam();
      const s = await create(p, { name: 'edit me', labels: ['a', 'b'], description: 'words' });
      const res = await w.api('PUT', `/projects/${p}/stories/${s.id}`, { as: bob, body: { labels: ['c'], description: null, story_priority: 'p0' } });
      expect(res.status).to.equal(200);
      expect(res.json.labels.map((l: { name: string }) => l.name)).to.deep.equal(['c']);
      expect(res.json).not.to.have.property('description');
      expect(res.json).to.include({ name: 'edit me', story_priority: 'p0' });
      const emptied = await update(p, s.id, { labels: [] });
      expect(emptied.labels).to.deep.equal([]);
      const counts = await w.api('GET', `/projects/${p}/labels?fields=name,counts`, { as: w.owner });
      const a = counts.json.find((l: { name: string }) => l.name === 'a');
      expect(a.counts.number_of_stories_by_state.unscheduled).to.equal(0);
      const bad = await w.api('PUT', `/projects/${p}/stories/${s.id}`, { as: w.owner, body: { group: 'nowhere', estimate: 'x' } });
      expect(bad.json.validation_errors.map((e: { field: string }) => e.field)).to.deep.equal(['estimate', 'group']);
    });

    it('rejects with a comment: one version, the comment on the story, its writer following', async () => {
      const p = await projectWithTeam();
      const s = await create(p, { name: 'review me', estimate: 1, current_state: 'delivered' });
      const res = await w.api('PUT', `/projects/${p}/stories/${s.id}`, {
        as: bob,
        body: { current_state: 'rejected', comment: { text: 'Crashes on save' } },
        query: { fields: 'current_state,follower_ids,comment_ids' },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.json.current_state).to.equal('rejected');
      expect(res.json.follower_ids).to.deep.equal([bob.id]);
      expect(res.json.comment_ids).to.have.length(1);
      const activity = await w.api('GET', `/projects/${p}/activity`, { as: w.owner, query: { limit: 1 } });
      expect(activity.json[0].project_version).to.equal(Number(res.headers['x-tracker-project-version']));
      expect(activity.json[0].changes[1]).to.deep.include({ kind: 'comment', change_type: 'create', id: res.json.comment_ids[0] });
      expect(activity.json[0].changes[1].new_values).to.include({ text: 'Crashes on save', person_id: bob.id, story_id: s.id });
      const attached = await w.api('PUT', `/projects/${p}/stories/${s.id}`, {
        as: bob,
        body: { current_state: 'rejected', comment: { text: 'see file', file_attachments: [{ id: 1 }] } },
      });
      expect(attached.status).to.equal(400);
      expect(attached.json.validation_errors.map((e: { field: string }) => e.field)).to.deep.equal(['comment']);
    });

    it('shows label counts per state as stories move', async () => {
      const p = await projectWithTeam();
      const s = await create(p, { name: 'counted', labels: ['metrics'], estimate: 2 });
      await update(p, s.id, { current_state: 'started' });
      const labels = await w.api('GET', `/projects/${p}/labels?fields=name,counts`, { as: w.owner });
      const counts = labels.json[0].counts;
      expect(counts.number_of_stories_by_state).to.include({ started: 1, unscheduled: 0 });
      expect(counts.sum_of_story_estimates_by_state).to.include({ started: 2 });
    });

    it('deletes with 204 and the new version, in and outside the project path', async () => {
      const p = await projectWithTeam();
      const a = (await create(p, { name: 'a', tasks: [{ description: 't' }] })).id;
      const b = (await create(p, { name: 'b' })).id;
      const res = await w.api('DELETE', `/projects/${p}/stories/${a}`, { as: bob });
      expect(res.status).to.equal(204);
      const version = Number(res.headers['x-tracker-project-version']);
      expect((await w.api('GET', `/projects/${p}/stories/${a}`, { as: w.owner })).status).to.equal(404);
      expect((await w.api('GET', `/projects/${p}/stories/${a}/tasks`, { as: w.owner })).status).to.equal(404);
      const bare = await w.api('DELETE', `/stories/${b}`, { as: bob });
      expect(bare.status).to.equal(204);
      expect(Number(bare.headers['x-tracker-project-version'])).to.equal(version + 1);
      expect((await w.api('DELETE', `/stories/${b}`, { as: bob })).status).to.equal(404);
    });

    it('applies concurrent updates to different stories of one project, each one version', async () => {
      const p = await projectWithTeam();
      const stories: number[] = [];
      for (let i = 0; i < 20; i++) stories.push((await create(p, { name: `s${i}` })).id);
      const responses = await Promise.all(
        stories.map((id, i) => w.api('PUT', `/projects/${p}/stories/${id}`, { as: i % 2 ? bob : w.owner, body: { name: `renamed ${i}` } })),
      );
      expect(responses.map((r) => r.status)).to.deep.equal(Array(20).fill(200));
      const versions = responses.map((r) => Number(r.headers['x-tracker-project-version'])).sort((x, y) => x - y);
      expect(versions[19]! - versions[0]!).to.equal(19);
      expect(new Set(versions).size).to.equal(20);
      const names = await w.api('GET', `/projects/${p}/stories?fields=name`, { as: w.owner });
      expect(names.json.map((s: { name: string }) => s.name).sort()).to.deep.equal(stories.map((_, i) => `renamed ${i}`).sort());
    });
  });

  describe('owners and labels of a story', () => {
    it('lists, adds and removes owners', async () => {
      const p = await projectWithTeam();
      const s = await create(p, { name: 'owned' });
      const added = await w.api('POST', `/projects/${p}/stories/${s.id}/owners`, { as: bob, body: { id: String(bob.id) } });
      expect(added.status).to.equal(200);
      expect(added.json).to.include({ kind: 'person', id: bob.id, name: 'Bob' });
      await w.api('POST', `/projects/${p}/stories/${s.id}/owners`, { as: bob, body: { id: w.owner.id } });
      const list = await w.api('GET', `/projects/${p}/stories/${s.id}/owners`, { as: vera });
      expect(list.json.map((o: { id: number }) => o.id)).to.deep.equal([bob.id, w.owner.id]);
      const stranger_ = await w.api('POST', `/projects/${p}/stories/${s.id}/owners`, { as: bob, body: { id: stranger.id } });
      expect(stranger_.status).to.equal(400);
      expect((await w.api('POST', `/projects/${p}/stories/${s.id}/owners`, { as: bob, body: {} })).json.validation_errors[0]).to.deep.equal({
        field: 'id',
        problem: 'this endpoint requires the parameter: id',
      });
      const removed = await w.api('DELETE', `/projects/${p}/stories/${s.id}/owners/${bob.id}`, { as: bob });
      expect(removed.status).to.equal(204);
      const story = await w.api('GET', `/projects/${p}/stories/${s.id}`, { as: bob });
      expect(story.json).to.include({ owned_by_id: w.owner.id });
      expect((await w.api('DELETE', `/projects/${p}/stories/${s.id}/owners/${bob.id}`, { as: bob })).status).to.equal(404);
    });

    it('lists, adds (by id or name) and removes labels, answering the removed label', async () => {
      const p = await projectWithTeam();
      const s = await create(p, { name: 'labelled', labels: ['first'] });
      const byName = await w.api('POST', `/projects/${p}/stories/${s.id}/labels`, { as: bob, body: { name: 'New One' } });
      expect(byName.status).to.equal(200);
      expect(byName.json).to.include({ kind: 'label', name: 'new one', project_id: p });
      const other = await w.api('POST', `/projects/${p}/labels`, { as: bob, body: { name: 'other' } });
      const byId = await w.api('POST', `/projects/${p}/stories/${s.id}/labels`, { as: bob, body: { id: other.json.id } });
      expect(byId.json.id).to.equal(other.json.id);
      const list = await w.api('GET', `/projects/${p}/stories/${s.id}/labels`, { as: vera });
      expect(list.json.map((l: { name: string }) => l.name)).to.deep.equal(['first', 'new one', 'other']);
      const removed = await w.api('DELETE', `/projects/${p}/stories/${s.id}/labels/${byName.json.id}`, { as: bob });
      expect(removed.status).to.equal(200);
      expect(removed.json).to.include({ id: byName.json.id, name: 'new one' });
      expect((await w.api('DELETE', `/projects/${p}/stories/${s.id}/labels/${byName.json.id}`, { as: bob })).status).to.equal(404);
      expect((await w.api('POST', `/projects/${p}/stories/${s.id}/labels`, { as: bob, body: {} })).status).to.equal(400);
    });
  });

  describe('moving to another project', () => {
    it('moves a story with its tasks and labels, needing write access to both projects', async () => {
      const source = await projectWithTeam();
      const target = await w.project({ point_scale: '0,1,2,3,5,8' });
      await w.member(target, vera, 'member');
      const staying = (await create(target, { name: 'already there' })).id;
      const s = await create(source, { name: 'traveller', labels: ['luggage'], estimate: 3, current_state: 'unstarted', tasks: [{ description: 'pack' }] });
      const sourceVersion = Number((await w.api('GET', `/projects/${source}`, { as: w.owner })).json.version);

      const denied = await w.api('PUT', `/projects/${source}/stories/${s.id}`, { as: bob, body: { project_id: target } });
      expect(denied.status).to.equal(403);
      const mixed = await w.api('PUT', `/projects/${source}/stories/${s.id}`, { as: w.owner, body: { project_id: target, name: 'x' } });
      expect(mixed.status).to.equal(400);

      const moved = await w.api('PUT', `/stories/${s.id}`, { as: w.owner, body: { project_id: String(target) } });
      expect(moved.status, moved.text).to.equal(200);
      expect(moved.json).to.include({ id: s.id, project_id: target, name: 'traveller', estimate: 3 });
      expect(moved.json.labels.map((l: { name: string; project_id: number }) => [l.name, l.project_id])).to.deep.equal([['luggage', target]]);
      expect(Number(moved.headers['x-tracker-project-version'])).to.equal(Number((await w.api('GET', `/projects/${target}`, { as: w.owner })).json.version));

      expect((await w.api('GET', `/projects/${source}/stories/${s.id}`, { as: w.owner })).status).to.equal(404);
      expect(Number((await w.api('GET', `/projects/${source}`, { as: w.owner })).json.version)).to.equal(sourceVersion + 1);
      expect(await order(target)).to.deep.equal([s.id, staying]);
      const tasks = await w.api('GET', `/projects/${target}/stories/${s.id}/tasks`, { as: vera });
      expect(tasks.json.map((t: { description: string }) => t.description)).to.deep.equal(['pack']);
      expect((await w.api('GET', `/stories/${s.id}?fields=project_id`, { as: vera })).json.project_id).to.equal(target);
      const sourceLabels = await w.api('GET', `/projects/${source}/labels?fields=name,counts`, { as: w.owner });
      expect(sourceLabels.json[0].counts.number_of_stories_by_state.unstarted).to.equal(0);
    });

    it('refuses a story the target project cannot hold', async () => {
      const source = await projectWithTeam();
      const target = await w.project({ point_scale: '0,1,2' });
      const s = await create(source, { name: 'big', estimate: 3 });
      const res = await w.api('PUT', `/projects/${source}/stories/${s.id}`, { as: w.owner, body: { project_id: target } });
      expect(res.status).to.equal(400);
      expect(res.json.validation_errors[0].field).to.equal('estimate');
      expect((await w.api('GET', `/projects/${source}/stories/${s.id}`, { as: w.owner })).status).to.equal(200);
    });
  });
});
