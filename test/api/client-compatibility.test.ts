// What an existing Tracker client (the tracker_api gem, the Go and PHP clients) sees when its base URL
// points at Storyline: one client session over HTTP (me, a project, memberships, labels, stories with
// labels, owners and tasks, a release, activity), and for each resource the DEFAULT key set of the facts
// (../shared/reference/tracker-v5-facts.md §12, activity §9.1) with JSON types, plus the transport
// conventions of §1 and §3 (content type, project version header, pagination headers, 200 / 204).
//
// Differences from the facts' key sets that are deliberate (docs/decisions.md, "default key sets"):
// - vendor names are written `ext` (`has_ext_domain`, `has_ext_identity`), as the spec writes them;
// - `me` also carries `accounts` and `twofactor_auth_enabled`, and `project` the three priority-display
//   flags, because the spec lists them and later clients read them from the default response;
// - keys marked `?` are omitted when null (never sent as null); `last_viewed_at` is absent until the
//   person views the project (test/api/last-viewed-at.test.ts).
import { expect } from 'chai';
import type { TestResponse } from './support/http-client.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

type Scalar = 'int' | 'num' | 'str' | 'bool' | 'dt' | 'date' | 'int[]';
type FieldType = Scalar | { one: Resource } | { many: Resource } | { list: 'any' };
/** A resource's `kind` value and its default keys; a key ending in `?` may be omitted (it is then null). */
interface Resource {
  kind: string;
  keys: Readonly<Record<string, FieldType>>;
}

const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const SITE = 'http://storyline.test';

const timeZone: Resource = { kind: 'time_zone', keys: { kind: 'str', olson_name: 'str', offset: 'str' } };
const person: Resource = { kind: 'person', keys: { kind: 'str', id: 'int', name: 'str', email: 'str', initials: 'str', username: 'str' } };
const label: Resource = {
  kind: 'label',
  keys: { kind: 'str', id: 'int', project_id: 'int', name: 'str', created_at: 'dt', updated_at: 'dt' },
};
const story: Resource = {
  kind: 'story',
  keys: {
    kind: 'str', id: 'int', project_id: 'int', name: 'str', 'description?': 'str', story_type: 'str', current_state: 'str',
    'estimate?': 'num', 'accepted_at?': 'dt', 'deadline?': 'dt', requested_by_id: 'int', 'owned_by_id?': 'int',
    owner_ids: 'int[]', labels: { many: label }, created_at: 'dt', updated_at: 'dt', url: 'str', 'story_priority?': 'str',
    'external_id?': 'str', 'integration_id?': 'int',
  },
};
const task: Resource = {
  kind: 'task',
  keys: { kind: 'str', id: 'int', story_id: 'int', description: 'str', complete: 'bool', position: 'int', created_at: 'dt', updated_at: 'dt' },
};
const project: Resource = {
  kind: 'project',
  keys: {
    id: 'int', kind: 'str', name: 'str', version: 'int', iteration_length: 'int', week_start_day: 'str', point_scale: 'str',
    point_scale_is_custom: 'bool', bugs_and_chores_are_estimatable: 'bool', automatic_planning: 'bool', enable_tasks: 'bool',
    time_zone: { one: timeZone }, velocity_averaged_over: 'int', number_of_done_iterations_to_show: 'int',
    has_ext_domain: 'bool', 'description?': 'str', 'profile_content?': 'str', enable_incoming_emails: 'bool',
    initial_velocity: 'int', public: 'bool', atom_enabled: 'bool', project_type: 'str', 'start_date?': 'date',
    start_time: 'dt', created_at: 'dt', updated_at: 'dt', account_id: 'int', current_iteration_number: 'int',
    enable_following: 'bool',
    // Listed by the spec; in the default response of later Tracker versions (decisions.md).
    show_story_priority: 'bool', show_priority_icon: 'bool', show_priority_icon_in_all_panels: 'bool',
  },
};
const membershipSummary: Resource = {
  kind: 'membership_summary',
  keys: {
    kind: 'str', id: 'int', project_id: 'int', project_name: 'str', project_color: 'str', favorite: 'bool', role: 'str',
    'last_viewed_at?': 'dt',
  },
};
const accountSummary: Resource = { kind: 'account_summary', keys: { kind: 'str', id: 'int', name: 'str', status: 'str', plan: 'str' } };
const me: Resource = {
  kind: 'me',
  keys: {
    kind: 'str', id: 'int', name: 'str', initials: 'str', username: 'str', time_zone: { one: timeZone }, api_token: 'str',
    has_ext_identity: 'bool', projects: { many: membershipSummary }, email: 'str', receives_in_app_notifications: 'bool',
    created_at: 'dt', updated_at: 'dt',
    // Listed by the spec; in the default response of later Tracker versions (decisions.md).
    accounts: { many: accountSummary }, twofactor_auth_enabled: 'bool',
  },
};
const projectMembership: Resource = {
  kind: 'project_membership',
  keys: {
    kind: 'str', id: 'int', person: { one: person }, project_id: 'int', role: 'str', project_color: 'str', favorite: 'bool',
    'last_viewed_at?': 'dt', wants_comment_notification_emails: 'bool', will_receive_mention_notifications_or_emails: 'bool',
    created_at: 'dt', updated_at: 'dt',
  },
};
const release: Resource = {
  kind: 'release',
  keys: {
    kind: 'str', id: 'int', created_at: 'dt', updated_at: 'dt', name: 'str', current_state: 'str', url: 'str', project_id: 'int',
    labels: { many: label }, 'deadline?': 'dt',
  },
};
const activityProject: Resource = { kind: 'project', keys: { kind: 'str', id: 'int', name: 'str' } };
const performer: Resource = { kind: 'person', keys: { kind: 'str', id: 'int', name: 'str', initials: 'str' } };
/** §9.1; `kind` is checked separately (`<resource>_<action>_activity`). */
const activityKeys: Record<string, FieldType> = {
  kind: 'str', guid: 'str', project_version: 'int', message: 'str', highlight: 'str', changes: { list: 'any' },
  primary_resources: { list: 'any' }, secondary_resources: { list: 'any' }, project: { one: activityProject },
  performed_by: { one: performer }, occurred_at: 'dt',
};
/** §9.2 change entries (the spec adds `story_priority` on story changes). */
const CHANGE_KEYS = ['kind', 'change_type', 'id', 'original_values', 'new_values', 'name', 'story_type', 'story_priority'];

