// The activity feeds over HTTP: a scripted sequence of writes, then every feed read back.
import { expect } from 'chai';
import type { ApiRequest } from '../../src/api/route-table.js';
import { activityResources } from '../../src/api/resources/activity.js';
import { addMembership, changeMembership, removeMembership } from '../../src/domain/project/membership-decisions.js';
import { updateProject } from '../../src/domain/project/project-decisions.js';
import type { RecordedEvent, ResourceChange, Values } from '../../src/domain/events.js';
import { DAY, SITE, activityWorld, type ActivityWorld } from './activity-world.js';
import {
  commentCreate,
  createStory,
  createTask,
  deleteStory,
  deleteTask,
  labelCreate,
  moveStory,
  moveStoryIn,
  moveStoryOut,
  updateStory,
  updateTask,
} from './activity-script.js';

const V5 = '/services/v5';
const MINUTE = 60_000;
const LAUNCH = 1001;
const DOCS = 1002;
const LABEL = 3001;
const TASK = 4001;
const COMMENT = 5001;

function iso(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** Change values as the API renders them by default: datetimes ISO, everything else as stored. */
function isoValues(values: Values): Values {
  const out: Values = {};
  for (const [key, value] of Object.entries(values)) {
    out[key] = (key.endsWith('_at') || key === 'deadline') && typeof value === 'number' ? iso(value) : value;
  }
  return out;
}

/** What the feed must show for a change: the event's change without `rank`, datetimes ISO. */
function shownChange(change: ResourceChange): Record<string, unknown> {
  const { rank: _rank, ...rest } = change;
  const shown: Record<string, unknown> = { ...rest };
  if (change.original_values) shown['original_values'] = isoValues(change.original_values);
  if (change.new_values) shown['new_values'] = isoValues(change.new_values);
  return shown;
}

interface Step {
  event: RecordedEvent;
  kind: string;
  message: string;
}

describe('activity feeds over HTTP', function () {
  this.timeout(30_000);
  let world: ActivityWorld;
  let alice: number;
  let bob: number;
  let carol: number;
  let project: number;
  let other: number;
  let steps: Step[];
  let start: number;

  const get = (path: string, personId: number, query: Record<string, string | number | boolean> = {}) =>
    world.server.request('GET', `${V5}${path}`, { headers: { 'X-TrackerToken': world.tokenOf(personId) }, query });

  before(async () => {
    world = await activityWorld();
    alice = await world.person('Alice Adams');
    bob = await world.person('Bob Brown');
    carol = await world.person('Carol Clark');
    const account = await world.account('free', alice);
    start = world.clock.now - 10 * DAY;
    let at = start;
    const tick = () => (at += MINUTE);
    project = await world.project('Rocket', account, alice, tick());
    other = await world.project('Moon', account, alice, tick());
    steps = [];
    const step = async (actor: number, kind: string, message: string, decide: Parameters<ActivityWorld['decide']>[3], into = project) => {
      const event = await world.decide(into, actor, tick(), decide);
      if (into === project) steps.push({ event, kind, message });
      return event;
    };
    const projectRef = (id: number, name: string) => ({ kind: 'project', id, name });

    const [created] = await world.eventStore.readStream(`project-${project}`, { from: 1, limit: 1 });
    steps.push({ event: created!, kind: 'project_create_activity', message: 'Alice Adams created this project' });
    await step(alice, 'project_membership_create_activity', 'Alice Adams added Bob Brown to this project as a member',
      addMembership({ personId: bob, role: 'member', personName: 'Bob Brown' }));
    await world.decide(other, alice, tick(), addMembership({ personId: bob, role: 'member', personName: 'Bob Brown' }));
    await world.decide(other, bob, tick(), createStory(1005, other, 'Orbit', 'feature', bob, 'z'));
    await step(alice, 'project_membership_create_activity', 'Alice Adams added Carol Clark to this project as a viewer',
      addMembership({ personId: carol, role: 'viewer', personName: 'Carol Clark' }));
    await step(alice, 'story_create_activity', 'Alice Adams added this feature', createStory(LAUNCH, project, 'Launch', 'feature', alice, 'm'));
    await step(alice, 'story_update_activity', 'Alice Adams estimated this feature as 3 points', updateStory(LAUNCH, { estimate: 3 }));
    await step(bob, 'story_update_activity', 'Bob Brown started this feature', updateStory(LAUNCH, { current_state: 'started', owner_ids: [bob] }));
    await step(bob, 'story_update_activity', 'Bob Brown finished this feature', updateStory(LAUNCH, { current_state: 'finished' }));
    await step(bob, 'story_update_activity', 'Bob Brown delivered this feature', updateStory(LAUNCH, { current_state: 'delivered' }));
    await step(alice, 'story_update_activity', 'Alice Adams rejected this feature',
      updateStory(LAUNCH, { current_state: 'rejected' }, commentCreate(COMMENT, 'Crashes on save', alice)));
    await step(bob, 'story_update_activity', 'Bob Brown restarted this feature', updateStory(LAUNCH, { current_state: 'started' }));
    await step(bob, 'story_update_activity', 'Bob Brown delivered this feature', updateStory(LAUNCH, { current_state: 'delivered' }));
    await step(alice, 'story_update_activity', 'Alice Adams accepted this feature', updateStory(LAUNCH, { current_state: 'accepted', accepted_at: at + MINUTE }));
    await step(alice, 'story_update_activity', 'Alice Adams edited this feature',
      updateStory(LAUNCH, { label_ids: [LABEL], labels: ['ui'] }, labelCreate(LABEL, project, 'ui')));
    await step(alice, 'story_create_activity', 'Alice Adams added this bug', createStory(DOCS, project, 'Docs', 'bug', alice, 'n'));
    await step(alice, 'story_move_activity', 'Alice Adams moved this bug', moveStory(DOCS, { before_id: LAUNCH }, 'l'));
    await step(bob, 'task_create_activity', 'Bob Brown added task: "Write changelog"', createTask(LAUNCH, TASK, 'Write changelog'));
    await step(bob, 'task_update_activity', 'Bob Brown completed a task', updateTask(TASK, { complete: true }));
    await step(bob, 'task_update_activity', 'Bob Brown rewrote task: "Write the changelog"', updateTask(TASK, { description: 'Write the changelog' }));
    await step(bob, 'task_delete_activity', 'Bob Brown deleted task: "Write the changelog"', deleteTask(TASK));
    const docsStory = (await world.runner.collection('stories').findOne({ id: DOCS }))!;
    await step(alice, 'story_move_from_project_activity', 'Alice Adams moved this bug from this project into project "Moon"',
      moveStoryOut(DOCS, projectRef(other, 'Moon')));
    await world.decide(other, alice, tick(), moveStoryIn({ ...docsStory, project_id: other }, projectRef(project, 'Rocket'), 'a'));
    const membership = (await world.runner.collection('project_memberships').findOne({ project_id: project, person_id: carol }))!;
    await step(alice, 'project_membership_update_activity', 'Alice Adams changed the role of a person to member',
      changeMembership({ membershipId: membership.id, request: { role: 'member' }, actorRole: 'owner', actorId: alice }));
    await step(alice, 'project_membership_delete_activity', 'Alice Adams removed a person from this project',
      removeMembership({ membershipId: membership.id, actorRole: 'owner', actorId: alice }));
    await step(alice, 'project_update_activity', 'Alice Adams edited this project', updateProject({ request: { description: 'To the moon' }, takenNames: [] }));
    await step(alice, 'story_delete_activity', 'Alice Adams deleted this feature', deleteStory(LAUNCH));
  });
  after(() => world?.close());

  it('shows every write of the project, newest first, with guid, version, message and changes', async () => {
    const res = await get(`/projects/${project}/activity`, alice);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers['x-tracker-project-version']).to.equal(String(steps.length));
    const activities = res.json as Array<Record<string, any>>;
    expect(activities).to.have.length(steps.length);
    const newestFirst = [...steps].reverse();
    activities.forEach((activity, index) => {
      const { event, message } = newestFirst[index]!;
      const where = `version ${event.version}`;
      expect(event.version, where).to.equal(steps.length - index);
      expect(activity['kind'], where).to.equal(`${event.type}_activity`);
      expect(activity['guid'], where).to.equal(`${project}_${event.version}`);
      expect(activity['project_version'], where).to.equal(event.version);
      expect(activity['message'], where).to.equal(message);
      expect(activity['message'], where).to.contain(activity['highlight']);
      expect(activity['changes'], where).to.deep.equal(event.data.changes.map(shownChange));
      expect(activity['project'], where).to.deep.equal({ kind: 'project', id: project, name: 'Rocket' });
      expect(activity['occurred_at'], where).to.equal(iso(event.meta.occurred_at));
      expect(activity, where).not.to.have.property('id');
    });
  });

  it('renders one activity completely, nulls in changes written out', async () => {
    const rejected = steps.find((s) => s.message === 'Alice Adams rejected this feature')!.event;
    const res = await get(`/projects/${project}/activity`, alice, { since_version: rejected.version - 1, limit: 1, offset: 0, occurred_before: rejected.meta.occurred_at + 1 });
    expect(res.json).to.deep.equal([
      {
        kind: 'story_update_activity',
        guid: `${project}_${rejected.version}`,
        project_version: rejected.version,
        message: 'Alice Adams rejected this feature',
        highlight: 'rejected',
        changes: [
          {
            kind: 'story', change_type: 'update', id: LAUNCH, name: 'Launch', story_type: 'feature',
            original_values: { current_state: 'delivered', updated_at: iso(rejected.meta.occurred_at - MINUTE) },
            new_values: { current_state: 'rejected', updated_at: iso(rejected.meta.occurred_at) },
          },
          {
            kind: 'comment', change_type: 'create', id: COMMENT,
            new_values: { id: COMMENT, story_id: LAUNCH, text: 'Crashes on save', person_id: alice, created_at: iso(rejected.meta.occurred_at), updated_at: iso(rejected.meta.occurred_at), file_attachment_ids: [] },
          },
        ],
        primary_resources: [{ kind: 'story', id: LAUNCH, name: 'Launch', story_type: 'feature', url: `${SITE}/story/show/${LAUNCH}` }],
        secondary_resources: [],
        project: { kind: 'project', id: project, name: 'Rocket' },
        performed_by: { kind: 'person', id: alice, name: 'Alice Adams', initials: 'AA' },
        occurred_at: iso(rejected.meta.occurred_at),
      },
    ]);
    const estimated = steps.find((s) => s.message.includes('estimated'))!.event;
    const estimate = await get(`/projects/${project}/activity`, alice, { since_version: estimated.version - 1, occurred_before: estimated.meta.occurred_at + 1, limit: 1, date_format: 'millis' });
    expect(estimate.json[0].changes[0].original_values).to.deep.equal({ estimate: null, updated_at: estimated.meta.occurred_at - MINUTE });
    expect(estimate.json[0].occurred_at).to.equal(estimated.meta.occurred_at);
  });

  it('names each activity by its kind (checked on the handler result: the kind is per document)', async () => {
    const routes = activityResources({ read: (name) => world.runner.collection(name), eventStore: world.eventStore, settings: { siteUrl: SITE, activityWindowMonths: 6, enterpriseActivityWindowMonths: 25 } }).routes;
    const route = routes.find((r) => r.path === '/projects/:project_id/activity')!;
    const projectDoc = (await world.runner.collection('projects').findOne({ id: project }))!;
    const request: ApiRequest = {
      method: 'GET', params: { project_id: String(project) }, query: {}, body: {}, rawBody: null, header: () => undefined,
      actor: null, project: { id: project, project: projectDoc, role: 'owner', public: false },
      authorizeProject: async () => { throw new Error('not used'); }, commandId: 'c', now: world.clock.now,
    };
    const result = await route.handle(request);
    if (result.kind !== 'resource' || !Array.isArray(result.value)) throw new Error('expected a list');
    expect(result.value.map((doc) => doc['kind'])).to.deep.equal([...steps].reverse().map((s) => s.kind));
  });

  it('returns exactly the newer activities for since_version', async () => {
    for (const since of [0, 5, steps.length - 1, steps.length, steps.length + 3]) {
      const res = await get(`/projects/${project}/activity`, alice, { since_version: since });
      const versions = (res.json as Array<{ project_version: number }>).map((a) => a.project_version);
      const expected = steps.map((s) => s.event.version).filter((v) => v > since).reverse();
      expect(versions, `since ${since}`).to.deep.equal(expected);
      expect(res.headers['x-tracker-pagination-total']).to.equal(String(expected.length));
    }
  });

  it('pages with limit and offset and says so in the pagination headers and envelope', async () => {
    const res = await get(`/projects/${project}/activity`, alice, { limit: 5, offset: 3 });
    expect((res.json as Array<{ project_version: number }>).map((a) => a.project_version)).to.deep.equal(
      [0, 1, 2, 3, 4].map((i) => steps.length - 3 - i),
    );
    expect(res.headers['x-tracker-pagination-total']).to.equal(String(steps.length));
    expect(res.headers['x-tracker-pagination-limit']).to.equal('5');
    expect(res.headers['x-tracker-pagination-offset']).to.equal('3');
    expect(res.headers['x-tracker-pagination-returned']).to.equal('5');
    const past = await get(`/projects/${project}/activity`, alice, { offset: 1000, envelope: true });
    expect(past.json.data).to.deep.equal([]);
    expect(past.json.pagination).to.deep.equal({ total: steps.length, limit: 100, offset: 1000, returned: 0 });
    const large = await get(`/projects/${project}/activity`, alice, { limit: 10_000 });
    expect(large.headers['x-tracker-pagination-limit']).to.equal('500');
  });

  it('filters on occurred_after and occurred_before, in ISO 8601 or milliseconds', async () => {
    const from = steps[4]!.event;
    const to = steps[8]!.event;
    const iso8601 = await get(`/projects/${project}/activity`, alice, { occurred_after: new Date(from.meta.occurred_at).toISOString(), occurred_before: new Date(to.meta.occurred_at).toISOString() });
    const millis = await get(`/projects/${project}/activity`, alice, { occurred_after: from.meta.occurred_at, occurred_before: to.meta.occurred_at });
    const expected = [to.version - 1, to.version - 2, to.version - 3];
    expect((iso8601.json as Array<{ project_version: number }>).map((a) => a.project_version)).to.deep.equal(expected);
    expect(millis.text).to.equal(iso8601.text);
  });

  it('gives identical JSON when the same events are rendered twice', async () => {
    const first = await get(`/projects/${project}/activity`, alice);
    const second = await get(`/projects/${project}/activity`, bob);
    expect(second.text).to.equal(first.text);
  });

  it('shows a story its own events and those of its tasks and comments', async () => {
    // Launch was deleted last: its feed answers 404 like the story itself.
    const deleted = await get(`/projects/${project}/stories/${LAUNCH}/activity`, alice);
    expect(deleted.status).to.equal(404);
    expect(deleted.json.code).to.equal('unfound_resource');

    const moved = await get(`/projects/${other}/stories/${DOCS}/activity`, alice);
    expect(moved.status, moved.text).to.equal(200);
    expect((moved.json as Array<{ message: string }>).map((a) => a.message)).to.deep.equal([
      'Alice Adams moved this bug into this project from project "Rocket"',
    ]);
  });

  it('pages a story feed newest first with since_version', async () => {
    // A fresh story in the other project, with a task: its feed holds exactly its events.
    const story = 1003;
    const at = world.clock.now - DAY;
    const created = await world.decide(other, alice, at, createStory(story, other, 'Land', 'chore', alice, 'b'));
    const task = await world.decide(other, bob, at + MINUTE, createTask(story, 4002, 'Check fuel'));
    await world.decide(other, alice, at + 2 * MINUTE, createStory(1004, other, 'Unrelated', 'feature', alice, 'c'));
    const started = await world.decide(other, bob, at + 3 * MINUTE, updateStory(story, { current_state: 'started' }));
    const feed = await get(`/projects/${other}/stories/${story}/activity`, alice);
    expect((feed.json as Array<{ project_version: number; message: string }>).map((a) => [a.project_version, a.message])).to.deep.equal([
      [started.version, 'Bob Brown started this chore'],
      [task.version, 'Bob Brown added task: "Check fuel"'],
      [created.version, 'Alice Adams added this chore'],
    ]);
    const newer = await get(`/projects/${other}/stories/${story}/activity`, alice, { since_version: task.version });
    expect((newer.json as Array<{ project_version: number }>).map((a) => a.project_version)).to.deep.equal([started.version]);
    const paged = await get(`/projects/${other}/stories/${story}/activity`, alice, { limit: 1, offset: 1 });
    expect((paged.json as Array<{ project_version: number }>).map((a) => a.project_version)).to.deep.equal([task.version]);
    expect(paged.headers['x-tracker-pagination-total']).to.equal('3');
  });

  it('lists what the caller did across their projects in /my/activity', async () => {
    const res = await get('/my/activity', bob, { limit: 500 });
    expect(res.status, res.text).to.equal(200);
    expect(res.headers['x-tracker-project-version']).to.equal(undefined);
    const activities = res.json as Array<{ performed_by: { id: number }; project: { id: number }; guid: string }>;
    expect(activities.length).to.be.greaterThan(0);
    for (const activity of activities) expect(activity.performed_by.id).to.equal(bob);
    const inRocket = activities.filter((a) => a.project.id === project).map((a) => a.guid);
    expect(inRocket).to.deep.equal(
      steps.filter((s) => s.event.meta.performed_by === bob).map((s) => `${project}_${s.event.version}`).reverse(),
    );
    const guids = activities.map((a) => a.guid);
    expect(guids).to.include(`${other}_3`, 'events in every project the caller belongs to');
    const carolsFeed = await get('/my/activity', carol);
    expect(carolsFeed.json).to.deep.equal([], 'Carol did nothing and belongs to no project any more');
  });

  it('answers 400 invalid_parameter for malformed parameters', async () => {
    const malformed: Array<Record<string, string | number>> = [{ limit: -1 }, { offset: 'x' }, { since_version: '1.5' }, { occurred_before: 'yesterday' }];
    for (const query of malformed) {
      const res = await get(`/projects/${project}/activity`, alice, query);
      expect(res.status, JSON.stringify(query)).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
    }
  });
});

