// Time travel over the embedded log, where the past is folded in a worker thread, through HTTP:
// - stories, labels, epics and iterations as of every version of a seeded history answer, after a
//   restart (nothing folded in memory), byte for byte what they answered live at that version;
// - a burst of cold requests beyond the fold queue is refused with 503 `server_under_load`, the spec's
//   error hash and a Retry-After, and caches nothing wrong: every version then answers right;
// - a fold that fails in the worker (a damaged event in the log) answers 503 `component_unavailable`,
//   never a hang, and the versions before the damage and the present are still served; so does a worker
//   that fails (it cannot open the log), and the next request is served by a fresh one;
// - the worker keeps its folds within STORYLINE_TIME_TRAVEL_CACHE_BYTES once requests are answered, the
//   folds of requests in flight counted meanwhile.
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCatalogue } from '../../src/api/error-catalogue.js';
import { streams } from '../../src/domain/events.js';
import { seededRandom } from '../support/seeded-random.js';
import type { TestResponse } from './support/http-client.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

interface Recorded {
  version: number;
  /** The clock the live answer was given at (the current iteration depends on it). */
  now: number;
  path: string;
  text: string;
}

/** No snapshots (every cold fold starts from the first event) and one fold kept: nearly every answer below folds cold. */
const COLD = { STORYLINE_TIME_TRAVEL_SNAPSHOT_EVERY: '1000000', STORYLINE_TIME_TRAVEL_CACHE_ENTRIES: '1' };

function versionOf(res: TestResponse): number {
  return Number(res.headers['x-tracker-project-version']);
}