/** Exactly the default keys (optional ones may be missing, never null), each of its JSON type. */
function expectResource(value: unknown, resource: Resource, where: string): void {
  expect(value, where).to.be.an('object');
  const doc = value as Record<string, unknown>;
  expect(doc['kind'], `${where}: kind`).to.equal(resource.kind);
  expectKeys(doc, resource.keys, where);
}

function expectKeys(doc: Record<string, unknown>, keys: Readonly<Record<string, FieldType>>, where: string): void {
  const declared = Object.keys(keys).map((key) => key.replace(/\?$/, ''));
  const required = Object.keys(keys).filter((key) => !key.endsWith('?'));
  expect(Object.keys(doc).filter((key) => !declared.includes(key)), `${where}: keys beyond the default set`).to.deep.equal([]);
  expect(required.filter((key) => !(key in doc)), `${where}: default keys missing`).to.deep.equal([]);
  for (const [key, type] of Object.entries(keys)) {
    const name = key.replace(/\?$/, '');
    if (name in doc) expectType(doc[name], type, `${where}.${name}`);
  }
}

function expectType(value: unknown, type: FieldType, where: string): void {
  expect(value, `${where} is never null`).to.not.equal(null);
  if (typeof type === 'object') {
    if ('one' in type) return expectResource(value, type.one, where);
    expect(value, where).to.be.an('array');
    if ('many' in type) (value as unknown[]).forEach((item, index) => expectResource(item, type.many, `${where}[${index}]`));
    return;
  }
  switch (type) {
    case 'int':
      expect(Number.isInteger(value), `${where} = ${JSON.stringify(value)} is an integer`).to.equal(true);
      return;
    case 'num':
      expect(value, where).to.be.a('number');
      return;
    case 'str':
      expect(value, where).to.be.a('string');
      return;
    case 'bool':
      expect(value, where).to.be.a('boolean');
      return;
    case 'dt':
      expect(value, where).to.be.a('string').and.match(ISO_SECONDS);
      return;
    case 'date':
      expect(value, where).to.be.a('string').and.match(/^\d{4}-\d{2}-\d{2}$/);
      return;
    case 'int[]':
      expect(value, where).to.be.an('array');
      for (const item of value as unknown[]) expect(Number.isInteger(item), `${where} holds integers`).to.equal(true);
      return;
  }
}

