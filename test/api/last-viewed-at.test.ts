// Membership `last_viewed_at` (issue 11 item 13): set when the person GETs the project or its stories
// list, kept outside the log (no project version moves), shown by /me, the memberships routes and the
// project's `memberships`, per person, throttled to one write per minute, and kept across a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const START = Date.UTC(2024, 0, 10, 12);
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

interface Team {
  app: StorylineApp;
  ada: PersonHandle;
  bob: PersonHandle;
  projectId: number;
  /** Bob's membership id in the project. */
  bobMembership: number;
}

async function team(dataDir?: string): Promise<Team> {
  const app = await storylineApp(dataDir ? { dataDir } : {});
  const ada = await app.person('Ada Owner');
  const bob = await app.person('Bob Member');
  const projectId = (await app.api('POST', '/projects', { as: ada, body: { name: 'Engine', new_account_name: 'Analytical' } })).json.id;
  const added = await app.api('POST', `/projects/${projectId}/memberships`, { as: ada, body: { person_id: bob.id, role: 'member' } });
  expect(added.status).to.equal(200);
  await app.api('POST', `/projects/${projectId}/stories`, { as: ada, body: { name: 'First story' } });
  return { app, ada, bob, projectId, bobMembership: added.json.id };
}

/** The person's `last_viewed_at` of the project as /me shows it (undefined when absent). */
async function shownByMe(t: Team, person: PersonHandle): Promise<string | undefined> {
  const me = await t.app.api('GET', '/me', { as: person });
  expect(me.status).to.equal(200);
  const summary = me.json.projects.find((p: { project_id: number }) => p.project_id === t.projectId);
  expect(summary, 'membership summary').to.not.equal(undefined);
  return summary.last_viewed_at;
}

/** Each member's `last_viewed_at` as the memberships list shows it, by person id. */
async function shownByMemberships(t: Team, as: PersonHandle): Promise<Record<number, string | undefined>> {
  const list = await t.app.api('GET', `/projects/${t.projectId}/memberships`, { as });
  expect(list.status).to.equal(200);
  return Object.fromEntries(list.json.map((m: { person: { id: number }; last_viewed_at?: string }) => [m.person.id, m.last_viewed_at]));
}

async function projectVersion(t: Team): Promise<string> {
  const project = await t.app.api('GET', `/projects/${t.projectId}/labels`, { as: t.ada });
  return String(project.headers['x-tracker-project-version']);
}