describe('activity history window', function () {
  this.timeout(30_000);

  async function feedVersions(plan: string, settings: { activityWindowMonths: number | null; enterpriseActivityWindowMonths: number | null }) {
    const world = await activityWorld(settings);
    try {
      const owner = await world.person('Olga Owner');
      const account = await world.account(plan, owner);
      const now = world.clock.now;
      const project = await world.project('Old', account, owner, now - 800 * DAY);
      await world.decide(project, owner, now - 400 * DAY, createStory(2001, project, 'Ancient', 'feature', owner, 'a'));
      await world.decide(project, owner, now - 200 * DAY, updateStory(2001, { estimate: 1 }));
      await world.decide(project, owner, now - 10 * DAY, updateStory(2001, { current_state: 'started' }));
      const res = await world.server.request('GET', `${V5}/projects/${project}/activity`, { headers: { 'X-TrackerToken': world.tokenOf(owner) } });
      const mine = await world.server.request('GET', `${V5}/my/activity`, { headers: { 'X-TrackerToken': world.tokenOf(owner) } });
      const story = await world.server.request('GET', `${V5}/projects/${project}/stories/2001/activity`, { headers: { 'X-TrackerToken': world.tokenOf(owner) } });
      const versions = (body: unknown) => (body as Array<{ project_version: number }>).map((a) => a.project_version);
      return { project: versions(res.json), total: res.headers['x-tracker-pagination-total'], my: versions(mine.json), story: versions(story.json) };
    } finally {
      await world.close();
    }
  }

  it('shows six months to non-enterprise accounts, in every feed', async () => {
    const seen = await feedVersions('free', { activityWindowMonths: 6, enterpriseActivityWindowMonths: 25 });
    expect(seen).to.deep.equal({ project: [4], total: '1', my: [4], story: [4] });
  });

  it('shows 25 months to enterprise accounts', async () => {
    const seen = await feedVersions('enterprise', { activityWindowMonths: 6, enterpriseActivityWindowMonths: 25 });
    expect(seen).to.deep.equal({ project: [4, 3, 2], total: '3', my: [4, 3, 2], story: [4, 3, 2] });
  });

  it('shows everything when the operator sets no limit', async () => {
    const seen = await feedVersions('free', { activityWindowMonths: null, enterpriseActivityWindowMonths: null });
    expect(seen.project).to.deep.equal([4, 3, 2, 1]);
  });
});