function expectActivity(item: Record<string, unknown>, projectId: number, where: string): void {
  expect(item['kind'], `${where}: kind`).to.be.a('string').and.match(/^[a-z_]+_activity$/);
  expectKeys(item, activityKeys, where);
  expect(item['guid'], `${where}: guid`).to.equal(`${projectId}_${item['project_version']}`);
  for (const [index, change] of (item['changes'] as Array<Record<string, unknown>>).entries()) {
    const at = `${where}.changes[${index}]`;
    expect(Object.keys(change).filter((key) => !CHANGE_KEYS.includes(key)), `${at}: keys`).to.deep.equal([]);
    expect(change['change_type'], at).to.be.oneOf(['create', 'update', 'delete']);
    expect(Number.isInteger(change['id']), `${at}.id`).to.equal(true);
    if (change['change_type'] === 'create') expect(change, `${at}: a create has no original values`).to.not.have.property('original_values');
  }
}

/** §1: every answer is JSON in UTF-8 with the cache and pinger headers, whatever the route. */
function expectJson(res: TestResponse, status = 200): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
  expect(res.headers['cache-control']).to.equal('max-age=0, private, must-revalidate');
  expect(res.headers['x-tracker-client-pinger-interval']).to.equal('20');
}

function projectVersionOf(res: TestResponse): number | undefined {
  const value = res.headers['x-tracker-project-version'];
  if (value === undefined) return undefined;
  expect(value, 'X-Tracker-Project-Version').to.match(/^[0-9]+$/);
  return Number(value);
}

const PAGINATION = ['total', 'limit', 'offset', 'returned'].map((name) => `x-tracker-pagination-${name}`);

function paginationOf(res: TestResponse): Record<string, number> | undefined {
  const present = PAGINATION.filter((name) => res.headers[name] !== undefined);
  if (present.length === 0) return undefined;
  expect(present, 'the four pagination headers come together').to.deep.equal(PAGINATION);
  return Object.fromEntries(PAGINATION.map((name) => [name.replace('x-tracker-pagination-', ''), Number(res.headers[name])]));
}

