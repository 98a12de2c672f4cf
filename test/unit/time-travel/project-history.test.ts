// The folds behind `as_of_version`: a fold forward from a cached lower version holds exactly the
// documents a fold from the first event holds, for every collection of every projection, at every
// version of a seeded history; and the answers stay right when the cache keeps a single fold.
import { expect } from 'chai';
import { FoldingProjectHistory } from '../../../src/infra/time-travel/project-history.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import { projections } from '../../../src/projections/registry.js';
import { storylineApp, type StorylineApp } from '../../api/support/storyline-app.js';
import { seededRandom } from '../../support/seeded-random.js';

const collections = projections.flatMap((projection) => projection.collections.map(({ name }) => name));

describe('time travel: project history folds', function () {
  this.timeout(60_000);
  let app: StorylineApp;
  let project: number;
  let version: number;

  before(async () => {
    app = await storylineApp();
    const owner = await app.person('Olga Owner');
    const created = await app.api('POST', '/projects', { as: owner, body: { name: 'Folds', new_account_name: 'Folds Inc' } });
    project = created.json.id;
    const random = seededRandom(1616);
    const stories: number[] = [];
    for (let step = 0; step < 30; step++) {
      app.clock.now += 3_600_000;
      const story = stories[Math.floor(random() * stories.length)];
      const roll = random();
      const res =
        story === undefined || roll < 0.3
          ? await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: `story ${step}`, labels: [`label ${step % 4}`], estimate: 1 } })
          : roll < 0.6
            ? await app.api('PUT', `/projects/${project}/stories/${story}`, { as: owner, body: { current_state: ['started', 'finished', 'delivered', 'accepted'][step % 4], description: `at ${step}` } })
            : roll < 0.85
              ? await app.api('POST', `/projects/${project}/stories/${story}/tasks`, { as: owner, body: { description: `task ${step}` } })
              : await app.api('DELETE', `/projects/${project}/stories/${story}`, { as: owner });
      expect(res.status, res.text).to.be.oneOf([200, 204]);
      if (res.json?.kind === 'story') stories.push(res.json.id);
      if (story !== undefined && res.status === 204) stories.splice(stories.indexOf(story), 1);
    }
    version = Number((await app.api('GET', `/projects/${project}`, { as: owner })).headers['x-tracker-project-version']);
  });
  after(() => app.close());

  const history = (cacheEntries: number, cacheBytes = 1 << 30) =>
    new FoldingProjectHistory({ eventStore: app.storyline.eventStore, projections, newReadStore: createMemoryReadStore, cacheEntries, cacheBytes });

  async function documentsAt(folds: FoldingProjectHistory, at: number): Promise<Record<string, unknown[]>> {
    const reader = await folds.readerAt(project, at);
    const documents: Record<string, unknown[]> = {};
    for (const name of collections) documents[name] = await reader(name).all();
    return documents;
  }

  it('folds forward from a lower cached version to the same documents as a fold from the first event', async () => {
    expect(version).to.be.greaterThan(25);
    const forward = history(1000);
    for (let at = 1; at <= version; at++) {
      const fresh = history(1);
      expect(await documentsAt(forward, at), `version ${at}`).to.deep.equal(await documentsAt(fresh, at));
      await fresh.close();
    }
    // and backwards: a version below every cached one is folded from the first event
    const first = await documentsAt(forward, 1);
    expect((first['projects'] as unknown[]).length).to.equal(1);
    await forward.close();
  });

  it('answers right when the byte bound keeps only the latest fold', async () => {
    const tight = history(1000, 1);
    const loose = history(1000);
    for (const at of [version, 3, Math.floor(version / 2), version - 1, 2]) {
      expect(await documentsAt(tight, at), `version ${at}`).to.deep.equal(await documentsAt(loose, at));
    }
    await tight.close();
    await loose.close();
  });
});
