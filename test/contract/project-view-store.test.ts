// The project view store contract (membership `last_viewed_at`), run against both adapters; plus what
// only the SQLite file promises: the views outlive the process that wrote them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ProjectViewStore } from '../../src/ports/project-views.js';
import { createMemoryProjectViewStore } from '../../src/infra/project-views/memory-project-view-store.js';
import { openSqliteProjectViewStore } from '../../src/infra/project-views/sqlite-project-view-store.js';

const T = Date.UTC(2024, 0, 10, 12);

function projectViewStoreContract(name: string, open: () => ProjectViewStore): void {
  describe(`project view store contract: ${name}`, () => {
    let store: ProjectViewStore;
    beforeEach(() => {
      store = open();
    });
    afterEach(() => store.close());

    it('answers null for a pair never viewed, and each pair its own last view, in the order asked', async () => {
      await store.record({ personId: 1, projectId: 10 }, T);
      await store.record({ personId: 2, projectId: 10 }, T + 5_000);
      await store.record({ personId: 1, projectId: 11 }, T + 9_000);
      const asked = [
        { personId: 1, projectId: 11 },
        { personId: 3, projectId: 10 },
        { personId: 1, projectId: 10 },
        { personId: 2, projectId: 10 },
        { personId: 2, projectId: 11 },
      ];
      expect(await store.lastViewedAt(asked)).to.deep.equal([T + 9_000, null, T, T + 5_000, null]);
      expect(await store.lastViewedAt([])).to.deep.equal([]);
    });

    it('moves a view forward, never back', async () => {
      const view = { personId: 4, projectId: 12 };
      await store.record(view, T + 60_000);
      await store.record(view, T);
      expect(await store.lastViewedAt([view])).to.deep.equal([T + 60_000]);
      await store.record(view, T + 120_000);
      expect(await store.lastViewedAt([view])).to.deep.equal([T + 120_000]);
    });
  });
}

projectViewStoreContract('memory', createMemoryProjectViewStore);
projectViewStoreContract('SQLite', () => openSqliteProjectViewStore(':memory:'));

describe('SQLite project view store: its file', () => {
  it('keeps the views for the next process that opens the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storyline-views-'));
    try {
      const first = openSqliteProjectViewStore(join(dir, 'views.sqlite'));
      await first.record({ personId: 1, projectId: 2 }, T);
      await first.close();
      const second = openSqliteProjectViewStore(join(dir, 'views.sqlite'));
      expect(await second.lastViewedAt([{ personId: 1, projectId: 2 }])).to.deep.equal([T]);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
