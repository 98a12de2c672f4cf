import { expect } from 'chai';
import { createMemoryReadStore } from '../../../../src/infra/read-store/memory-read-store.js';
import { savedSearchesOf } from '../../../../src/queries/search/saved-searches.js';
import { typedReadModels } from '../../../../src/projections/documents.js';

const [P, OWNER, OTHER] = [1, 11, 12];
const NOW = Date.UTC(2024, 0, 20);

describe('savedSearchesOf', () => {
  it("lists only the caller's saved searches of the project, as the spec's saved_search", async () => {
    const store = createMemoryReadStore();
    await store.collection('saved_searches').write(
      [
        { id: 3, project_id: P, name: 'Mine too', query: 'label:ops', owner_id: OWNER, created_at: NOW, updated_at: NOW },
        { id: 1, project_id: P, name: 'Mine', query: 'state:started', owner_id: OWNER, created_at: NOW, updated_at: NOW },
        { id: 2, project_id: P, name: 'Bob’s', query: 'x', owner_id: OTHER, created_at: NOW, updated_at: NOW },
        { id: 4, project_id: 2, name: 'Elsewhere', query: 'x', owner_id: OWNER, created_at: NOW, updated_at: NOW },
      ].map((doc) => ({ op: 'insert' as const, doc })),
    );
    expect(await savedSearchesOf(typedReadModels((name) => store.collection(name)), P, OWNER)).to.deep.equal([
      { kind: 'saved_search', id: 1, project_id: P, name: 'Mine', query: 'state:started' },
      { kind: 'saved_search', id: 3, project_id: P, name: 'Mine too', query: 'label:ops' },
    ]);
  });
});
