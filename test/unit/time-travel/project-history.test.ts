// The folds behind `as_of_version`: a fold forward from a cached lower version holds exactly the
// documents a fold from the first event holds, for every collection of every projection, at every
// version of a seeded history; and the answers stay right when the cache keeps a single fold.
import { expect } from 'chai';
import { FoldingProjectHistory } from '../../../src/infra/time-travel/project-history.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import { projections } from '../../../src/projections/registry.js';
import { seededProjectHistorySuite } from './seeded-project-history.js';

const collections = projections.flatMap((projection) => projection.collections.map(({ name }) => name));

describe('time travel: project history folds', function () {
  this.timeout(60_000);
  const seeded = seededProjectHistorySuite(30);

  const history = (cacheEntries: number, cacheBytes = 1 << 30) =>
    new FoldingProjectHistory({ eventStore: seeded.app.storyline.eventStore, projections, newReadStore: createMemoryReadStore, cacheEntries, cacheBytes });

  async function documentsAt(folds: FoldingProjectHistory, at: number): Promise<Record<string, unknown[]>> {
    const reader = await folds.readerAt(seeded.project, at);
    const documents: Record<string, unknown[]> = {};
    for (const name of collections) documents[name] = await reader(name).all();
    return documents;
  }

  it('folds forward from a lower cached version to the same documents as a fold from the first event', async () => {
    expect(seeded.version).to.be.greaterThan(25);
    const forward = history(1000);
    for (let at = 1; at <= seeded.version; at++) {
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
    for (const at of [seeded.version, 3, Math.floor(seeded.version / 2), seeded.version - 1, 2]) {
      expect(await documentsAt(tight, at), `version ${at}`).to.deep.equal(await documentsAt(loose, at));
    }
    await tight.close();
    await loose.close();
  });
});
