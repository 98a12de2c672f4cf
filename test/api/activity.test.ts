// The activity feeds over HTTP on a whole in-memory Storyline (the composition root's own app). A
// scripted sequence of real writes through the API — projects, memberships, one story's whole life
// (estimate, start, finish, deliver, accept, reject with a comment, restart, relabel), a story reordered
// and moved to another project, tasks, a project edit, a story deleted — then every feed read back and
// every activity compared whole with what it must say: kind, guid, version, message, highlight, changes
// (nulls explicit, label counts), resources, performer and time.
import { expect } from 'chai';
import { entityTag } from '../../src/api/response-cache.js';
import { streams } from '../../src/domain/events.js';
import type { TestResponse } from './support/http-client.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const SITE = 'http://storyline.test';
const STATES = ['unscheduled', 'unstarted', 'planned', 'started', 'finished', 'delivered', 'accepted', 'rejected'] as const;
type State = (typeof STATES)[number];
type Json = Record<string, unknown>;

/** How a datetime is rendered: ISO 8601 by default, integer ms with date_format=millis. */
type Time = (ms: number) => string | number;
const iso: Time = (ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const millis: Time = (ms) => ms;

interface Person {
  id: number;
  name: string;
  initials: string;
  handle: PersonHandle;
}

interface Story {
  id: number;
  name: string;
  type: string;
}

/** One activity as a feed must show it; its datetimes are left to the format asked for. */
interface Expected {
  projectId: number;
  projectName: string;
  version: number;
  at: number;
  by: Person;
  kind: string;
  message: string;
  highlight: string;
  changes: (t: Time) => Json[];
  primary: Json[];
  secondary?: Json[];
}

/** What a write's activity says, before the feed places it (project, version, time, performer). */
type Said = Omit<Expected, 'projectId' | 'projectName' | 'version' | 'at' | 'by'>;

function shown(e: Expected, t: Time): Json {
  return {
    kind: e.kind,
    guid: `${e.projectId}_${e.version}`,
    project_version: e.version,
    message: e.message,
    highlight: e.highlight,
    changes: e.changes(t),
    primary_resources: e.primary,
    secondary_resources: e.secondary ?? [],
    project: { kind: 'project', id: e.projectId, name: e.projectName },
    performed_by: { kind: 'person', id: e.by.id, name: e.by.name, initials: e.by.initials },
    occurred_at: t(e.at),
  };
}

/** Per-state story counts of a label, `{ started: [stories, points] }`; every other state is zero. */
function counts(spec: Partial<Record<State, [number, number]>>): Json {
  const byState = (pick: (entry: [number, number]) => number) => ({
    kind: 'counts_by_story_state',
    ...Object.fromEntries(STATES.map((state) => [state, spec[state] ? pick(spec[state]) : 0])),
  });
  return {
    kind: 'story_counts',
    number_of_stories_by_state: byState(([stories]) => stories),
    sum_of_story_estimates_by_state: byState(([, points]) => points),
    number_of_zero_point_stories_by_state: byState(() => 0),
  };
}

function storyResource(story: Story): Json {
  return { kind: 'story', id: story.id, name: story.name, story_type: story.type, url: `${SITE}/story/show/${story.id}`, story_priority: 'p3' };
}

function storyHead(story: Story): Json {
  return { kind: 'story', id: story.id, name: story.name, story_type: story.type, story_priority: 'p3' };
}

interface StoryStored {
  projectId: number;
  state: State;
  requester: Person;
  labelIds: number[];
  createdAt: number;
  updatedAt?: number;
}

/** The stored values of a story with no estimate, description or owners; nobody follows it yet (issue 11 item 5). */
function storyValues(t: Time, story: Story, stored: StoryStored): Json {
  return {
    id: story.id, project_id: stored.projectId, name: story.name, story_type: story.type, current_state: stored.state, story_priority: 'p3',
    requested_by_id: stored.requester.id, owner_ids: [], follower_ids: [], label_ids: stored.labelIds, blocked_story_ids: [],
    created_at: t(stored.createdAt), updated_at: t(stored.updatedAt ?? stored.createdAt),
  };
}

/** A story create change: the stored values, the neighbours it was placed between and its label names. */
function storyCreate(story: Story, values: Json, neighbours: { after_id: number | null; before_id: number | null }, labels: string[]): Json {
  return { ...storyHead(story), change_type: 'create', new_values: { ...values, ...neighbours, labels } };
}

function storyUpdate(story: Story, original: Json, next: Json): Json {
  return { ...storyHead(story), change_type: 'update', original_values: original, new_values: next };
}

function labelCounts(label: { id: number; name: string }, before: Json, after: Json): Json {
  return { kind: 'label', change_type: 'update', id: label.id, name: label.name, original_values: { counts: before }, new_values: { counts: after } };
}

function labelIdOf(story: Json): number {
  return (story['labels'] as Json[])[0]!['id'] as number;
}

function versionsOf(res: TestResponse): number[] {
  return (res.json as Array<{ project_version: number }>).map((activity) => activity.project_version);
}

describe('activity feeds over HTTP', function () {
  this.timeout(30_000);
  let app: StorylineApp;
  let alice: Person;
  let bob: Person;
  let carol: Person;
  let rocket: number;
  let moon: number;
  let launch: Story;
  let docs: Story;
  let scratch: Story;
  /** Rocket's activities and Moon's, oldest first. */
  const rocketLog: Expected[] = [];
  const moonLog: Expected[] = [];
  const newestFirst = (log: readonly Expected[]) => [...log].reverse();

  const get = (path: string, as: Person, query: Record<string, string | number | boolean> = {}) => app.api('GET', path, { as: as.handle, query });

  async function person(name: string, initials: string): Promise<Person> {
    const handle = await app.person(name);
    return { id: handle.id, name, initials, handle };
  }

  /** One write a minute after the previous one; answers its body, its time and the version it reports. */
  async function write(as: Person, method: string, path: string, body?: Json, query?: Record<string, string>) {
    app.clock.now += MINUTE;
    const res = await app.api(method, path, { as: as.handle, ...(body ? { body } : {}), ...(query ? { query } : {}) });
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.oneOf([200, 204]);
    return { json: res.json, at: app.clock.now, version: Number(res.headers['x-tracker-project-version']) };
  }

  before(async () => {
    app = await storylineApp({ start: Date.UTC(2025, 4, 20, 9) });
    alice = await person('Alice Adams', 'AA');
    bob = await person('Bob Brown', 'BB');
    carol = await person('Carol Clark', 'CC');

    /** Records the activity a write must have produced in Rocket, checking the version it reported. */
    const inRocket = (reported: number, at: number, by: Person, rest: Said) => {
      const version = rocketLog.length + 1;
      expect(reported, rest.message).to.equal(version);
      rocketLog.push({ projectId: rocket, projectName: 'Rocket', version, at, by, ...rest });
    };
    const inMoon = (at: number, by: Person, rest: Said) => {
      moonLog.push({ projectId: moon, projectName: 'Moon', version: moonLog.length + 1, at, by, ...rest });
    };
    const rocketRef = () => ({ kind: 'project', id: rocket, name: 'Rocket' });
    const moonRef = () => ({ kind: 'project', id: moon, name: 'Moon' });

    // ---- projects and memberships ----
    /** A project created by Alice: the project with its defaults, and her owner membership. */
    const projectCreated = async (name: string, body: Json) => {
      const done = await write(alice, 'POST', '/projects', { name, ...body });
      const projectId = done.json.id as number;
      const accountId = done.json.account_id as number;
      const owner = (await get(`/projects/${projectId}/memberships`, alice)).json[0].id as number;
      const reviewTypes = (await get(`/projects/${projectId}/review_types`, alice)).json as Array<{ id: number; name: string }>;
      const expected: Said = {
        kind: 'project_create_activity',
        message: 'Alice Adams created this project',
        highlight: 'created',
        changes: (t) => [
          {
            kind: 'project', change_type: 'create', id: projectId, name,
            new_values: {
              iteration_length: 1, week_start_day: 'Monday', point_scale: '0,1,2,3', bugs_and_chores_are_estimatable: false,
              automatic_planning: true, enable_tasks: true, show_story_priority: true, show_priority_icon: false,
              show_priority_icon_in_all_panels: false, velocity_averaged_over: 3, number_of_done_iterations_to_show: 12,
              initial_velocity: 10, enable_incoming_emails: true, public: false, atom_enabled: false, join_as: 'member',
              point_scale_is_custom: false, time_zone: { kind: 'time_zone', olson_name: 'Etc/UTC', offset: '+00:00' },
              project_type: 'private', enable_following: true, has_ext_domain: false, name, id: projectId, account_id: accountId,
              created_at: t(done.at), updated_at: t(done.at),
            },
          },
          {
            kind: 'project_membership', change_type: 'create', id: owner, name: 'Alice Adams',
            new_values: {
              id: owner, project_id: projectId, person_id: alice.id, role: 'owner', project_color: '8100ea', favorite: false,
              wants_comment_notification_emails: true, will_receive_mention_notifications_or_emails: true,
              created_at: t(done.at), updated_at: t(done.at),
            },
          },
          // the default review types a project starts with
          ...reviewTypes.map(({ id, name: typeName }) => ({
            kind: 'review_type', change_type: 'create', id, name: typeName,
            new_values: { id, project_id: projectId, name: typeName, hidden: false, created_at: t(done.at), updated_at: t(done.at) },
          })),
        ],
        primary: [{ kind: 'project', id: projectId, name }],
      };
      return { ...done, projectId, accountId, expected };
    };
    const created = await projectCreated('Rocket', { new_account_name: 'Space' });
    rocket = created.projectId;
    inRocket(created.version, created.at, alice, created.expected);
    const moonCreated = await projectCreated('Moon', { account_id: created.accountId });
    moon = moonCreated.projectId;
    inMoon(moonCreated.at, alice, moonCreated.expected);

    const membershipCreate = (membership: Json, member: Person, projectId: number, color: string, at: number) => (t: Time) => [
      {
        kind: 'project_membership', change_type: 'create', id: membership['id'], name: member.name,
        new_values: {
          id: membership['id'], project_id: projectId, person_id: member.id, role: membership['role'], project_color: color, favorite: false,
          wants_comment_notification_emails: true, will_receive_mention_notifications_or_emails: true, created_at: t(at), updated_at: t(at),
        },
      },
    ];
    const bobJoins = await write(alice, 'POST', `/projects/${rocket}/memberships`, { person_id: bob.id, role: 'member' });
    inRocket(bobJoins.version, bobJoins.at, alice, {
      kind: 'project_membership_create_activity',
      message: 'Alice Adams added Bob Brown to this project as a member',
      highlight: 'added',
      changes: membershipCreate(bobJoins.json, bob, rocket, '1d8be6', bobJoins.at),
      primary: [{ kind: 'project_membership', id: bobJoins.json.id, name: 'Bob Brown' }],
      secondary: [rocketRef()],
    });
    const bobJoinsMoon = await write(alice, 'POST', `/projects/${moon}/memberships`, { person_id: bob.id, role: 'member' });
    inMoon(bobJoinsMoon.at, alice, {
      kind: 'project_membership_create_activity',
      message: 'Alice Adams added Bob Brown to this project as a member',
      highlight: 'added',
      changes: membershipCreate(bobJoinsMoon.json, bob, moon, '1d8be6', bobJoinsMoon.at),
      primary: [{ kind: 'project_membership', id: bobJoinsMoon.json.id, name: 'Bob Brown' }],
      secondary: [moonRef()],
    });
    const orbitCreated = await write(bob, 'POST', `/projects/${moon}/stories`, { name: 'Orbit' });
    const orbit: Story = { id: orbitCreated.json.id, name: 'Orbit', type: 'feature' };
    inMoon(orbitCreated.at, bob, {
      kind: 'story_create_activity',
      message: 'Bob Brown added this feature',
      highlight: 'added',
      changes: (t) => [
        storyCreate(orbit, storyValues(t, orbit, { projectId: moon, state: 'unscheduled', requester: bob, labelIds: [], createdAt: orbitCreated.at }), { after_id: null, before_id: null }, []),
      ],
      primary: [storyResource(orbit)],
    });
    const carolJoins = await write(alice, 'POST', `/projects/${rocket}/memberships`, { person_id: carol.id, role: 'viewer' });
    const carolMembership = carolJoins.json.id as number;
    inRocket(carolJoins.version, carolJoins.at, alice, {
      kind: 'project_membership_create_activity',
      message: 'Alice Adams added Carol Clark to this project as a viewer',
      highlight: 'added',
      changes: membershipCreate(carolJoins.json, carol, rocket, '2ab500', carolJoins.at),
      primary: [{ kind: 'project_membership', id: carolMembership, name: 'Carol Clark' }],
      secondary: [rocketRef()],
    });

    // ---- one story's life ----
    const launchCreated = await write(alice, 'POST', `/projects/${rocket}/stories`, { name: 'Launch', labels: ['rocket'] });
    launch = { id: launchCreated.json.id, name: 'Launch', type: 'feature' };
    const rocketLabel = { id: launchCreated.json.labels[0].id as number, name: 'rocket' };
    inRocket(launchCreated.version, launchCreated.at, alice, {
      kind: 'story_create_activity',
      message: 'Alice Adams added this feature',
      highlight: 'added',
      changes: (t) => [
        storyCreate(
          launch,
          storyValues(t, launch, { projectId: rocket, state: 'unscheduled', requester: alice, labelIds: [rocketLabel.id], createdAt: launchCreated.at }),
          { after_id: null, before_id: null },
          ['rocket'],
        ),
        {
          kind: 'label', change_type: 'create', id: rocketLabel.id, name: 'rocket',
          new_values: {
            id: rocketLabel.id, project_id: rocket, name: 'rocket', created_at: t(launchCreated.at), updated_at: t(launchCreated.at),
            counts: counts({ unscheduled: [1, 0] }),
          },
        },
      ],
      primary: [storyResource(launch)],
    });
    let launchUpdatedAt = launchCreated.at;

    /**
     * A PUT of Launch. `values` gives the story change's original and new values (updated_at added
     * here); `then` the changes the write records after the story's (label recounts, a comment).
     */
    const launchUpdate = async (
      by: Person,
      body: Json,
      expected: { message: string; highlight: string; values: (t: Time, json: Json, at: number) => [Json, Json]; then: (t: Time, json: Json, at: number) => Json[] },
      query?: Record<string, string>,
    ) => {
      const before = launchUpdatedAt;
      const done = await write(by, 'PUT', `/projects/${rocket}/stories/${launch.id}`, body, query);
      launchUpdatedAt = done.at;
      inRocket(done.version, done.at, by, {
        kind: 'story_update_activity',
        message: expected.message,
        highlight: expected.highlight,
        changes: (t) => {
          const [original, next] = expected.values(t, done.json, done.at);
          return [
            storyUpdate(launch, { ...original, updated_at: t(before) }, { ...next, updated_at: t(done.at) }),
            ...expected.then(t, done.json, done.at),
          ];
        },
        primary: [storyResource(launch)],
      });
      return done;
    };
    /** The rocket label's counts moving from one state to another (Launch, 3 points). */
    const recount = (from: State, to: State) => () => [labelCounts(rocketLabel, counts({ [from]: [1, 3] }), counts({ [to]: [1, 3] }))];
    await launchUpdate(alice, { estimate: 3 }, {
      message: 'Alice Adams estimated this feature as 3 points', highlight: 'estimated',
      values: () => [{ estimate: null }, { estimate: 3 }],
      then: () => [labelCounts(rocketLabel, counts({ unscheduled: [1, 0] }), counts({ unscheduled: [1, 3] }))],
    });
    await launchUpdate(bob, { current_state: 'started', owner_ids: [bob.id] }, {
      message: 'Bob Brown started this feature', highlight: 'started',
      values: () => [
        { current_state: 'unscheduled', owner_ids: [] },
        { current_state: 'started', owner_ids: [bob.id] },
      ],
      then: recount('unscheduled', 'started'),
    });
    await launchUpdate(bob, { current_state: 'finished' }, {
      message: 'Bob Brown finished this feature', highlight: 'finished',
      values: () => [{ current_state: 'started' }, { current_state: 'finished' }],
      then: recount('started', 'finished'),
    });
    await launchUpdate(bob, { current_state: 'delivered' }, {
      message: 'Bob Brown delivered this feature', highlight: 'delivered',
      values: () => [{ current_state: 'finished' }, { current_state: 'delivered' }],
      then: recount('finished', 'delivered'),
    });
    const accepted = await launchUpdate(alice, { current_state: 'accepted' }, {
      message: 'Alice Adams accepted this feature', highlight: 'accepted',
      values: (t, _json, at) => [{ current_state: 'delivered', accepted_at: null }, { current_state: 'accepted', accepted_at: t(at) }],
      then: recount('delivered', 'accepted'),
    });
    expect(Date.parse(accepted.json.accepted_at)).to.equal(accepted.at, 'accepted_at is the time of the accept');

    const carolPromoted = await write(alice, 'PUT', `/projects/${rocket}/memberships/${carolMembership}`, { role: 'member' });
    inRocket(carolPromoted.version, carolPromoted.at, alice, {
      kind: 'project_membership_update_activity',
      message: 'Alice Adams changed the role of Carol Clark to member',
      highlight: 'changed',
      changes: (t) => [
        {
          kind: 'project_membership', change_type: 'update', id: carolMembership, name: 'Carol Clark',
          original_values: { role: 'viewer', updated_at: t(carolJoins.at) }, new_values: { role: 'member', updated_at: t(carolPromoted.at) },
        },
      ],
      primary: [{ kind: 'project_membership', id: carolMembership, name: 'Carol Clark' }],
      secondary: [rocketRef()],
    });

    // Carol rejects with a comment: the comment is created in the same event and she starts following.
    const rejected = await launchUpdate(carol, { current_state: 'rejected', comment: { text: 'Crashes on save' } }, {
      message: 'Carol Clark rejected this feature', highlight: 'rejected',
      values: (t) => [
        { current_state: 'accepted', accepted_at: t(accepted.at), follower_ids: [] },
        { current_state: 'rejected', accepted_at: null, follower_ids: [carol.id] },
      ],
      then: (t, json, at) => {
        const [commentId] = json['comment_ids'] as number[];
        return [
          ...recount('accepted', 'rejected')(),
          {
            kind: 'comment', change_type: 'create', id: commentId,
            new_values: {
              id: commentId, story_id: launch.id, text: 'Crashes on save', person_id: carol.id, created_at: t(at), updated_at: t(at),
              file_attachment_ids: [], ext_attachment_ids: [], attachment_ids: [], file_attachments: [], ext_attachments: [],
            },
          },
        ];
      },
    }, { fields: ':default,comment_ids' });
    expect(rejected.json.comment_ids).to.have.length(1);

    await launchUpdate(bob, { current_state: 'started' }, {
      message: 'Bob Brown restarted this feature', highlight: 'restarted',
      values: () => [{ current_state: 'rejected' }, { current_state: 'started' }],
      then: recount('rejected', 'started'),
    });
    // labels replace: the new label is created with Launch counted, the old one counts it no more
    const relabelled = await launchUpdate(bob, { labels: ['engine'] }, {
      message: 'Bob Brown edited this feature', highlight: 'edited',
      values: (_t, json) => [{ label_ids: [rocketLabel.id], labels: ['rocket'] }, { label_ids: [labelIdOf(json)], labels: ['engine'] }],
      then: (t, json, at) => [
        {
          kind: 'label', change_type: 'create', id: labelIdOf(json), name: 'engine',
          new_values: {
            id: labelIdOf(json), project_id: rocket, name: 'engine', created_at: t(at), updated_at: t(at),
            counts: counts({ started: [1, 3] }),
          },
        },
        labelCounts(rocketLabel, counts({ started: [1, 3] }), counts({})),
      ],
    });
    expect(relabelled.json.labels.map((label: Json) => label['name'])).to.deep.equal(['engine']);

    // ---- a second story: created, reordered ----
    const docsCreated = await write(alice, 'POST', `/projects/${rocket}/stories`, { name: 'Docs', story_type: 'bug', current_state: 'unstarted' });
    docs = { id: docsCreated.json.id, name: 'Docs', type: 'bug' };
    const docsValues = (t: Time, projectId: number, updatedAt: number): Json =>
      storyValues(t, docs, { projectId, state: 'unstarted', requester: alice, labelIds: [], createdAt: docsCreated.at, updatedAt });
    inRocket(docsCreated.version, docsCreated.at, alice, {
      kind: 'story_create_activity',
      message: 'Alice Adams added this bug',
      highlight: 'added',
      // a new unstarted story goes to the bottom of the Backlog: below Launch, above the (empty) Icebox
      changes: (t) => [storyCreate(docs, docsValues(t, rocket, docsCreated.at), { after_id: launch.id, before_id: null }, [])],
      primary: [storyResource(docs)],
    });
    const reordered = await write(alice, 'PUT', `/projects/${rocket}/stories/${docs.id}`, { before_id: launch.id });
    inRocket(reordered.version, reordered.at, alice, {
      kind: 'story_move_activity',
      message: 'Alice Adams moved this bug',
      highlight: 'moved',
      changes: (t) => [
        storyUpdate(docs,
          { before_id: null, after_id: launch.id, updated_at: t(docsCreated.at) },
          { before_id: launch.id, after_id: null, updated_at: t(reordered.at) }),
      ],
      primary: [storyResource(docs)],
    });

    // ---- tasks of Launch ----
    /** A task write by Bob: the task's change, then Launch's updated_at touched. */
    const taskWrite = async (method: string, path: string, body: Json | undefined, said: { kind: string; message: string; highlight: string; change: (t: Time, at: number) => Json }) => {
      const touched = launchUpdatedAt;
      const done = await write(bob, method, `/projects/${rocket}/stories/${launch.id}/tasks${path}`, body);
      launchUpdatedAt = done.at;
      inRocket(done.version, done.at, bob, {
        kind: said.kind,
        message: said.message,
        highlight: said.highlight,
        changes: (t) => [said.change(t, done.at), storyUpdate(launch, { updated_at: t(touched) }, { updated_at: t(done.at) })],
        primary: [storyResource(launch)],
      });
      return done;
    };
    const taskCreated = await taskWrite('POST', '', { description: 'Write changelog' }, {
      kind: 'task_create_activity', message: 'Bob Brown added task: "Write changelog"', highlight: 'added task:',
      change: (t, at) => ({
        kind: 'task', change_type: 'create', id: task, name: 'Write changelog',
        new_values: { id: task, story_id: launch.id, description: 'Write changelog', complete: false, position: 1, created_at: t(at), updated_at: t(at) },
      }),
    });
    const task = taskCreated.json.id as number;
    const completed = await taskWrite('PUT', `/${task}`, { complete: true }, {
      kind: 'task_update_activity', message: 'Bob Brown completed task: "Write changelog"', highlight: 'completed task:',
      change: (t, at) => ({
        kind: 'task', change_type: 'update', id: task, name: 'Write changelog',
        original_values: { complete: false, updated_at: t(taskCreated.at) }, new_values: { complete: true, updated_at: t(at) },
      }),
    });
    const rewritten = await taskWrite('PUT', `/${task}`, { description: 'Write the changelog' }, {
      kind: 'task_update_activity', message: 'Bob Brown rewrote task: "Write the changelog"', highlight: 'rewrote task:',
      change: (t, at) => ({
        kind: 'task', change_type: 'update', id: task, name: 'Write the changelog',
        original_values: { description: 'Write changelog', updated_at: t(completed.at) }, new_values: { description: 'Write the changelog', updated_at: t(at) },
      }),
    });
    await taskWrite('DELETE', `/${task}`, undefined, {
      kind: 'task_delete_activity', message: 'Bob Brown deleted task: "Write the changelog"', highlight: 'deleted task:',
      change: (t) => ({
        kind: 'task', change_type: 'delete', id: task, name: 'Write the changelog',
        original_values: {
          id: task, story_id: launch.id, description: 'Write the changelog', complete: true, position: 1,
          created_at: t(taskCreated.at), updated_at: t(rewritten.at),
        },
      }),
    });

    // ---- Docs moves to Moon: one event in each project ----
    const moved = await write(alice, 'PUT', `/projects/${rocket}/stories/${docs.id}`, { project_id: moon });
    expect(moved.version, 'a move answers the target project version').to.equal(moonLog.length + 1);
    inRocket(rocketLog.length + 1, moved.at, alice, {
      kind: 'story_move_from_project_activity',
      message: 'Alice Adams moved this bug from this project into project "Moon"',
      highlight: 'moved',
      changes: (t) => [{ ...storyHead(docs), change_type: 'delete', original_values: docsValues(t, rocket, reordered.at) }],
      primary: [storyResource(docs)],
      secondary: [moonRef()],
    });
    inMoon(moved.at, alice, {
      kind: 'story_move_into_project_activity',
      message: 'Alice Adams moved this bug into this project from project "Rocket"',
      highlight: 'moved',
      // an unstarted story lands at the bottom of Moon's (empty) Backlog, above Orbit in the Icebox
      changes: (t) => [storyCreate(docs, docsValues(t, moon, moved.at), { after_id: null, before_id: orbit.id }, [])],
      primary: [storyResource(docs)],
      secondary: [rocketRef()],
    });

    // ---- membership removed, project edited ----
    const carolRemoved = await write(alice, 'DELETE', `/projects/${rocket}/memberships/${carolMembership}`);
    inRocket(carolRemoved.version, carolRemoved.at, alice, {
      kind: 'project_membership_delete_activity',
      message: 'Alice Adams removed Carol Clark from this project',
      highlight: 'removed',
      changes: () => [{ kind: 'project_membership', change_type: 'delete', id: carolMembership, name: 'Carol Clark', original_values: { person_id: carol.id, role: 'member' } }],
      primary: [{ kind: 'project_membership', id: carolMembership, name: 'Carol Clark' }],
      secondary: [rocketRef()],
    });
    const edited = await write(alice, 'PUT', `/projects/${rocket}`, { description: 'To the moon' });
    inRocket(edited.version, edited.at, alice, {
      kind: 'project_update_activity',
      message: 'Alice Adams edited this project',
      highlight: 'edited',
      changes: (t) => [
        {
          kind: 'project', change_type: 'update', id: rocket, name: 'Rocket',
          original_values: { description: null, updated_at: t(created.at) }, new_values: { description: 'To the moon', updated_at: t(edited.at) },
        },
      ],
      primary: [{ kind: 'project', id: rocket, name: 'Rocket' }],
    });

    // ---- a labelled story created and deleted ----
    const scratchCreated = await write(alice, 'POST', `/projects/${rocket}/stories`, { name: 'Scratch', story_type: 'chore', labels: ['rocket'] });
    scratch = { id: scratchCreated.json.id, name: 'Scratch', type: 'chore' };
    const scratchValues = (t: Time): Json =>
      storyValues(t, scratch, { projectId: rocket, state: 'unscheduled', requester: alice, labelIds: [rocketLabel.id], createdAt: scratchCreated.at });
    inRocket(scratchCreated.version, scratchCreated.at, alice, {
      kind: 'story_create_activity',
      message: 'Alice Adams added this chore',
      highlight: 'added',
      // the top of the Icebox: below Launch, the last scheduled story
      changes: (t) => [
        storyCreate(scratch, scratchValues(t), { after_id: launch.id, before_id: null }, ['rocket']),
        labelCounts(rocketLabel, counts({}), counts({ unscheduled: [1, 0] })),
      ],
      primary: [storyResource(scratch)],
    });
    const scratchDeleted = await write(alice, 'DELETE', `/projects/${rocket}/stories/${scratch.id}`);
    inRocket(scratchDeleted.version, scratchDeleted.at, alice, {
      kind: 'story_delete_activity',
      message: 'Alice Adams deleted this chore',
      highlight: 'deleted',
      changes: (t) => [
        { ...storyHead(scratch), change_type: 'delete', original_values: scratchValues(t) },
        labelCounts(rocketLabel, counts({ unscheduled: [1, 0] }), counts({})),
      ],
      primary: [storyResource(scratch)],
    });
    app.clock.now += MINUTE;
  });
  after(() => app?.close());

  it('shows every write of a project once, newest first, each activity whole (ISO datetimes by default)', async () => {
    const res = await get(`/projects/${rocket}/activity`, alice);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers['x-tracker-project-version']).to.equal(String(rocketLog.length));
    expect(rocketLog).to.have.length(24);
    const activities = res.json as Json[];
    expect(activities.map((a) => a['project_version'])).to.deep.equal(newestFirst(rocketLog).map((e) => e.version));
    newestFirst(rocketLog).forEach((expected, i) => {
      expect(activities[i], `${expected.version}: ${expected.message}`).to.deep.equal(shown(expected, iso));
      expect(String(activities[i]!['message'])).to.contain(String(activities[i]!['highlight']));
    });
  });

  it('renders every datetime, in changes too, as milliseconds with date_format=millis', async () => {
    const res = await get(`/projects/${rocket}/activity`, alice, { date_format: 'millis' });
    expect(res.json).to.deep.equal(newestFirst(rocketLog).map((e) => shown(e, millis)));
  });

  it('shows a move in both projects, each naming the other', async () => {
    const res = await get(`/projects/${moon}/activity`, bob);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers['x-tracker-project-version']).to.equal(String(moonLog.length));
    expect(res.json).to.deep.equal(newestFirst(moonLog).map((e) => shown(e, iso)));
    const into = (res.json as Json[]).find((a) => a['kind'] === 'story_move_into_project_activity')!;
    expect(into['message']).to.equal('Alice Adams moved this bug into this project from project "Rocket"');
    const rocketFeed = await get(`/projects/${rocket}/activity`, alice);
    const from = (rocketFeed.json as Json[]).find((a) => a['kind'] === 'story_move_from_project_activity')!;
    expect(from['message']).to.equal('Alice Adams moved this bug from this project into project "Moon"');
    expect(from['occurred_at']).to.equal(into['occurred_at']);
  });

  it('returns exactly the newer activities for since_version, in the project and story feeds', async () => {
    for (const since of [0, 1, 11, rocketLog.length - 1, rocketLog.length, rocketLog.length + 5]) {
      const res = await get(`/projects/${rocket}/activity`, alice, { since_version: since });
      const expected = newestFirst(rocketLog).filter((e) => e.version > since).map((e) => e.version);
      expect(versionsOf(res), `since ${since}`).to.deep.equal(expected);
      expect(res.headers['x-tracker-pagination-total']).to.equal(String(expected.length));
    }
    const story = await get(`/projects/${rocket}/stories/${launch.id}/activity`, alice, { since_version: 12 });
    expect(versionsOf(story)).to.deep.equal([19, 18, 17, 16, 13]);
  });

  it('shows a story its own events and those of its tasks and comments, and nothing else', async () => {
    const res = await get(`/projects/${rocket}/stories/${launch.id}/activity`, bob);
    expect(res.status, res.text).to.equal(200);
    const launchVersions = [4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 18, 19];
    expect(res.json).to.deep.equal(newestFirst(rocketLog).filter((e) => launchVersions.includes(e.version)).map((e) => shown(e, iso)));
    const paged = await get(`/projects/${rocket}/stories/${launch.id}/activity`, bob, { limit: 2, offset: 3 });
    expect(versionsOf(paged)).to.deep.equal([16, 13]);
    expect(paged.headers['x-tracker-pagination-total']).to.equal(String(launchVersions.length));
    const deleted = await get(`/projects/${rocket}/stories/${scratch.id}/activity`, alice);
    expect(deleted.status, 'a deleted story has no feed, like the story itself').to.equal(404);
    expect(deleted.json.code).to.equal('unfound_resource');
    const movedAway = await get(`/projects/${moon}/stories/${docs.id}/activity`, alice);
    expect((movedAway.json as Json[]).map((a) => a['message'])).to.deep.equal(['Alice Adams moved this bug into this project from project "Rocket"']);
  });

  it("lists the caller's own actions across their projects in /my/activity, newest first", async () => {
    const res = await get('/my/activity', bob, { limit: 500 });
    expect(res.status, res.text).to.equal(200);
    expect(res.headers['x-tracker-project-version']).to.equal(undefined);
    const mine = [...rocketLog, ...moonLog].filter((e) => e.by.id === bob.id).sort((a, b) => b.at - a.at);
    expect(mine.map((e) => e.projectId)).to.include.members([rocket, moon]);
    expect(res.json).to.deep.equal(mine.map((e) => shown(e, iso)));
    const carols = await get('/my/activity', carol);
    expect(carols.json).to.deep.equal([], 'Carol rejected a story in Rocket but belongs to no project any more');
  });

  it('pages with limit and offset, saying so in the pagination headers and the envelope', async () => {
    const res = await get(`/projects/${rocket}/activity`, alice, { limit: 5, offset: 3 });
    expect(versionsOf(res)).to.deep.equal([21, 20, 19, 18, 17]);
    expect(res.headers['x-tracker-pagination-total']).to.equal('24');
    expect(res.headers['x-tracker-pagination-limit']).to.equal('5');
    expect(res.headers['x-tracker-pagination-offset']).to.equal('3');
    expect(res.headers['x-tracker-pagination-returned']).to.equal('5');
    const enveloped = await get(`/projects/${rocket}/activity`, alice, { limit: 2, envelope: true });
    expect(enveloped.json.http_status).to.equal('200');
    expect(enveloped.json.data).to.deep.equal(newestFirst(rocketLog).slice(0, 2).map((e) => shown(e, iso)));
    expect(enveloped.json.pagination).to.deep.equal({ total: 24, limit: 2, offset: 0, returned: 2 });
    const past = await get(`/projects/${rocket}/activity`, alice, { offset: 1000, envelope: true });
    expect(past.json.data).to.deep.equal([]);
    expect(past.json.pagination).to.deep.equal({ total: 24, limit: 100, offset: 1000, returned: 0 });
    const large = await get(`/projects/${rocket}/activity`, alice, { limit: 10_000 });
    expect(large.headers['x-tracker-pagination-limit']).to.equal('500');
  });

  it('filters on occurred_after and occurred_before (strict), in ISO 8601 or milliseconds', async () => {
    const from = rocketLog[4]!;
    const to = rocketLog[8]!;
    const byIso = await get(`/projects/${rocket}/activity`, alice, { occurred_after: new Date(from.at).toISOString(), occurred_before: new Date(to.at).toISOString() });
    const byMillis = await get(`/projects/${rocket}/activity`, alice, { occurred_after: from.at, occurred_before: to.at });
    expect(versionsOf(byIso)).to.deep.equal([to.version - 1, to.version - 2, to.version - 3]);
    expect(byMillis.text).to.equal(byIso.text);
  });

  it('selects the plain ids with fields', async () => {
    const res = await get(`/projects/${rocket}/activity`, alice, { fields: 'guid,project_id,performed_by_id', limit: 1 });
    expect(res.json).to.deep.equal([{ guid: `${rocket}_24`, project_id: rocket, performed_by_id: alice.id }]);
  });

  it('gives byte-identical JSON when the same events are rendered again, for any reader', async () => {
    const first = await get(`/projects/${rocket}/activity`, alice);
    const again = await get(`/projects/${rocket}/activity`, alice);
    const byBob = await get(`/projects/${rocket}/activity`, bob);
    expect(again.text).to.equal(first.text);
    expect(byBob.text).to.equal(first.text);
  });

  it('answers 400 invalid_parameter for malformed parameters', async () => {
    for (const query of [{ limit: -1 }, { offset: 'x' }, { since_version: '1.5' }, { occurred_before: 'yesterday' }] as Array<Record<string, string | number>>) {
      const res = await get(`/projects/${rocket}/activity`, alice, query);
      expect(res.status, JSON.stringify(query)).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
    }
  });
});

