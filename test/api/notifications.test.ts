import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideCreateBlocker } from '../../src/domain/blocker/create-blocker.js';
import { decideCreateComment } from '../../src/domain/comment/create-comment.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2024, 0, 10, 12);

interface Team {
  app: StorylineApp;
  olivia: PersonHandle;
  bob: PersonHandle;
  carl: PersonHandle;
  vera: PersonHandle;
  project: number;
}

async function team(dataDir?: string): Promise<Team> {
  const app = await storylineApp(dataDir ? { dataDir } : {});
  const olivia = await app.person('Olivia Owner');
  const bob = await app.person('Bob Member');
  const carl = await app.person('Carl Member');
  const vera = await app.person('Vera Viewer');
  const created = await app.api('POST', '/projects', { as: olivia, body: { name: 'Notified', new_account_name: 'Acme' } });
  expect(created.status, created.text).to.equal(200);
  const project = created.json.id as number;
  for (const [person, role] of [[bob, 'member'], [carl, 'member'], [vera, 'viewer']] as const) {
    const res = await app.api('POST', `/projects/${project}/memberships`, { as: olivia, body: { person_id: person.id, role } });
    expect(res.status, res.text).to.equal(200);
  }
  return { app, olivia, bob, carl, vera, project };
}

/** Waits until the notifications reaction has handled everything appended so far (never a sleep). */
async function settled(app: StorylineApp): Promise<void> {
  await app.storyline.reactions.waitFor(await app.storyline.eventStore.headPosition(), 'notifications');
}

async function notificationsOf(app: StorylineApp, person: PersonHandle, query = ''): Promise<Array<Record<string, any>>> {
  await settled(app);
  const res = await app.api('GET', `/my/notifications${query}`, { as: person });
  expect(res.status, res.text).to.equal(200);
  return res.json;
}

async function story(t: Team, as: PersonHandle, body: Record<string, unknown>): Promise<number> {
  const res = await t.app.api('POST', `/projects/${t.project}/stories`, { as, body });
  expect(res.status, res.text).to.equal(200);
  return res.json.id;
}

async function update(t: Team, as: PersonHandle, storyId: number, body: Record<string, unknown>): Promise<void> {
  const res = await t.app.api('PUT', `/projects/${t.project}/stories/${storyId}`, { as, body });
  expect(res.status, res.text).to.equal(200);
}

/** Comments are not served over HTTP on this branch yet: written through the one writer, as the route will. */
async function comment(t: Team, as: PersonHandle, storyId: number, text: string, mentioned: PersonHandle[] = []): Promise<number> {
  const command = { story_id: storyId, text, mentioned_people: mentioned.map((p) => ({ username: `u${p.id}`, person_id: p.id })) };
  const meta = { commandId: randomUUID(), actorId: as.id, now: t.app.clock.now };
  const { doc } = await t.app.storyline.deps.writer.onProject(t.project, decideCreateComment, command, meta);
  return doc.id;
}

const summary = (n: Record<string, any>) => `${n.notification_type}/${n.action}/${n.story?.id ?? n.epic?.id}`;

