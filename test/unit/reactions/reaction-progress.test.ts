// A reaction's own progress (reaction-progress.ts): its indexes are made before the first read of its
// position, and a failure to make them (a full disk) is retried by the next read, not kept for good.
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import { reactionProgress } from '../../../src/reactions/reaction-progress.js';
import type { ReactionStore } from '../../../src/reactions/reaction.js';

describe('reaction progress', () => {
  it('makes its indexes before reading its position, again after a failed attempt, and once when they are made', async () => {
    const store = createMemoryReadStore();
    let attempts = 0;
    const failingOnce: ReactionStore = {
      writeAtomically: (writes) => store.writeAtomically(writes),
      collection: (name) => {
        const collection = store.collection(name);
        if (name !== 'own_documents') return collection;
        return Object.assign(Object.create(collection) as typeof collection, {
          ensureIndexes: async (...args: Parameters<typeof collection.ensureIndexes>) => {
            attempts++;
            if (attempts === 1) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
            return collection.ensureIndexes(...args);
          },
        });
      },
    };
    const progress = reactionProgress(failingOnce, 'own_progress', { collection: 'own_documents', fields: [{ field: 'person_id' }] });
    const first = await progress.applied().catch((error: unknown) => error);
    expect(first).to.be.instanceOf(Error).with.property('message', 'database or disk is full');
    expect(await progress.applied()).to.equal(0);
    await store.writeAtomically([progress.recorded(42)]);
    expect(await progress.applied()).to.equal(42);
    expect(attempts).to.equal(2);
  });
});
