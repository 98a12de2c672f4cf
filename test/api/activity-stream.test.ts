// The live activity stream (GET /projects/{id}/activity/stream, Server-Sent Events) over HTTP on the real
// composition root: each version's event is the activity item the feed shows for it, live events arrive
// after the write that made them, a client resumes from Last-Event-ID (or since_version) with no gap and
// no duplicate, across a restart too; access as the feed's, limits answered 429, keep-alive comments,
// streams ended by a membership removal and by the server's close.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createLog } from '../../src/infra/log.js';
import { openEventStream, type OpenedStream, type StreamEvent } from './support/event-stream-client.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';
import { waitUntil } from './support/wait-until.js';

type Json = Record<string, any>;

describe('the live activity stream', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let projectId: number;
  const open: OpenedStream[] = [];

  async function stream(options: { as?: PersonHandle | null; headers?: Record<string, string>; query?: string; project?: number; on?: StorylineApp } = {}): Promise<OpenedStream> {
    const as = options.as === undefined ? owner : options.as;
    const target = options.on ?? app;
    const headers = { ...options.headers, ...(as ? { 'X-TrackerToken': as.token } : {}) };
    const opened = await openEventStream(target.server.port, `/services/v5/projects/${options.project ?? projectId}/activity/stream${options.query ?? ''}`, headers);
    open.push(opened);
    return opened;
  }

  async function addStory(name: string, on: StorylineApp = app, project = projectId): Promise<number> {
    const res = await on.api('POST', `/projects/${project}/stories`, { as: owner, body: { name } });
    expect(res.status, res.text).to.equal(200);
    return Number(res.headers['x-tracker-project-version']);
  }

  /** The feed's item for one version, as GET /projects/{id}/activity shows it. */
  async function feedItem(version: number, query = '', on: StorylineApp = app): Promise<Json> {
    const res = await on.api('GET', `/projects/${projectId}/activity?since_version=${version - 1}&limit=500${query}`, { as: owner });
    const item = (res.json as Json[]).find((activity) => activity['project_version'] === version);
    expect(item, `version ${version} in the feed`).to.not.equal(undefined);
    return item!;
  }

  function versions(events: readonly StreamEvent[]): number[] {
    return events.map((event) => Number(event.id));
  }

  async function take(opened: OpenedStream, count: number): Promise<StreamEvent[]> {
    const events: StreamEvent[] = [];
    while (events.length < count) events.push(await opened.next());
    return events;
  }

  beforeEach(async () => {
    app = await storylineApp({ env: { STORYLINE_STREAMS_PER_PERSON: '3', STORYLINE_STREAMS_MAX: '5' } });
    owner = await app.person('Olive Owner');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Streamed', new_account_name: 'Streams Inc' } })).json.id;
  });

  afterEach(async () => {
    for (const opened of open.splice(0)) opened.close();
    await app.close();
  });

  it('answers 200 text/event-stream with headers no proxy or cache holds back, and the version it starts at', async () => {
    const opened = await stream();
    expect(opened.status).to.equal(200);
    expect(opened.headers['content-type']).to.equal('text/event-stream; charset=utf-8');
    expect(opened.headers['cache-control']).to.equal('no-cache, no-transform');
    expect(opened.headers['x-accel-buffering']).to.equal('no');
    expect(opened.headers['content-length']).to.equal(undefined);
    expect(opened.headers['etag']).to.equal(undefined);
    expect(opened.headers['access-control-allow-origin']).to.equal('*');
    expect(opened.headers['x-tracker-project-version']).to.equal('1');
  });

  it('sends each new version as the activity item the feed shows for it, after the write that made it', async () => {
    const opened = await stream();
    const first = await addStory('Live one');
    const second = await addStory('Live two');
    const events = await take(opened, 2);
    expect(versions(events)).to.deep.equal([first, second]);
    for (const event of events) {
      expect(event.event).to.equal('activity');
      expect(event.data).to.not.include('\n');
      expect(JSON.parse(event.data)).to.deep.equal(await feedItem(Number(event.id)));
    }
    expect(JSON.parse(events[0]!.data)).to.include({ kind: 'story_create_activity', guid: `${projectId}_${first}` });
  });

  it('renders items with the fields and date_format the reader asks for, as the feed does', async () => {
    const opened = await stream({ query: '?date_format=millis&fields=project_version,occurred_at,performed_by_id' });
    const version = await addStory('Shaped');
    const event = await opened.next();
    expect(JSON.parse(event.data)).to.deep.equal(await feedItem(version, '&date_format=millis&fields=project_version,occurred_at,performed_by_id'));
    expect(JSON.parse(event.data)).to.have.all.keys('project_version', 'occurred_at', 'performed_by_id');
  });

  it('resumes after Last-Event-ID: every later version in order, then the live ones, no gap and no duplicate', async () => {
    const made = [await addStory('a'), await addStory('b'), await addStory('c')];
    const opened = await stream({ headers: { 'Last-Event-ID': String(made[0]) } });
    const live = await addStory('d');
    const events = await take(opened, 3);
    expect(versions(events)).to.deep.equal([made[1], made[2], live]);
    expect(JSON.parse(events[0]!.data)).to.deep.equal(await feedItem(made[1]!));
    await addStory('e');
    expect(versions([await opened.next()])).to.deep.equal([live + 1]);
    expect(opened.pending).to.deep.equal([]);
  });

  it('takes since_version as the starting point, Last-Event-ID over it when both are sent (a reconnecting EventSource)', async () => {
    const made = [await addStory('a'), await addStory('b'), await addStory('c')];
    const bySince = await stream({ query: `?since_version=${made[1]}` });
    expect(versions([await bySince.next()])).to.deep.equal([made[2]]);
    const both = await stream({ query: `?since_version=0`, headers: { 'Last-Event-ID': String(made[1]) } });
    expect(versions([await both.next()])).to.deep.equal([made[2]]);
    const fromStart = await stream({ query: '?since_version=0' });
    expect(versions(await take(fromStart, made[2]!))).to.deep.equal(Array.from({ length: made[2]! }, (_, i) => i + 1));
  });

  it('leaves out versions no feed shows (a saved search is private) and moves past them', async () => {
    const opened = await stream();
    const saved = await app.api('POST', `/projects/${projectId}/my/searches`, { as: owner, body: { name: 'mine', query: 'label:x' } });
    expect(saved.status).to.equal(200);
    const after = await addStory('after the private one');
    expect(versions([await opened.next()])).to.deep.equal([after]);
    expect(Number(saved.headers['x-tracker-project-version'])).to.equal(after - 1);
  });

  it('accepts the token as a query parameter, which the request log never shows', async () => {
    const lines: string[] = [];
    await app.close();
    app = await storylineApp({ log: createLog('info', (line) => lines.push(line)) });
    owner = await app.person('Olive Owner');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Logged', new_account_name: 'Logs Inc' } })).json.id;
    const opened = await stream({ as: null, query: `?token=${owner.token}&since_version=0` });
    expect(opened.status).to.equal(200);
    expect(Number((await opened.next()).id)).to.equal(1);
    const logged = lines.map((line) => JSON.parse(line) as Json).find((line) => line['message'] === 'request' && String(line['path']).includes('/activity/stream'));
    expect(logged).to.include({ status: 200, path: `/services/v5/projects/${projectId}/activity/stream?since_version=0` });
    expect(lines.join('\n')).to.not.include(owner.token);
  });

  it('follows the feed access: viewers read, outsiders get 403, anonymous callers 401, public projects anyone', async () => {
    const viewer = await app.person('Vera Viewer');
    const outsider = await app.person('Otto Outsider');
    await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: viewer.id, role: 'viewer' } });
    expect((await stream({ as: viewer })).status).to.equal(200);
    const forbidden = await stream({ as: outsider });
    expect(forbidden.status).to.equal(403);
    expect(forbidden.json).to.include({ kind: 'error', code: 'unauthorized_operation' });
    const anonymous = await stream({ as: null });
    expect(anonymous.status).to.equal(401);
    expect(anonymous.json).to.include({ code: 'unauthenticated' });
    expect((await stream({ as: null, project: 999_999 })).status).to.equal(401);
    expect((await stream({ as: outsider, project: 999_999 })).json).to.include({ code: 'unfound_resource' });
    const badToken = await stream({ as: null, query: '?token=nope' });
    expect(badToken.status).to.equal(403);
    expect(badToken.json).to.include({ code: 'invalid_authentication' });

    await app.api('PUT', `/projects/${projectId}`, { as: owner, body: { public: true } });
    const publicStream = await stream({ as: null });
    expect(publicStream.status).to.equal(200);
    const version = await addStory('seen by anyone');
    expect(Number((await publicStream.next()).id)).to.equal(version);
  });

  it('ends a stream whose reader lost access (removed from the project)', async () => {
    const member = await app.person('Mia Member');
    const membership = (await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: member.id, role: 'member' } })).json;
    const opened = await stream({ as: member });
    expect(opened.status).to.equal(200);
    const removed = await app.api('DELETE', `/projects/${projectId}/memberships/${membership.id}`, { as: owner });
    expect(removed.status).to.equal(204);
    expect(await opened.ended).to.equal('end');
  });

  it('ends a stream when its project is deleted, after the delete activity', async () => {
    const opened = await stream();
    const deleted = await app.api('DELETE', `/projects/${projectId}`, { as: owner });
    expect(deleted.status).to.equal(204);
    const event = await opened.next();
    expect(JSON.parse(event.data)).to.include({ kind: 'project_delete_activity' });
    expect(await opened.ended).to.equal('end');
  });

  it('refuses a Last-Event-ID or since_version that is not a version, and time travel, with 400 naming it', async () => {
    const badId = await stream({ headers: { 'Last-Event-ID': 'seven' } });
    expect(badId.status).to.equal(400);
    expect(badId.json).to.include({ kind: 'error', code: 'invalid_parameter' });
    expect(badId.json.validation_errors[0]).to.include({ field: 'Last-Event-ID' });
    const negative = await stream({ query: '?since_version=-2' });
    expect(negative.status).to.equal(400);
    expect(negative.json.validation_errors[0]).to.include({ field: 'since_version' });
    const asOf = await stream({ query: '?as_of_version=1' });
    expect(asOf.status).to.equal(400);
    expect(asOf.json).to.include({ code: 'invalid_parameter' });
    const badFields = await stream({ query: '?fields=((' });
    expect(badFields.status).to.equal(400);
  });

  it('bounds open streams per person and in total with 429 and the error hash, and frees a slot when one closes', async () => {
    const mine = [await stream(), await stream(), await stream()];
    expect(mine.map((opened) => opened.status)).to.deep.equal([200, 200, 200]);
    const fourth = await stream();
    expect(fourth.status).to.equal(429);
    expect(fourth.json).to.include({ kind: 'error', code: 'too_many_requests' });
    expect(fourth.json.general_problem).to.include('at most 3');
    mine[0]!.close();
    await mine[0]!.ended;
    await waitUntil(async () => (await stream()).status === 200);

    const others = await Promise.all(['Ann', 'Bob', 'Cid'].map((name) => app.person(name)));
    for (const person of others) await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: person.id, role: 'viewer' } });
    expect((await stream({ as: others[0]! })).status).to.equal(200);
    expect((await stream({ as: others[1]! })).status).to.equal(200);
    const overTotal = await stream({ as: others[2]! });
    expect(overTotal.status).to.equal(429);
    expect(overTotal.json.general_problem).to.include('limit');
  });

  it('sends a keep-alive comment every heartbeat period, and ends a stream whose token was reset', async () => {
    await app.close();
    app = await storylineApp({ env: { STORYLINE_STREAM_HEARTBEAT_MS: '50' } });
    owner = await app.person('Olive Owner');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Beating', new_account_name: 'Beats Inc' } })).json.id;
    const opened = await stream();
    expect(await opened.nextComment()).to.equal('keep-alive');
    expect(await opened.nextComment()).to.equal('keep-alive');
    // The heartbeat also checks the credentials again: a token reset ends the streams it opened.
    await app.storyline.deps.secrets.rotateToken(owner.id);
    expect(await opened.ended).to.equal('end');
  });

  it('answers HEAD with the stream headers only', async () => {
    const res = await app.server.request('HEAD', `/services/v5/projects/${projectId}/activity/stream`, { headers: { 'X-TrackerToken': owner.token } });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/event-stream; charset=utf-8');
    // HEAD took no slot: the person's three streams still open, the fourth is refused.
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await stream()).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
  });

  it('ends every stream cleanly when the server closes', async () => {
    const opened = await stream();
    await app.storyline.close();
    expect(await opened.ended).to.equal('end');
  });
});