/**
 * No endpoint sets a plan (a self-hosted account has none): an account imported from an enterprise plan
 * is stood in for by the account event such an import appends (the project's version stays).
 */
async function moveToEnterprisePlan(app: Awaited<ReturnType<typeof storylineApp>>, accountId: number): Promise<void> {
  await app.storyline.commands.execute(
    streams.account(accountId),
    () => ({
      type: 'account_update',
      data: {
        changes: [{ kind: 'account', change_type: 'update', id: accountId, original_values: { plan: 'self_hosted' }, new_values: { plan: 'enterprise' } }],
        primary_resources: [{ kind: 'account', id: accountId }],
      },
      subject: { kind: 'account', id: accountId },
    }),
    { commandId: `plan-enterprise-${accountId}`, actorId: null, now: app.clock.now },
  );
}

describe('activity history window', function () {
  this.timeout(30_000);
  const NOW = Date.UTC(2025, 5, 1, 12);

  /** A project written 800, 400, 200 and 10 days ago; answers the versions each feed shows today. */
  async function feedVersions(options: { env?: Record<string, string>; enterprise?: boolean } = {}) {
    const app = await storylineApp({ start: NOW - 800 * DAY, ...(options.env ? { env: options.env } : {}) });
    try {
      const owner = await app.person('Olga Owner');
      const created = await app.api('POST', '/projects', { as: owner, body: { name: 'Old', new_account_name: 'Old Co' } });
      const project = created.json.id as number;
      if (options.enterprise) {
        await moveToEnterprisePlan(app, created.json.account_id as number);
      }
      app.clock.now = NOW - 400 * DAY;
      const story = (await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'Ancient' } })).json.id as number;
      app.clock.now = NOW - 200 * DAY;
      await app.api('PUT', `/projects/${project}/stories/${story}`, { as: owner, body: { estimate: 1 } });
      app.clock.now = NOW - 10 * DAY;
      await app.api('PUT', `/projects/${project}/stories/${story}`, { as: owner, body: { current_state: 'started' } });
      app.clock.now = NOW;
      const feed = await app.api('GET', `/projects/${project}/activity`, { as: owner });
      const mine = await app.api('GET', '/my/activity', { as: owner });
      const storyFeed = await app.api('GET', `/projects/${project}/stories/${story}/activity`, { as: owner });
      return { project: versionsOf(feed), total: feed.headers['x-tracker-pagination-total'], my: versionsOf(mine), story: versionsOf(storyFeed) };
    } finally {
      await app.close();
    }
  }

  it('shows six months to accounts on other plans than enterprise, in every feed', async () => {
    expect(await feedVersions()).to.deep.equal({ project: [4], total: '1', my: [4], story: [4] });
  });

  it('shows 25 months to enterprise accounts', async () => {
    expect(await feedVersions({ enterprise: true })).to.deep.equal({ project: [4, 3, 2], total: '3', my: [4, 3, 2], story: [4, 3, 2] });
  });

  it('serves a repeated page from the byte cache, and pages that follow the window as it moves or the plan changes it', async () => {
    const app = await storylineApp({ start: NOW - 300 * DAY });
    try {
      const owner = await app.person('Olga Owner');
      const created = await app.api('POST', '/projects', { as: owner, body: { name: 'Aging', new_account_name: 'Aging Co' } });
      const project = created.json.id as number;
      app.clock.now = NOW - 170 * DAY;
      const story = (await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'Old enough' } })).json.id as number;
      app.clock.now = NOW - 10 * DAY;
      await app.api('PUT', `/projects/${project}/stories/${story}`, { as: owner, body: { estimate: 2 } });
      const seen = async () => {
        const feed = await app.api('GET', `/projects/${project}/activity`, { as: owner });
        const storyFeed = await app.api('GET', `/projects/${project}/stories/${story}/activity`, { as: owner });
        const performers = [...new Set((feed.json as Array<{ performed_by: { name: string } }>).map((activity) => activity.performed_by.name))];
        const fromCache = feed.headers['etag'] !== entityTag(Buffer.from(feed.text)); // a cached answer carries its key's tag
        return { project: versionsOf(feed), total: feed.headers['x-tracker-pagination-total'], story: versionsOf(storyFeed), performers, fromCache };
      };
      app.clock.now = NOW;
      const first = await seen();
      expect(first).to.deep.include({ project: [3, 2], total: '2', story: [3, 2], performers: ['Olga Owner'] });
      expect(await seen()).to.deep.equal({ ...first, fromCache: true });
      // The performer renames herself (a person event: the project's version stays): pages show the new name.
      await app.storyline.deps.people.updatePerson(owner.id, { name: 'Olga Renamed' }, { commandId: 'rename-olga', actorId: owner.id, now: app.clock.now });
      expect(await seen()).to.deep.include({ project: [3, 2], performers: ['Olga Renamed'] });
      // Twenty days on, nothing written (the same project version): the story's creation has left the window.
      app.clock.now = NOW + 20 * DAY;
      expect(await seen()).to.deep.include({ project: [3], total: '1', story: [3] });
      // The account moves to an enterprise plan (the project's version stays): 25 months again.
      await moveToEnterprisePlan(app, created.json.account_id as number);
      expect(await seen()).to.deep.include({ project: [3, 2, 1], total: '3', story: [3, 2] });
    } finally {
      await app.close();
    }
  });

  it('shows everything when the operator sets no limit', async () => {
    const seen = await feedVersions({ env: { STORYLINE_ACTIVITY_WINDOW_MONTHS: 'unlimited', STORYLINE_ENTERPRISE_ACTIVITY_WINDOW_MONTHS: 'unlimited' } });
    expect(seen.project).to.deep.equal([4, 3, 2, 1]);
  });
});