describe('API: time travel folded in a worker thread', function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'storyline-fold-worker-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function newProject(app: StorylineApp, name: string): Promise<{ owner: PersonHandle; project: number }> {
    const owner = await app.person('Olga Owner');
    const created = await app.api('POST', '/projects', { as: owner, body: { name, new_account_name: `${name} Inc` } });
    expect(created.status, created.text).to.equal(200);
    return { owner, project: created.json.id as number };
  }

  describe('stories, labels, epics and iterations', () => {
    const dir = tempDir();
    const recorded: Recorded[] = [];
    let owner: PersonHandle;

    before(async () => {
      const app = await storylineApp({ dataDir: dir, env: COLD });
      try {
        const made = await newProject(app, 'Worker history');
        owner = made.owner;
        const p = made.project;
        const paths = [
          `/projects/${p}/stories?fields=:default,tasks,label_ids`,
          `/projects/${p}/labels`,
          `/projects/${p}/epics`,
          `/projects/${p}/iterations`,
          `/projects/${p}/iterations?scope=current_backlog`,
          `/projects/${p}/iterations?scope=done&offset=-3`,
        ];
        const random = seededRandom(3030);
        const stories: number[] = [];
        const epics: number[] = [];
        const states = ['started', 'finished', 'delivered', 'accepted'];
        for (let step = 0; step < 36; step++) {
          app.clock.now += 14 * 3_600_000;
          const roll = random();
          const story = stories[Math.floor(random() * stories.length)];
          const res =
            story === undefined || roll < 0.3
              ? await app.api('POST', `/projects/${p}/stories`, { as: owner, body: { name: `story ${step}`, labels: [`label ${step % 3}`], estimate: 1 + (step % 3) } })
              : roll < 0.6
                ? await app.api('PUT', `/projects/${p}/stories/${story}`, { as: owner, body: { current_state: states[step % 4] } })
                : roll < 0.72
                  ? await app.api('POST', `/projects/${p}/epics`, { as: owner, body: { name: `epic ${step}`, label: { name: `epic label ${step}` } } })
                  : roll < 0.8 && epics.length > 0
                    ? await app.api('PUT', `/projects/${p}/epics/${epics[step % epics.length]}`, { as: owner, body: { name: `epic renamed ${step}` } })
                    : roll < 0.9
                      ? await app.api('POST', `/projects/${p}/labels`, { as: owner, body: { name: `plain label ${step}` } })
                      : await app.api('POST', `/projects/${p}/stories/${story}/tasks`, { as: owner, body: { description: `task ${step}` } });
          expect(res.status, res.text).to.equal(200);
          if (res.json.kind === 'story' && !stories.includes(res.json.id)) stories.push(res.json.id);
          if (res.json.kind === 'epic' && !epics.includes(res.json.id)) epics.push(res.json.id);
          const version = versionOf(res);
          for (const path of paths) {
            const live = await app.api('GET', path, { as: owner });
            expect(live.status, `${path}: ${live.text}`).to.equal(200);
            expect(versionOf(live)).to.equal(version);
            recorded.push({ version, now: app.clock.now, path, text: live.text });
          }
        }
      } finally {
        await app.close();
      }
    });

    it('answers every version after a restart as it answered live, folded in the worker', async () => {
      const app = await storylineApp({ dataDir: dir, env: COLD });
      try {
        expect(recorded.some(({ path, text }) => path.includes('epics') && text.includes('epic renamed'))).to.equal(true);
        expect(recorded.some(({ path, text }) => path.includes('scope=done&') && text.includes('"accepted"'))).to.equal(true);
        for (const { version, now, path, text } of [...recorded].reverse()) {
          app.clock.now = now;
          const res = await app.api('GET', path, { as: owner, query: { as_of_version: version } });
          expect(res.status, `${path} as of ${version}: ${res.text}`).to.equal(200);
          expect(res.text, `${path} as of ${version}`).to.equal(text);
          expect(versionOf(res)).to.equal(version);
        }
      } finally {
        await app.close();
      }
    });
  });

  describe('under load and on failure', () => {
    const dir = tempDir();
    let owner: PersonHandle;
    let p = 0;
    /** Versions past 500 (a cold fold reads several pages of events) and their live answers. */
    const asked = new Map<number, string>();
    /** The present's answer. */
    let present = '';
    const path = () => `/projects/${p}/stories?fields=id,name,current_state&limit=20`;

    before(async () => {
      const app = await storylineApp({ dataDir: dir, env: COLD });
      try {
        ({ owner, project: p } = await newProject(app, 'Busy history'));
        const stories: number[] = [];
        for (let step = 0; step < 560; step++) {
          const res =
            step % 5 === 0
              ? await app.api('POST', `/projects/${p}/stories`, { as: owner, body: { name: `story ${step}` } })
              : await app.api('PUT', `/projects/${p}/stories/${stories[step % stories.length]}`, { as: owner, body: { name: `story renamed at ${step}` } });
          expect(res.status, res.text).to.equal(200);
          if (step % 5 === 0) stories.push(res.json.id);
          const version = versionOf(res);
          if (version > 500 && version % 7 === 0) asked.set(version, (await app.api('GET', path(), { as: owner })).text);
        }
        present = (await app.api('GET', path(), { as: owner })).text;
      } finally {
        await app.close();
      }
      expect(asked.size).to.be.at.least(8);
    });

    async function expectEveryVersionRight(app: StorylineApp): Promise<void> {
      for (const [version, text] of asked) {
        const res = await app.api('GET', path(), { as: owner, query: { as_of_version: version } });
        expect(res.status, `as of ${version}: ${res.text}`).to.equal(200);
        expect(res.text, `as of ${version}`).to.equal(text);
      }
    }

    it('refuses cold folds beyond the queue with 503 server_under_load and Retry-After, and caches nothing wrong', async () => {
      const app = await storylineApp({ dataDir: dir, env: { ...COLD, STORYLINE_TIME_TRAVEL_FOLD_QUEUE: '0' } });
      try {
        const burst = await Promise.all([...asked.keys()].map((version) => app.api('GET', path(), { as: owner, query: { as_of_version: version } })));
        const refused = burst.filter((res) => res.status === 503);
        expect(refused.length, 'a fold ran while the others were asked').to.be.at.least(1);
        for (const [index, res] of burst.entries()) {
          const version = [...asked.keys()][index]!;
          if (res.status === 200) {
            expect(res.text, `as of ${version}`).to.equal(asked.get(version));
            continue;
          }
          expect(res.status, res.text).to.equal(503);
          expect(res.headers['retry-after']).to.match(/^[1-9][0-9]*$/);
          expect(res.headers['x-tracker-project-version']).to.equal(undefined);
          expect(Object.keys(res.json).sort()).to.deep.equal(['code', 'error', 'general_problem', 'kind', 'possible_fix']);
          expect(res.json).to.include({ kind: 'error', code: 'server_under_load', error: errorCatalogue.server_under_load.error });
          expect(res.json.possible_fix).to.include(`Retry in ${res.headers['retry-after']} seconds`);
        }
        // Enveloped, the refusal is the envelope's data.
        const enveloped = await Promise.all([...asked.keys()].map((version) => app.api('GET', path(), { as: owner, query: { as_of_version: version - 1, envelope: 'true' } })));
        for (const res of enveloped) {
          expect(res.status).to.equal(200);
          if (res.json.http_status === '503') expect(res.json.data).to.include({ kind: 'error', code: 'server_under_load' });
          else expect(res.json.http_status).to.equal('200');
        }
        // One at a time, every version is folded and answered right: nothing refused was kept.
        await expectEveryVersionRight(app);
        await expectEveryVersionRight(app);
      } finally {
        await app.close();
      }
    });

    it('keeps the folds in the worker within STORYLINE_TIME_TRAVEL_CACHE_BYTES, and lets go of the ones a request held once it is answered', async () => {
      const versions = [...asked.keys()];
      // One fold's estimated memory, as the worker counts it, with room for every fold.
      let oneFold = 0;
      const roomy = await storylineApp({ dataDir: dir, env: { ...COLD, STORYLINE_TIME_TRAVEL_CACHE_ENTRIES: '100' } });
      try {
        for (const version of versions) {
          const res = await roomy.api('GET', path(), { as: owner, query: { as_of_version: version } });
          expect(res.text, `as of ${version}`).to.equal(asked.get(version));
        }
        const usage = await roomy.storyline.pastFolds();
        expect(usage.folds, 'one fold (the resources projection) per version, all kept').to.equal(versions.length);
        expect(usage.folding).to.equal(0);
        oneFold = usage.estimatedBytes / usage.folds;
        expect(oneFold).to.be.greaterThan(0);
      } finally {
        await roomy.close();
      }

      // Room for one fold and a half (the folds differ by a few stories): every second fold is beyond it.
      const budget = Math.floor(oneFold * 1.5);
      const app = await storylineApp({ dataDir: dir, env: { ...COLD, STORYLINE_TIME_TRAVEL_CACHE_ENTRIES: '100', STORYLINE_TIME_TRAVEL_CACHE_BYTES: String(budget), STORYLINE_TIME_TRAVEL_FOLD_QUEUE: String(2 * versions.length) } });
      try {
        for (const version of versions) {
          const res = await app.api('GET', path(), { as: owner, query: { as_of_version: version } });
          expect(res.text, `as of ${version}`).to.equal(asked.get(version));
          const usage = await app.storyline.pastFolds();
          expect(usage).to.deep.include({ folds: 1, folding: 0, budgetBytes: budget });
          expect(usage.estimatedBytes).to.be.greaterThan(0).and.at.most(budget);
        }
        // All at once: each request holds its fold (beyond the budget meanwhile) until it is answered.
        const samples: number[] = [];
        let bursting = true;
        const sampling = (async () => {
          while (bursting) samples.push((await app.storyline.pastFolds()).folds);
        })();
        const burst = await Promise.all(versions.map((version) => app.api('GET', path(), { as: owner, query: { as_of_version: version - 1 } })));
        bursting = false;
        await sampling;
        for (const res of burst) expect(res.status, res.text).to.equal(200);
        expect(Math.max(...samples), 'folds queued, running and held are counted while the burst runs').to.be.greaterThan(1);
        const after = await app.storyline.pastFolds();
        expect(after, 'answered, the requests hold nothing: back within the budget').to.deep.include({ folds: 1, folding: 0 });
        expect(after.estimatedBytes).to.be.at.most(budget);
        await expectEveryVersionRight(app);
      } finally {
        await app.close();
      }
    });

    it('answers 503 component_unavailable when the fold worker itself fails, and serves from a fresh one at the next request', async () => {
      const [version, text] = [...asked.entries()][0]!;
      const app = await storylineApp({ dataDir: dir, env: COLD });
      const events = join(dir, 'events.sqlite');
      try {
        // The server's own connection stays open; the worker, started by the first fold, cannot open the log.
        renameSync(events, `${events}.away`);
        let failed: TestResponse;
        try {
          failed = await app.api('GET', path(), { as: owner, query: { as_of_version: version } });
        } finally {
          renameSync(`${events}.away`, events);
        }
        expect(failed.status, failed.text).to.equal(503);
        expect(Object.keys(failed.json).sort()).to.deep.equal(['code', 'error', 'general_problem', 'kind', 'possible_fix']);
        expect(failed.json).to.include({ kind: 'error', code: 'component_unavailable', error: errorCatalogue.component_unavailable.error });
        expect(failed.json.general_problem).to.include(`version ${version}`);
        const again = await app.api('GET', path(), { as: owner, query: { as_of_version: version } });
        expect(again.status, again.text).to.equal(200);
        expect(again.text).to.equal(text);
        expect((await app.api('GET', path(), { as: owner })).text).to.equal(present);
      } finally {
        await app.close();
      }
    });

    it('answers 503 component_unavailable for a fold that fails in the worker, and serves the rest', async () => {
      const damagedAt = Math.min(...asked.keys()) - 3;
      const db = new Database(join(dir, 'events.sqlite'));
      db.prepare('UPDATE events SET data = ? WHERE stream = ? AND version = ?').run('{ not json', streams.project(p), damagedAt);
      db.close();
      const app = await storylineApp({ dataDir: dir, env: COLD });
      try {
        const version = Math.max(...asked.keys());
        const failed = await app.api('GET', path(), { as: owner, query: { as_of_version: version } });
        expect(failed.status, failed.text).to.equal(503);
        expect(failed.json).to.include({ kind: 'error', code: 'component_unavailable', error: errorCatalogue.component_unavailable.error });
        expect(failed.json.general_problem).to.include(`version ${version}`);
        // the worker goes on: a version before the damage, and the present
        const before = await app.api('GET', `/projects/${p}/stories`, { as: owner, query: { as_of_version: damagedAt - 1, fields: 'id' } });
        expect(before.status, before.text).to.equal(200);
        expect(versionOf(before)).to.equal(damagedAt - 1);
        const live = await app.api('GET', path(), { as: owner });
        expect(live.status).to.equal(200);
        expect(live.text).to.equal(present);
        const again = await app.api('GET', path(), { as: owner, query: { as_of_version: version } });
        expect(again.status, 'a failed fold is not kept: it fails again').to.equal(503);
      } finally {
        await app.close();
      }
    });
  });
});