describe('the live activity stream across a restart', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'storyline-stream-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('resumes from Last-Event-ID on the restarted server with no gap and no duplicate', async () => {
    let app = await storylineApp({ dataDir });
    const owner = await app.person('Rita Restart');
    const projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Restarted', new_account_name: 'Restarts' } })).json.id;
    const path = `/services/v5/projects/${projectId}/activity/stream`;
    const before = await openEventStream(app.server.port, path, { 'X-TrackerToken': owner.token });
    for (const name of ['one', 'two']) await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name } });
    const seen = [await before.next(), await before.next()];
    app.storyline.endStreams(); // what serve does first on SIGTERM
    expect(await before.ended).to.equal('end');
    await app.close();

    app = await storylineApp({ dataDir });
    try {
      for (const name of ['three', 'four']) await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name } });
      const after = await openEventStream(app.server.port, path, { 'X-TrackerToken': owner.token, 'Last-Event-ID': seen.at(-1)!.id! });
      await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name: 'five' } });
      const resumed = [await after.next(), await after.next(), await after.next()];
      const all = [...seen, ...resumed].map((event) => Number(event.id));
      expect(all).to.deep.equal([2, 3, 4, 5, 6]);
      expect(resumed.map((event) => JSON.parse(event.data).primary_resources[0].name)).to.deep.equal(['three', 'four', 'five']);
      after.close();
    } finally {
      await app.close();
    }
  });
});