describe('API: what an existing Tracker client sees', () => {
  let app: StorylineApp;
  let ada: PersonHandle;
  let bob: PersonHandle;
  let projectId: number;
  let checkoutId: number;
  let bareId: number;
  let releaseId: number;
  let taskId: number;
  let bobMembershipId: number;
  const seen: Record<string, TestResponse> = {};

  // The calls a client makes, in a client's order; each answer is kept for the checks below.
  before(async () => {
    app = await storylineApp();
    ada = await app.person('Ada Lovelace');
    bob = await app.person('Bob Builder');
    const call = async (name: string, method: string, path: string, body?: Record<string, unknown>) => {
      seen[name] = await app.api(method, path, { as: ada, ...(body ? { body } : {}) });
      return seen[name];
    };
    projectId = (await call('createProject', 'POST', '/projects', { name: 'Engine', new_account_name: 'Analytical', start_date: '2024-01-01' })).json.id;
    const p = `/projects/${projectId}`;
    bobMembershipId = (await call('createMembership', 'POST', `${p}/memberships`, { person_id: bob.id, role: 'member' })).json.id;
    await call('createLabel', 'POST', `${p}/labels`, { name: 'Backend' });
    checkoutId = (await call('createStory', 'POST', `${p}/stories`, {
      name: 'Checkout', description: 'Pay with a card', estimate: 2, labels: ['backend', { name: 'payments' }], owner_ids: [bob.id],
      tasks: [{ description: 'Wire the gateway' }],
    })).json.id;
    bareId = (await call('createBareStory', 'POST', `${p}/stories`, { name: 'Bare' })).json.id;
    releaseId = (await call('createRelease', 'POST', `${p}/stories`, { name: 'Launch', story_type: 'release', deadline: '2024-02-01T00:00:00Z' })).json.id;
    taskId = (await call('createTask', 'POST', `${p}/stories/${checkoutId}/tasks`, { description: 'Send receipts' })).json.id;
    await call('updateTask', 'PUT', `${p}/stories/${checkoutId}/tasks/${taskId}`, { complete: 'true' });
    await call('updateStory', 'PUT', `${p}/stories/${checkoutId}`, { current_state: 'started' });
    await call('me', 'GET', '/me');
    await call('projects', 'GET', '/projects');
    await call('project', 'GET', p);
    await call('memberships', 'GET', `${p}/memberships`);
    await call('membership', 'GET', `${p}/memberships/${bobMembershipId}`);
    await call('labels', 'GET', `${p}/labels`);
    await call('stories', 'GET', `${p}/stories`);
    await call('story', 'GET', `${p}/stories/${checkoutId}`);
    await call('bareStory', 'GET', `${p}/stories/${bareId}`);
    await call('storyAnywhere', 'GET', `/stories/${checkoutId}`);
    await call('storyLabels', 'GET', `${p}/stories/${checkoutId}/labels`);
    await call('owners', 'GET', `${p}/stories/${checkoutId}/owners`);
    await call('tasks', 'GET', `${p}/stories/${checkoutId}/tasks`);
    await call('task', 'GET', `${p}/stories/${checkoutId}/tasks/${taskId}`);
    await call('releases', 'GET', `${p}/releases`);
    await call('release', 'GET', `${p}/releases/${releaseId}`);
    await call('activity', 'GET', `${p}/activity`);
    await call('storyActivity', 'GET', `${p}/stories/${checkoutId}/activity`);
    await call('myActivity', 'GET', '/my/activity');
  });
  after(() => app.close());

  it('answers creates with 200 and the created resource in its default shape', () => {
    const created: Array<[string, Resource]> = [
      ['createProject', project], ['createMembership', projectMembership], ['createLabel', label], ['createStory', story],
      ['createBareStory', story], ['createRelease', story], ['createTask', task],
    ];
    for (const [name, resource] of created) {
      expectJson(seen[name]!);
      expectResource(seen[name]!.json, resource, name);
    }
  });

  it('serves /me with the default keys, the token and the membership summaries', () => {
    const res = seen['me']!;
    expectJson(res);
    expectResource(res.json, me, 'me');
    expect(res.json.api_token).to.equal(ada.token);
    expect(res.json.projects.map((summary: { project_id: number; role: string }) => [summary.project_id, summary.role])).to.deep.equal([[projectId, 'owner']]);
    expect(res.json.projects[0].project_color).to.match(/^[0-9a-f]{6}$/);
  });

  it('serves projects with every boolean present, ints as numbers and the project start as a date', () => {
    expectJson(seen['projects']!);
    expect(seen['projects']!.json).to.have.length(1);
    expectResource(seen['projects']!.json[0], project, 'projects[0]');
    expectJson(seen['project']!);
    expectResource(seen['project']!.json, project, 'project');
    expect(seen['project']!.json).to.include({ start_date: '2024-01-01', week_start_day: 'Monday', point_scale: '0,1,2,3', has_ext_domain: false, public: false });
    expect(seen['project']!.json.version).to.equal(projectVersionOf(seen['project']!));
  });

  it('serves memberships with the nested person', () => {
    expectJson(seen['memberships']!);
    const listed = seen['memberships']!.json as unknown[];
    expect(listed).to.have.length(2);
    listed.forEach((membership, index) => expectResource(membership, projectMembership, `memberships[${index}]`));
    expectJson(seen['membership']!);
    expectResource(seen['membership']!.json, projectMembership, 'membership');
    expect(seen['membership']!.json.person).to.include({ id: bob.id, name: 'Bob Builder', email: bob.email });
  });

  it('serves stories with nested labels, owner ids and the story address; nulls omitted', () => {
    for (const name of ['story', 'storyAnywhere']) {
      expectJson(seen[name]!);
      expectResource(seen[name]!.json, story, name);
      expect(seen[name]!.json).to.include({
        id: checkoutId, current_state: 'started', estimate: 2, description: 'Pay with a card', owned_by_id: bob.id,
        url: `${SITE}/story/show/${checkoutId}`,
      });
      expect(seen[name]!.json.owner_ids).to.deep.equal([bob.id]);
      expect(seen[name]!.json.labels.map((l: { name: string }) => l.name)).to.have.members(['backend', 'payments']);
    }
    const bare = seen['bareStory']!.json;
    expectResource(bare, story, 'bareStory');
    for (const omitted of ['description', 'estimate', 'accepted_at', 'deadline', 'owned_by_id', 'external_id', 'integration_id']) {
      expect(bare, `a story without ${omitted}`).to.not.have.property(omitted);
    }
    expect(bare).to.include({ story_type: 'feature', current_state: 'unscheduled', requested_by_id: ada.id });
    expect(bare.labels).to.deep.equal([]);
    expect(bare.owner_ids).to.deep.equal([]);
    expectJson(seen['stories']!);
    const listed = seen['stories']!.json as Array<{ id: number }>;
    expect(listed.map((s) => s.id)).to.have.members([checkoutId, bareId, releaseId]);
    listed.forEach((s, index) => expectResource(s, story, `stories[${index}]`));
  });

  it('serves labels, story labels, owners and tasks in their default shapes', () => {
    const lists: Array<[string, Resource, number]> = [['labels', label, 2], ['storyLabels', label, 2], ['owners', person, 1], ['tasks', task, 2]];
    for (const [name, resource, count] of lists) {
      expectJson(seen[name]!);
      expect(seen[name]!.json, name).to.have.length(count);
      (seen[name]!.json as unknown[]).forEach((item, index) => expectResource(item, resource, `${name}[${index}]`));
    }
    expectResource(seen['task']!.json, task, 'task');
    expect(seen['tasks']!.json.map((t: { position: number; complete: boolean }) => [t.position, t.complete])).to.deep.equal([[1, false], [2, true]]);
  });

  it('serves releases as release resources with the deadline', () => {
    expectJson(seen['releases']!);
    expect(seen['releases']!.json).to.have.length(1);
    expectResource(seen['releases']!.json[0], release, 'releases[0]');
    expectResource(seen['release']!.json, release, 'release');
    expect(seen['release']!.json).to.include({ id: releaseId, name: 'Launch', deadline: '2024-02-01T00:00:00Z', url: `${SITE}/story/show/${releaseId}` });
  });

  it('serves activity items newest first with the §9.1 keys, one per write, guid = project_version', () => {
    const version = projectVersionOf(seen['activity']!)!;
    expectJson(seen['activity']!);
    const items = seen['activity']!.json as Array<Record<string, unknown>>;
    items.forEach((item, index) => expectActivity(item, projectId, `activity[${index}]`));
    expect(items.map((item) => item['project_version'])).to.deep.equal(Array.from({ length: version }, (_, i) => version - i));
    expect(items.map((item) => item['kind'])).to.deep.equal([
      'story_update_activity', 'task_update_activity', 'task_create_activity', 'story_create_activity', 'story_create_activity',
      'story_create_activity', 'label_create_activity', 'project_membership_create_activity', 'project_create_activity',
    ]);
    expect(items[0]!['performed_by']).to.deep.equal({ kind: 'person', id: ada.id, name: 'Ada Lovelace', initials: 'AL' });
    expect(items[0]!['primary_resources']).to.deep.equal([
      { kind: 'story', id: checkoutId, name: 'Checkout', story_type: 'feature', url: `${SITE}/story/show/${checkoutId}`, story_priority: 'p3' },
    ]);
    for (const name of ['storyActivity', 'myActivity']) {
      expectJson(seen[name]!);
      (seen[name]!.json as Array<Record<string, unknown>>).forEach((item, index) => expectActivity(item, projectId, `${name}[${index}]`));
    }
  });

  it('sends X-Tracker-Project-Version on project-scoped answers and writes (the version after the write), never on /me, /projects or /my/activity', () => {
    const versions = ['createProject', 'createMembership', 'createLabel', 'createStory', 'createBareStory', 'createRelease', 'createTask', 'updateTask', 'updateStory']
      .map((name) => projectVersionOf(seen[name]!));
    expect(versions).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const name of ['project', 'memberships', 'membership', 'labels', 'stories', 'story', 'storyAnywhere', 'storyLabels', 'owners', 'tasks', 'task', 'releases', 'release', 'activity', 'storyActivity']) {
      expect(projectVersionOf(seen[name]!), name).to.equal(9);
    }
    for (const name of ['me', 'projects', 'myActivity']) expect(seen[name]!.headers, name).to.not.have.property('x-tracker-project-version');
  });

  it('sends the four pagination headers on paginated lists only', () => {
    expect(paginationOf(seen['stories']!)).to.deep.equal({ total: 3, limit: 100, offset: 0, returned: 3 });
    expect(paginationOf(seen['releases']!)).to.deep.equal({ total: 1, limit: 100, offset: 0, returned: 1 });
    expect(paginationOf(seen['activity']!)).to.deep.equal({ total: 9, limit: 100, offset: 0, returned: 9 });
    expect(paginationOf(seen['storyActivity']!)).to.include({ limit: 100, offset: 0 });
    expect(paginationOf(seen['myActivity']!)).to.deep.equal({ total: 9, limit: 100, offset: 0, returned: 9 });
    for (const name of ['projects', 'labels', 'storyLabels', 'owners', 'tasks', 'me', 'project', 'story', 'task', 'release', 'membership']) {
      expect(paginationOf(seen[name]!), name).to.equal(undefined);
    }
  });

  it('answers ETags on GETs, and stays in shape with date_format=millis (datetimes as integer ms)', async () => {
    for (const name of ['me', 'project', 'stories', 'story', 'activity']) expect(seen[name]!.headers['etag'], name).to.be.a('string');
    const res = await app.api('GET', `/projects/${projectId}/stories/${checkoutId}`, { as: ada, query: { date_format: 'millis' } });
    expectJson(res);
    const isoStory = seen['story']!.json;
    expect(res.json.created_at).to.equal(Date.parse(isoStory.created_at));
    expect(res.json.labels[0].updated_at).to.equal(Date.parse(isoStory.labels[0].updated_at));
    expect({ ...res.json, created_at: isoStory.created_at, updated_at: isoStory.updated_at, labels: isoStory.labels }).to.deep.equal(isoStory);
  });

  it('answers failures with the error hash (§4.1) and no project version', async () => {
    const missing = await app.api('GET', `/projects/${projectId}/stories/999999`, { as: ada });
    const invalid = await app.api('POST', `/projects/${projectId}/stories`, { as: ada, body: { name: 'Huge', estimate: 7 } });
    for (const [res, status, code] of [[missing, 404, 'unfound_resource'], [invalid, 400, 'invalid_parameter']] as const) {
      expectJson(res, status);
      expect(res.json).to.include({ kind: 'error', code });
      expect(res.json.error).to.be.a('string');
      expect(Object.keys(res.json).filter((key) => !['kind', 'code', 'error', 'general_problem', 'requirement', 'possible_fix', 'validation_errors'].includes(key))).to.deep.equal([]);
      expect(res.headers).to.not.have.property('x-tracker-project-version');
    }
    expect(invalid.json.validation_errors).to.deep.equal([{ field: 'estimate', problem: invalid.json.validation_errors[0].problem }]);
  });

  it('answers deletes with 204, an empty body and the new project version; every deleted resource is named in the feed', async () => {
    const p = `/projects/${projectId}`;
    const deletes = [`${p}/stories/${checkoutId}/tasks/${taskId}`, `${p}/stories/${checkoutId}`, `${p}/labels/${seen['createLabel']!.json.id}`, `${p}/memberships/${bobMembershipId}`];
    const versions: Array<number | undefined> = [];
    for (const path of deletes) {
      const res = await app.api('DELETE', path, { as: ada });
      expect(res.status, `${path}: ${res.text}`).to.equal(204);
      expect(res.text, path).to.equal('');
      versions.push(projectVersionOf(res));
    }
    expect(versions).to.deep.equal([10, 11, 12, 13]);
    const feed = await app.api('GET', `${p}/activity`, { as: ada, query: { limit: 4 } });
    const items = feed.json as Array<{ kind: string; changes: Array<{ kind: string; change_type: string; name?: unknown }> }>;
    items.forEach((item, index) => expectActivity(item as unknown as Record<string, unknown>, projectId, `after deletes[${index}]`));
    expect(items.map((item) => item.kind)).to.deep.equal([
      'project_membership_delete_activity', 'label_delete_activity', 'story_delete_activity', 'task_delete_activity',
    ]);
    const storyDelete = items[2]!.changes;
    expect(storyDelete.map((change) => [change.kind, change.change_type, change.name])).to.deep.include.members([
      ['story', 'delete', 'Checkout'],
      ['task', 'delete', 'Wire the gateway'],
    ]);
    const project = await app.api('DELETE', p, { as: ada });
    expect(project.status).to.equal(204);
    expect(projectVersionOf(project)).to.equal(14);
  });
});