describe('API: notifications', () => {
  let t: Team;
  beforeEach(async () => {
    t = await team();
  });
  afterEach(() => t.app.close());

  it('tells new owners of their ownership, with the default keys and types, never the performer', async () => {
    const s = await story(t, t.olivia, { name: 'Ship it', owner_ids: [t.olivia.id, t.bob.id] });
    const [notification, ...others] = await notificationsOf(t.app, t.bob);
    expect(others).to.deep.equal([]);
    expect(notification).to.deep.equal({
      kind: 'notification',
      id: notification!.id,
      project: { kind: 'project', id: t.project, name: 'Notified' },
      performer: { kind: 'person', id: t.olivia.id, name: 'Olivia Owner' },
      message: 'Olivia Owner made you an owner of this story',
      notification_type: 'story',
      new_attachment_count: 0,
      action: 'ownership',
      story: { kind: 'story', id: s, name: 'Ship it' },
      created_at: '2024-01-10T12:00:00Z',
      updated_at: '2024-01-10T12:00:00Z',
    });
    expect(notification!.id).to.be.a('number');
    expect(await notificationsOf(t.app, t.olivia)).to.deep.equal([]);

    t.app.clock.now += 60_000;
    await update(t, t.bob, s, { owner_ids: [t.olivia.id, t.bob.id, t.carl.id] });
    expect((await notificationsOf(t.app, t.carl)).map(summary)).to.deep.equal([`story/ownership/${s}`]);
    expect((await notificationsOf(t.app, t.olivia)).map(summary)).to.deep.equal([]);
  });

  it('tells owners of a rejection and an acceptance, and the requester of a delivery', async () => {
    const s = await story(t, t.bob, { name: 'Bug', story_type: 'bug', current_state: 'started', owner_ids: [t.carl.id] });
    await update(t, t.carl, s, { current_state: 'finished' });
    await update(t, t.carl, s, { current_state: 'delivered' });
    expect((await notificationsOf(t.app, t.bob)).map(summary)).to.deep.equal([`story/delivery/${s}`]);
    await update(t, t.olivia, s, { current_state: 'rejected', comment: { text: 'Not yet' } });
    const carl = await notificationsOf(t.app, t.carl);
    expect(carl.map(summary)).to.deep.equal([`story/rejection/${s}`, `story/ownership/${s}`]);
    expect(carl[0]!.message).to.equal('Olivia Owner rejected this story');
    // the requester follows the story: told of the rejection's comment, not of the rejection itself
    const bob = await notificationsOf(t.app, t.bob);
    expect(bob.map(summary)).to.deep.equal([`comment/create/${s}`, `story/delivery/${s}`]);
    expect(bob[0]).to.include({ context: 'Not yet', message: 'Olivia Owner commented on this story' });
    expect(bob[0]!.comment_id).to.be.a('number');
    await update(t, t.carl, s, { current_state: 'started' });
    await update(t, t.carl, s, { current_state: 'finished' });
    await update(t, t.carl, s, { current_state: 'delivered' });
    await update(t, t.bob, s, { current_state: 'accepted' });
    expect((await notificationsOf(t.app, t.carl)).map(summary)[0]).to.equal(`story/acceptance/${s}`);
  });

  it('tells a mentioned person with comment_with_mention and the other followers with comment', async () => {
    const s = await story(t, t.bob, { name: 'Talk', owner_ids: [t.carl.id] });
    const c = await comment(t, t.olivia, s, `@u${t.bob.id} have a look`, [t.bob]);
    const bob = await notificationsOf(t.app, t.bob);
    expect(bob.map(summary)).to.deep.equal([`comment_with_mention/create/${s}`]);
    expect(bob[0]).to.include({ message: 'You were mentioned by Olivia Owner', context: `@u${t.bob.id} have a look`, comment_id: c, action: 'create' });
    expect((await notificationsOf(t.app, t.carl)).map(summary)).to.deep.equal([`comment/create/${s}`, `story/ownership/${s}`]);
    expect(await notificationsOf(t.app, t.olivia)).to.deep.equal([]);
    // Olivia now follows (she commented): Bob's reply tells her and Carl, not Bob
    await comment(t, t.bob, s, 'done');
    expect((await notificationsOf(t.app, t.olivia)).map(summary)).to.deep.equal([`comment/create/${s}`]);
    expect((await notificationsOf(t.app, t.bob)).map(summary)).to.deep.equal([`comment_with_mention/create/${s}`]);
  });

  it('shows blocker notifications only with notification_types=:all', async () => {
    const s = await story(t, t.bob, { name: 'Blocked', owner_ids: [t.carl.id] });
    const meta = { commandId: randomUUID(), actorId: t.olivia.id, now: t.app.clock.now };
    await t.app.storyline.deps.writer.onProject(t.project, decideCreateBlocker, { story_id: s, description: 'waits on the API' }, meta);
    expect((await notificationsOf(t.app, t.bob)).map(summary)).to.deep.equal([]);
    const all = await notificationsOf(t.app, t.bob, '?notification_types=:all');
    expect(all.map(summary)).to.deep.equal([`blocker/create/${s}`]);
    expect(all[0]).to.include({ context: 'waits on the API', message: 'Olivia Owner added a blocker to this story' });
    expect((await notificationsOf(t.app, t.bob, '?notification_types=blocker,comment')).map(summary)).to.deep.equal([`blocker/create/${s}`]);
    const bad = await t.app.api('GET', '/my/notifications?notification_types=nope', { as: t.bob });
    expect(bad.status).to.equal(400);
    expect(bad.json.validation_errors[0].field).to.equal('notification_types');
  });

  it('answers the last 10 days by default, created_after and updated_after otherwise, with the last timestamp', async () => {
    await story(t, t.olivia, { name: 'Old', owner_ids: [t.bob.id] });
    t.app.clock.now = T0 + 11 * DAY;
    await story(t, t.olivia, { name: 'New', owner_ids: [t.bob.id] });
    await settled(t.app);
    const res = await t.app.api('GET', '/my/notifications', { as: t.bob });
    expect(res.json.map((n: Record<string, any>) => n.story.name)).to.deep.equal(['New']);
    expect(res.headers['x-tracker-last-notification-timestamp']).to.equal(String(T0 + 11 * DAY));
    const enveloped = await t.app.api('GET', '/my/notifications?envelope=true', { as: t.bob });
    expect(enveloped.json.last_notification_timestamp).to.equal(T0 + 11 * DAY);
    expect((await notificationsOf(t.app, t.bob, `?created_after=${T0 - 1}`)).map((n) => n.story.name)).to.deep.equal(['New', 'Old']);
    expect((await notificationsOf(t.app, t.bob, '?created_after=2024-01-10T12:00:00Z')).map((n) => n.story.name)).to.deep.equal(['New']);
    expect((await notificationsOf(t.app, t.bob, `?updated_after=${T0 - 1}`)).length).to.equal(2);
    const bad = await t.app.api('GET', '/my/notifications?created_after=yesterday', { as: t.bob });
    expect(bad.status).to.equal(400);
    expect(bad.json.validation_errors[0].field).to.equal('created_after');
    expect((await t.app.api('GET', '/my/notifications')).status).to.equal(401);
  });

  it('marks one read with read_at and all up to an id with mark_read, on the reader stream only', async () => {
    const s1 = await story(t, t.olivia, { name: 'One', owner_ids: [t.bob.id] });
    t.app.clock.now += 60_000;
    await story(t, t.olivia, { name: 'Two', owner_ids: [t.bob.id] });
    t.app.clock.now += 60_000;
    await story(t, t.olivia, { name: 'Three', owner_ids: [t.bob.id] });
    const [three, two, one] = await notificationsOf(t.app, t.bob);
    const version = (await t.app.api('GET', `/projects/${t.project}`, { as: t.olivia })).json.version;

    t.app.clock.now += 60_000;
    const read = await t.app.api('PUT', `/my/notifications/${two!.id}`, { as: t.bob, body: { read_at: '2024-01-10T12:30:00.750Z' } });
    expect(read.status, read.text).to.equal(200);
    expect(read.json).to.include({ id: two!.id, read_at: '2024-01-10T12:30:00Z', updated_at: '2024-01-10T12:03:00Z' });
    expect((await notificationsOf(t.app, t.bob)).map((n) => n.read_at ?? null)).to.deep.equal([null, '2024-01-10T12:30:00Z', null]);

    const marked = await t.app.api('PUT', '/my/notifications/mark_read', { as: t.bob, body: { before: two!.id } });
    expect(marked.status, marked.text).to.equal(204);
    const after = await notificationsOf(t.app, t.bob);
    expect(after.map((n) => n.read_at ?? null)).to.deep.equal([null, '2024-01-10T12:30:00Z', '2024-01-10T12:03:00Z']);
    expect(after.map((n) => n.id)).to.deep.equal([three!.id, two!.id, one!.id]);
    expect((await t.app.api('GET', `/projects/${t.project}`, { as: t.olivia })).json.version).to.equal(version);

    const unread = await t.app.api('PUT', `/my/notifications/${one!.id}`, { as: t.bob, body: { read_at: null } });
    expect(unread.json).not.to.have.property('read_at');
    expect((await notificationsOf(t.app, t.bob))[2]).not.to.have.property('read_at');
    expect(s1).to.be.a('number');
  });

  it('refuses bad read-state input and other people\'s notifications without writing anything', async () => {
    await story(t, t.olivia, { name: 'Mine', owner_ids: [t.bob.id] });
    const [mine] = await notificationsOf(t.app, t.bob);
    const head = await t.app.storyline.eventStore.headPosition();
    const attempts: Array<[string, string, PersonHandle, unknown, number, string]> = [
      ['PUT', `/my/notifications/${mine!.id}`, t.carl, { read_at: T0 }, 404, 'unfound_resource'],
      ['PUT', `/my/notifications/${mine!.id}`, t.bob, { read_at: 'soon' }, 400, 'invalid_parameter'],
      ['PUT', `/my/notifications/${mine!.id}`, t.bob, {}, 400, 'invalid_parameter'],
      ['PUT', `/my/notifications/${mine!.id}`, t.bob, { read_at: T0, colour: 'red' }, 400, 'invalid_parameter'],
      ['PUT', '/my/notifications/999', t.bob, { read_at: T0 }, 404, 'unfound_resource'],
      ['PUT', '/my/notifications/abc', t.bob, { read_at: T0 }, 404, 'unfound_resource'],
      ['PUT', '/my/notifications/mark_read', t.bob, {}, 400, 'invalid_parameter'],
      ['PUT', '/my/notifications/mark_read', t.bob, { before: 'x' }, 400, 'invalid_parameter'],
      ['PUT', '/my/notifications/mark_read', t.carl, { before: mine!.id }, 400, 'invalid_parameter'],
    ];
    for (const [method, path, as, body, status, code] of attempts) {
      const res = await t.app.api(method, path, { as, body });
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).to.equal(status);
      expect(res.json.code).to.equal(code);
    }
    expect(await t.app.storyline.eventStore.headPosition()).to.equal(head);
  });

  it('answers since/{timestamp} for the caller only, enveloped with millisecond datetimes, its errors enveloped too', async () => {
    await story(t, t.olivia, { name: 'First', owner_ids: [t.bob.id] });
    t.app.clock.now += 60_000;
    await story(t, t.olivia, { name: 'Second', owner_ids: [t.bob.id] });
    await settled(t.app);
    const res = await t.app.api('GET', `/people/${t.bob.id}/notifications/since/${T0}`, { as: t.bob });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.http_status).to.equal('200');
    expect(res.json.last_notification_timestamp).to.equal(T0 + 60_000);
    expect(res.json.data.map((n: Record<string, any>) => [n.story.name, n.created_at])).to.deep.equal([['Second', T0 + 60_000]]);
    const other = await t.app.api('GET', `/people/${t.bob.id}/notifications/since/${T0}`, { as: t.carl });
    expect(other.status).to.equal(200);
    expect(other.json.http_status).to.equal('403');
    expect(other.json.data.code).to.equal('unauthorized_operation');
    for (const timestamp of [String(T0 + 1), 'abc', '99999999999999999999']) {
      const bad = await t.app.api('GET', `/people/${t.bob.id}/notifications/since/${timestamp}`, { as: t.bob });
      expect(bad.status, timestamp).to.equal(200);
      expect(bad.json.http_status, timestamp).to.equal('400');
      expect(bad.json.data.validation_errors[0].field).to.equal('timestamp');
    }
  });
});

