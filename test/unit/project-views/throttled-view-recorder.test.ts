// The view recorder behind membership `last_viewed_at`: a repeated view within the window writes
// nothing, times are whole seconds, its memory is bounded, and a failing store is logged, never thrown.
import { expect } from 'chai';
import type { ProjectView, ProjectViewStore } from '../../../src/ports/project-views.js';
import { createMemoryProjectViewStore } from '../../../src/infra/project-views/memory-project-view-store.js';
import { ThrottledViewRecorder } from '../../../src/infra/project-views/throttled-view-recorder.js';
import { createLog, silentLog } from '../../../src/infra/log.js';

const T = Date.UTC(2024, 0, 10, 12);
const ada = { personId: 1, projectId: 10 };
const bob = { personId: 2, projectId: 10 };
const adaElsewhere = { personId: 1, projectId: 11 };

/** A memory store that counts its writes. */
function countingStore(): ProjectViewStore & { writes: ProjectView[] } {
  const inner = createMemoryProjectViewStore();
  const writes: ProjectView[] = [];
  return {
    writes,
    record(view, at) {
      writes.push(view);
      return inner.record(view, at);
    },
    lastViewedAt: (views) => inner.lastViewedAt(views),
    close: () => inner.close(),
  };
}

describe('ThrottledViewRecorder', () => {
  it('writes a pair once per window, whole seconds, each pair on its own', async () => {
    const store = countingStore();
    const recorder = new ThrottledViewRecorder(store, silentLog, { windowMs: 60_000, maxEntries: 100 });
    recorder.viewed(ada, T + 750);
    recorder.viewed(ada, T + 30_000);
    recorder.viewed(ada, T + 59_999);
    recorder.viewed(bob, T + 30_000);
    recorder.viewed(adaElsewhere, T + 30_000);
    expect(store.writes).to.deep.equal([ada, bob, adaElsewhere]);
    expect(await store.lastViewedAt([ada, bob])).to.deep.equal([T, T + 30_000]);
    recorder.viewed(ada, T + 60_000);
    expect(store.writes).to.have.length(4);
    expect(await store.lastViewedAt([ada])).to.deep.equal([T + 60_000]);
  });

  it('forgets the least recently written pair beyond its bound, which only costs one more write', () => {
    const store = countingStore();
    const recorder = new ThrottledViewRecorder(store, silentLog, { windowMs: 60_000, maxEntries: 2 });
    recorder.viewed(ada, T);
    recorder.viewed(bob, T);
    recorder.viewed(adaElsewhere, T);
    recorder.viewed(bob, T + 1_000);
    expect(store.writes).to.have.length(3);
    recorder.viewed(ada, T + 1_000);
    expect(store.writes).to.deep.equal([ada, bob, adaElsewhere, ada]);
  });

  it('logs a store that fails or throws, and returns normally', async () => {
    const lines: string[] = [];
    const log = createLog('info', (line) => lines.push(line));
    const rejecting: ProjectViewStore = { ...createMemoryProjectViewStore(), record: () => Promise.reject(new Error('disk is full')) };
    const throwing: ProjectViewStore = { ...createMemoryProjectViewStore(), record: () => { throw new Error('database is closed'); } };
    expect(() => new ThrottledViewRecorder(rejecting, log).viewed(ada, T)).not.to.throw();
    expect(() => new ThrottledViewRecorder(throwing, log).viewed(ada, T)).not.to.throw();
    await new Promise<void>((resolve) => setImmediate(resolve));
    const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry['level'] === 'warn');
    expect(warnings.map((entry) => entry['error'])).to.have.members(['disk is full', 'database is closed']);
    expect(warnings[0]).to.include({ person_id: 1, project_id: 10 });
  });
});