describe('API: membership last_viewed_at', () => {
  let t: Team;
  beforeEach(async () => {
    t = await team();
  });
  afterEach(() => t.app.close());

  it('is absent before any view, in /me, the memberships list, one membership and the project memberships', async () => {
    expect(await shownByMe(t, t.bob)).to.equal(undefined);
    expect(await shownByMemberships(t, t.ada)).to.deep.equal({ [t.ada.id]: undefined, [t.bob.id]: undefined });
    const one = await t.app.api('GET', `/projects/${t.projectId}/memberships/${t.bobMembership}`, { as: t.bob });
    expect(one.json).to.not.have.property('last_viewed_at');
    const me = await t.app.api('GET', '/me', { as: t.bob });
    expect(me.json.projects[0]).to.have.all.keys('kind', 'id', 'project_id', 'project_name', 'project_color', 'favorite', 'role');
  });

  it('is set by GET /projects/{id} to the time of that GET, shown everywhere memberships are', async () => {
    t.app.clock.now = START + 3_600_000 + 750;
    expect((await t.app.api('GET', `/projects/${t.projectId}`, { as: t.bob })).status).to.equal(200);
    const viewed = iso(START + 3_600_000);
    expect(await shownByMe(t, t.bob)).to.equal(viewed);
    expect((await shownByMemberships(t, t.ada))[t.bob.id]).to.equal(viewed);
    const one = await t.app.api('GET', `/projects/${t.projectId}/memberships/${t.bobMembership}?date_format=millis`, { as: t.ada });
    expect(one.json.last_viewed_at).to.equal(START + 3_600_000);
    const nested = await t.app.api('GET', `/projects/${t.projectId}?fields=memberships`, { as: t.ada });
    const bobs = nested.json.memberships.find((m: { person: { id: number } }) => m.person.id === t.bob.id);
    expect(bobs.last_viewed_at).to.equal(viewed);
  });

  it('is set by GET /projects/{id}/stories, a cached answer and a 304 included', async () => {
    t.app.clock.now = START + 120_000;
    const first = await t.app.api('GET', `/projects/${t.projectId}/stories`, { as: t.bob });
    expect(first.status).to.equal(200);
    expect(await shownByMe(t, t.bob)).to.equal(iso(START + 120_000));

    t.app.clock.now = START + 240_000;
    const again = await t.app.api('GET', `/projects/${t.projectId}/stories`, { as: t.bob });
    expect(again.text).to.equal(first.text);
    expect(again.headers.etag).to.equal(first.headers.etag);
    expect(await shownByMe(t, t.bob)).to.equal(iso(START + 240_000));

    t.app.clock.now = START + 360_000;
    const revalidated = await t.app.api('GET', `/projects/${t.projectId}/stories`, { as: t.bob, headers: { 'If-None-Match': String(first.headers.etag) } });
    expect(revalidated.status).to.equal(304);
    expect(await shownByMe(t, t.bob)).to.equal(iso(START + 360_000));
  });

  it('is not set by other GETs, nor by a refused one', async () => {
    const story = (await t.app.api('GET', `/projects/${t.projectId}/stories`, { as: t.ada })).json[0];
    for (const path of [
      '/me',
      '/projects',
      `/projects/${t.projectId}/memberships`,
      `/projects/${t.projectId}/memberships/${t.bobMembership}`,
      `/projects/${t.projectId}/stories/${story.id}`,
      `/stories/${story.id}`,
      `/projects/${t.projectId}/labels`,
      `/projects/${t.projectId}/epics`,
      `/projects/${t.projectId}/iterations`,
      `/projects/${t.projectId}/activity`,
      `/projects/${t.projectId}/search?query=first`,
      `/projects/${t.projectId}/stories?limit=nope`,
    ]) {
      const res = await t.app.api('GET', path, { as: t.bob });
      expect(res.status, path).to.be.oneOf([200, 400]);
    }
    expect(await shownByMe(t, t.bob)).to.equal(undefined);
  });

  it('is per person: one member viewing leaves the others as they were', async () => {
    t.app.clock.now = START + 60_000;
    await t.app.api('GET', `/projects/${t.projectId}`, { as: t.ada });
    t.app.clock.now = START + 600_000;
    await t.app.api('GET', `/projects/${t.projectId}/stories`, { as: t.bob });
    expect(await shownByMemberships(t, t.bob)).to.deep.equal({ [t.ada.id]: iso(START + 60_000), [t.bob.id]: iso(START + 600_000) });
    expect(await shownByMe(t, t.ada)).to.equal(iso(START + 60_000));
  });

  it('moves no project version: a view is not an event', async () => {
    const before = await projectVersion(t);
    const viewed = await t.app.api('GET', `/projects/${t.projectId}`, { as: t.bob });
    expect(String(viewed.json.version)).to.equal(before);
    t.app.clock.now = START + 3_600_000;
    await t.app.api('GET', `/projects/${t.projectId}/stories`, { as: t.bob });
    expect(await projectVersion(t)).to.equal(before);
    const activity = await t.app.api('GET', `/projects/${t.projectId}/activity`, { as: t.ada });
    expect(activity.json).to.have.length(Number(before));
  });

  it('writes once a minute per person and project: a view within 60 s of the last written one is not kept', async () => {
    t.app.clock.now = START + 1_000;
    await t.app.api('GET', `/projects/${t.projectId}`, { as: t.bob });
    t.app.clock.now = START + 60_999;
    await t.app.api('GET', `/projects/${t.projectId}/stories`, { as: t.bob });
    expect(await shownByMe(t, t.bob)).to.equal(iso(START + 1_000));
    t.app.clock.now = START + 61_000;
    await t.app.api('GET', `/projects/${t.projectId}`, { as: t.bob });
    expect(await shownByMe(t, t.bob)).to.equal(iso(START + 61_000));
  });

  it('shows a new view at the same project version (no cached membership answer)', async () => {
    const first = await shownByMemberships(t, t.ada);
    await t.app.api('GET', `/projects/${t.projectId}`, { as: t.bob });
    const second = await shownByMemberships(t, t.ada);
    expect(first[t.bob.id]).to.equal(undefined);
    expect(second[t.bob.id]).to.equal(iso(START));
  });

  it('is absent from an answer as of a past version: views are not part of the project history', async () => {
    await t.app.api('GET', `/projects/${t.projectId}`, { as: t.bob });
    const past = await t.app.api('GET', `/projects/${t.projectId}/memberships?as_of_version=2`, { as: t.ada });
    expect(past.status).to.equal(200);
    expect(past.json.map((m: object) => Object.hasOwn(m, 'last_viewed_at'))).to.deep.equal([false, false]);
  });

  it('is not recorded for a non-member reading a public project', async () => {
    const carol = await t.app.person('Carol Visitor');
    await t.app.api('PUT', `/projects/${t.projectId}`, { as: t.ada, body: { public: true } });
    expect((await t.app.api('GET', `/projects/${t.projectId}`, { as: carol })).status).to.equal(200);
    const joined = await t.app.api('POST', `/projects/${t.projectId}/memberships`, { as: t.ada, body: { person_id: carol.id, role: 'viewer' } });
    expect(joined.json).to.not.have.property('last_viewed_at');
  });
});

describe('API: membership last_viewed_at across a restart', () => {
  it('survives a restart of the app on the same data directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storyline-views-'));
    try {
      const first = await team(dir);
      first.app.clock.now = START + 7_200_000;
      await first.app.api('GET', `/projects/${first.projectId}/stories`, { as: first.bob });
      await first.app.close();
      const app = await storylineApp({ dataDir: dir });
      try {
        const again: Team = { ...first, app };
        expect(await shownByMe(again, first.bob)).to.equal(iso(START + 7_200_000));
        expect(await shownByMemberships(again, first.ada)).to.deep.equal({ [first.ada.id]: undefined, [first.bob.id]: iso(START + 7_200_000) });
      } finally {
        await app.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