describe('API: notifications survive a restart and a rebuild from the log', () => {
  it('answers the same bytes after a restart, and after the read models were deleted and rebuilt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storyline-notifications-'));
    try {
      const t = await team(dir);
      const s = await story(t, t.olivia, { name: 'Kept', owner_ids: [t.bob.id, t.carl.id] });
      await comment(t, t.carl, s, `@u${t.bob.id} hi`, [t.bob]);
      t.app.clock.now += 60_000;
      const [first] = await notificationsOf(t.app, t.bob);
      await t.app.api('PUT', `/my/notifications/${first!.id}`, { as: t.bob, body: { read_at: t.app.clock.now } });
      await settled(t.app);
      const read = async (app: StorylineApp) => {
        await settled(app);
        const res = await app.api('GET', `/my/notifications?created_after=0&notification_types=:all`, { as: t.bob });
        return res.text;
      };
      const before = await read(t.app);
      expect(JSON.parse(before)).to.have.length(2);
      await t.app.close();

      const again = await storylineApp({ dataDir: dir });
      expect(await read(again)).to.equal(before);
      await again.close();

      rmSync(join(dir, 'readmodels.sqlite'));
      rmSync(join(dir, 'readmodels.sqlite-wal'), { force: true });
      rmSync(join(dir, 'readmodels.sqlite-shm'), { force: true });
      const rebuilt = await storylineApp({ dataDir: dir });
      expect(await read(rebuilt)).to.equal(before);
      await rebuilt.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
