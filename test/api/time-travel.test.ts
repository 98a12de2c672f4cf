// Time travel: every project-scoped GET answers `as_of_version=N` exactly as it answered when the
// project stood at version N. A seeded, scripted history of stories, labels, tasks and memberships is
// written through the API; after every write the live answers are recorded, and afterwards every one of
// them is asked again as of its version and must come back byte-equal, with that version in the header.
import { expect } from 'chai';
import { seededRandom } from '../support/seeded-random.js';
import { storylineApp } from './support/storyline-app.js';
import { storyWorld, type StoryWorld, type TestPerson } from '../support/project-fixture.js';
import type { TestResponse } from './support/http-client.js';

interface Recorded {
  version: number;
  path: string;
  status: number;
  text: string;
}

const STEPS = 40;

/**
 * A live answer without membership `last_viewed_at`: views are not part of the project's history (the
 * GETs of this script are views), so answers as of a version omit it (test/api/last-viewed-at.test.ts).
 */
function withoutViews(text: string): string {
  return text.replace(/"last_viewed_at":"[^"]*",/g, '');
}

describe('API: time travel (as_of_version, as_of)', function () {
  this.timeout(60_000);
  let w: StoryWorld;
  let p: number;
  let people: TestPerson[];
  const recorded: Recorded[] = [];
  // What exists now (the script picks from these) and what ever existed (asked at every version).
  const stories: number[] = [];
  const labels: number[] = [];
  const tasks: Array<{ story: number; id: number }> = [];
  const ever = { stories: [] as number[], labels: [] as number[], tasks: [] as Array<{ story: number; id: number }> };
  const instants = new Map<number, number>();
  let finalVersion = 0;

  function version(res: TestResponse): number {
    return Number(res.headers['x-tracker-project-version']);
  }

  /** Every GET of the project the script can tell apart, for the resources created so far. */
  function paths(): string[] {
    return [
      `/projects/${p}`,
      `/projects/${p}/stories`,
      `/projects/${p}/stories?fields=:default,tasks,label_ids`,
      `/projects/${p}/labels`,
      `/projects/${p}/memberships`,
      ...ever.stories.flatMap((s) => [`/projects/${p}/stories/${s}`, `/projects/${p}/stories/${s}/tasks`]),
      ...ever.labels.map((l) => `/projects/${p}/labels/${l}`),
      ...ever.tasks.map(({ story, id }) => `/projects/${p}/stories/${story}/tasks/${id}`),
    ];
  }

  async function write(method: string, path: string, body?: unknown): Promise<TestResponse> {
    w.clock.now += 61_000;
    const res = await w.api(method, path, { as: w.owner, ...(body === undefined ? {} : { body }) });
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.oneOf([200, 204]);
    return res;
  }

  async function recordEverything(): Promise<void> {
    const project = await w.api('GET', `/projects/${p}`, { as: w.owner });
    const at = version(project);
    instants.set(at, w.clock.now);
    for (const path of paths()) {
      const res = await w.api('GET', path, { as: w.owner });
      if (res.status === 200) expect(version(res), path).to.equal(at);
      recorded.push({ version: at, path, status: res.status, text: withoutViews(res.text) });
    }
    finalVersion = at;
  }

  /** One random write of the script (seeded: the same history every run). */
  async function randomWrite(random: () => number, step: number): Promise<void> {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const choice = random();
    if (stories.length === 0 || choice < 0.2) {
      const label = labels.length > 0 && random() < 0.5 ? { label_ids: [pick(labels)] } : {};
      created(stories, ever.stories, (await write('POST', `/projects/${p}/stories`, { name: `story ${step}`, description: `told at ${step}`, ...label })).json.id);
    } else if (choice < 0.35) {
      const story = pick(stories);
      const res = await write('PUT', `/projects/${p}/stories/${story}`, random() < 0.5 ? { name: `renamed ${step}` } : { label_ids: labels.filter(() => random() < 0.5) });
      expect(res.status).to.equal(200);
    } else if (choice < 0.5) {
      created(labels, ever.labels, (await write('POST', `/projects/${p}/labels`, { name: `label ${step}` })).json.id);
    } else if (choice < 0.6 && labels.length > 0) {
      await write('PUT', `/projects/${p}/labels/${pick(labels)}`, { name: `label renamed ${step}` });
    } else if (choice < 0.8) {
      const story = pick(stories);
      created(tasks, ever.tasks, { story, id: (await write('POST', `/projects/${p}/stories/${story}/tasks`, { description: `task ${step}` })).json.id });
    } else if (choice < 0.88 && tasks.length > 0) {
      const task = pick(tasks);
      await write('PUT', `/projects/${p}/stories/${task.story}/tasks/${task.id}`, { complete: random() < 0.7, description: `task done ${step}` });
    } else if (choice < 0.92 && people.length > 0) {
      const person = people.shift()!;
      await write('POST', `/projects/${p}/memberships`, { person_id: person.id, role: random() < 0.5 ? 'member' : 'viewer' });
    } else if (choice < 0.96 && tasks.length > 0) {
      const task = pick(tasks);
      await write('DELETE', `/projects/${p}/stories/${task.story}/tasks/${task.id}`);
      tasks.splice(tasks.indexOf(task), 1);
    } else if (labels.length > 1) {
      await write('DELETE', `/projects/${p}/labels/${labels.shift()}`);
    } else {
      const story = stories.shift()!;
      await write('DELETE', `/projects/${p}/stories/${story}`);
      tasks.splice(0, tasks.length, ...tasks.filter((task) => task.story !== story));
    }
  }

  function created<T>(present: T[], all: T[], item: T): void {
    present.push(item);
    all.push(item);
  }

  before(async () => {
    w = await storyWorld();
    people = [await w.person('carl'), await w.person('dora'), await w.person('emil')];
    p = await w.project({ name: 'History' });
    await recordEverything();
    const random = seededRandom(16);
    for (let step = 1; step <= STEPS; step += 1) {
      await randomWrite(random, step);
      await recordEverything();
    }
  });
  after(() => w.close());

  it('answers every recorded GET as of its version byte-equal, with that version in the header', async () => {
    expect(finalVersion).to.be.greaterThan(STEPS);
    for (const { version: at, path, status, text } of recorded) {
      const res = await w.api('GET', path, { as: w.owner, query: { as_of_version: at } });
      expect(res.status, `${path} as of ${at}`).to.equal(status);
      expect(res.text, `${path} as of ${at}`).to.equal(text);
      if (status === 200) expect(version(res), `${path} as of ${at}`).to.equal(at);
    }
  });

  it('answers 404 unfound_resource for a resource that did not exist yet at that version', async () => {
    const firstSeen = new Map<string, number>();
    for (const { version: at, path, status } of recorded) if (status === 200 && !firstSeen.has(path)) firstSeen.set(path, at);
    let checked = 0;
    for (const [path, at] of firstSeen) {
      if (at <= 1 || !/\/(stories|labels|tasks)\/\d+$/.test(path)) continue;
      const res = await w.api('GET', path, { as: w.owner, query: { as_of_version: at - 1 } });
      expect(res.status, `${path} as of ${at - 1}`).to.equal(404);
      expect(res.json.code).to.equal('unfound_resource');
      checked += 1;
    }
    expect(checked).to.be.greaterThan(STEPS / 2);
  });

  it('picks the last version at or before an `as_of` instant', async () => {
    for (const [at, instant] of instants) {
      const res = await w.api('GET', `/projects/${p}`, { as: w.owner, query: { as_of: new Date(instant + 30_000).toISOString() } });
      expect(res.status).to.equal(200);
      expect(version(res), `as of ${instant}`).to.equal(at);
      expect(res.json.version).to.equal(at);
    }
    const later = await w.api('GET', `/projects/${p}/labels`, { as: w.owner, query: { as_of: String(w.clock.now + 86_400_000) } });
    expect(version(later)).to.equal(finalVersion);
    const before = await w.api('GET', `/projects/${p}`, { as: w.owner, query: { as_of: '2000-01-01' } });
    expect(before.status).to.equal(404);
    expect(before.json.code).to.equal('unfound_resource');
    const bad = await w.api('GET', `/projects/${p}`, { as: w.owner, query: { as_of: 'yesterday' } });
    expect(bad.status).to.equal(400);
    expect(bad.json.validation_errors).to.deep.equal([{ field: 'as_of', problem: "'as_of' must be a datetime: ISO 8601 or integer milliseconds" }]);
  });

  for (const value of ['0', '-1', 'abc', '1.5', '']) {
    it(`refuses as_of_version=${JSON.stringify(value)} with 400 invalid_parameter`, async () => {
      const res = await w.api('GET', `/projects/${p}/stories`, { as: w.owner, query: { as_of_version: value } });
      expect(res.status).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
      expect(res.json.validation_errors[0].field).to.equal('as_of_version');
    });
  }

  it('refuses a version after the current one, naming the range', async () => {
    const res = await w.api('GET', `/projects/${p}`, { as: w.owner, query: { as_of_version: finalVersion + 1 } });
    expect(res.status).to.equal(400);
    expect(res.json.validation_errors).to.deep.equal([{ field: 'as_of_version', problem: `'as_of_version' must be a project version from 1 to ${finalVersion}` }]);
  });

  it('refuses writes, both parameters at once, and GETs that do not read the read models', async () => {
    const post = await w.api('POST', `/projects/${p}/labels`, { as: w.owner, body: { name: 'from the past' }, query: { as_of_version: 1 } });
    expect(post.status).to.equal(400);
    expect(post.json.validation_errors[0].field).to.equal('as_of_version');
    const both = await w.api('GET', `/projects/${p}`, { as: w.owner, query: { as_of_version: 1, as_of: '2024-01-10' } });
    expect(both.status).to.equal(400);
    const feed = await w.api('GET', `/projects/${p}/activity`, { as: w.owner, query: { as_of_version: 1 } });
    expect(feed.status).to.equal(400);
    const me = await w.api('GET', '/me', { as: w.owner, query: { as_of_version: 1 } });
    expect(me.status).to.equal(400);
    const labelsNow = await w.api('GET', `/projects/${p}/labels`, { as: w.owner });
    expect(labelsNow.json.map((label: { name: string }) => label.name)).not.to.include('from the past');
  });

  it('checks access against the project as it is now', async () => {
    const stranger = await w.person('stranger');
    const res = await w.api('GET', `/projects/${p}/stories`, { as: stranger, query: { as_of_version: 1 } });
    expect(res.status).to.equal(403);
  });
});

describe('API: time travel with a fold cache of one entry', () => {
  it('answers each version right while folds are evicted and built again', async () => {
    const app = await storylineApp({ env: { STORYLINE_TIME_TRAVEL_CACHE_ENTRIES: '1' } });
    try {
      const owner = await app.person('Olga Owner');
      const project = await app.api('POST', '/projects', { as: owner, body: { name: 'Evictions', new_account_name: 'Evictions Inc' } });
      const p = project.json.id as number;
      const names: Array<{ version: number; names: string[] }> = [];
      for (const name of ['alpha', 'beta', 'gamma']) {
        const res = await app.api('POST', `/projects/${p}/labels`, { as: owner, body: { name } });
        names.push({ version: Number(res.headers['x-tracker-project-version']), names: [...(names.at(-1)?.names ?? []), name] });
      }
      for (const round of [0, 1]) {
        for (const { version, names: expected } of round === 0 ? names : [...names].reverse()) {
          const res = await app.api('GET', `/projects/${p}/labels`, { as: owner, query: { as_of_version: version, fields: 'name' } });
          expect(res.json.map((label: { name: string }) => label.name).sort(), `as of ${version}`).to.deep.equal(expected);
        }
      }
    } finally {
      await app.close();
    }
  });
});
