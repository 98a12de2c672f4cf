// The fold cache under load: cold folds run one at a time behind a bounded queue (one more is refused
// with server_under_load and a Retry-After, and nothing of it is kept); the fold in flight counts against
// the byte budget from the size of what it starts from, and evicts cached folds to make room; a fold a
// reader holds is never evicted until the reader is released; a failed fold answers
// component_unavailable and is not kept.
import { expect } from 'chai';
import { DomainError } from '../../../src/domain/errors.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import { FoldingProjectHistory } from '../../../src/infra/time-travel/project-history.js';
import { projections } from '../../../src/projections/registry.js';
import type { EventStore, ReadStreamOptions } from '../../../src/ports/event-store.js';
import { seededProjectHistorySuite } from './seeded-project-history.js';

/** The event store, whose stream reads wait while `paused` and fail while `failing`. */
function controlledReads(source: EventStore): { eventStore: EventStore; pause(): void; resume(): void; failing: { on: boolean }; waiting(): number } {
  let gate: { promise: Promise<void>; open(): void } | null = null;
  let waiting = 0;
  const failing = { on: false };
  const readStream = async (stream: string, options?: ReadStreamOptions) => {
    if (failing.on) throw new Error('disk I/O error');
    while (gate) {
      waiting++;
      await gate.promise;
      waiting--;
    }
    return source.readStream(stream, options);
  };
  const eventStore = new Proxy(source, {
    get(target, key) {
      if (key === 'readStream') return readStream;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    eventStore,
    pause() {
      let open = () => {};
      const promise = new Promise<void>((resolve) => (open = resolve));
      gate = { promise, open };
    },
    resume() {
      const opened = gate;
      gate = null;
      opened?.open();
    },
    failing,
    waiting: () => waiting,
  };
}

async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition(); turn++) {
    if (turn > 10_000) throw new Error('condition never met');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('time travel: the fold cache under load', function () {
  this.timeout(60_000);
  const seeded = seededProjectHistorySuite(30);
  const resources = projections.filter((projection) => projection.name === 'resources');

  const history = (eventStore: EventStore, options: { cacheEntries?: number; cacheBytes?: number; foldQueue?: number } = {}) =>
    new FoldingProjectHistory({ eventStore, projections: resources, newReadStore: createMemoryReadStore, cacheEntries: options.cacheEntries ?? 100, cacheBytes: options.cacheBytes ?? 1 << 30, ...(options.foldQueue === undefined ? {} : { foldQueue: options.foldQueue }) });

  const storiesAt = async (folds: FoldingProjectHistory, version: number) => {
    const reader = await folds.readerAt(seeded.project, version);
    try {
      return await reader('stories').all();
    } finally {
      reader.release();
    }
  };

  it('runs one cold fold at a time, queues up to the bound, and refuses one more with server_under_load and a Retry-After', async () => {
    const reads = controlledReads(seeded.app.storyline.eventStore);
    const folds = history(reads.eventStore, { foldQueue: 1 });
    const reference = history(seeded.app.storyline.eventStore);
    reads.pause();
    const running = storiesAt(folds, 10);
    await until(() => reads.waiting() === 1);
    const queued = storiesAt(folds, 20);
    const sharing = storiesAt(folds, 10); // the running fold, shared: no place in the queue
    await until(() => folds.usage().folds === 2);

    const refused = await rejection(storiesAt(folds, 25));
    expect(refused).to.be.instanceOf(DomainError);
    expect((refused as DomainError).code).to.equal('server_under_load');
    expect((refused as DomainError).retryAfterSeconds).to.be.a('number').and.at.least(1);
    expect(folds.usage().folds, 'nothing kept of the refused fold').to.equal(2);
    expect(folds.usage().folding, 'one fold running, one waiting').to.equal(2);
    expect(reads.waiting(), 'the queued fold has not started').to.equal(1);

    reads.resume();
    expect(await running).to.deep.equal(await storiesAt(reference, 10));
    expect(await sharing).to.deep.equal(await storiesAt(reference, 10));
    expect(await queued).to.deep.equal(await storiesAt(reference, 20));
    // the queue drained: the refused version folds now, right
    expect(await storiesAt(folds, 25)).to.deep.equal(await storiesAt(reference, 25));
    expect(folds.usage().folding).to.equal(0);
    await folds.close();
    await reference.close();
  });

  it('counts the fold in flight from what it starts from, evicting cached folds to stay within the budget', async () => {
    const reads = controlledReads(seeded.app.storyline.eventStore);
    const measure = history(seeded.app.storyline.eventStore);
    await storiesAt(measure, 20);
    const oneFold = measure.usage().estimatedBytes;
    await measure.close();
    expect(oneFold).to.be.greaterThan(0);

    // Room for a fold and a half: the fold at 20 is cached; a fold at 28 starts from a copy of it.
    const folds = history(reads.eventStore, { cacheBytes: Math.floor(oneFold * 1.5) });
    await storiesAt(folds, 20);
    expect(folds.usage().estimatedBytes).to.equal(oneFold);
    reads.pause();
    const forward = storiesAt(folds, 28);
    await until(() => reads.waiting() === 1); // its start copied, its events not yet read
    expect(folds.usage().estimatedBytes, 'only the fold in flight: the cached one it copied was evicted for it').to.equal(oneFold);
    expect(folds.usage().folds).to.equal(1);
    reads.resume();
    await forward;
    expect(folds.usage().estimatedBytes).to.be.greaterThan(0).and.at.most(Math.floor(oneFold * 1.5));
    expect(folds.usage().folds).to.equal(1);
    await folds.close();
  });

  it('never evicts a fold a reader holds, and evicts it once released', async () => {
    const folds = history(seeded.app.storyline.eventStore, { cacheBytes: 1 });
    const holding = await folds.readerAt(seeded.project, 12);
    const before = await holding('stories').all();
    await storiesAt(folds, 24); // the newest: kept whatever its size
    expect(folds.usage().folds, 'the held fold stays beside the newest').to.equal(2);
    expect(await holding('stories').all()).to.deep.equal(before);
    holding.release();
    expect(folds.usage().folds).to.equal(1);
    await folds.close();
  });

  it('answers component_unavailable for a fold that fails, keeps nothing of it, and folds again at the next read', async () => {
    const reads = controlledReads(seeded.app.storyline.eventStore);
    const folds = history(reads.eventStore);
    reads.failing.on = true;
    const failed = await rejection(storiesAt(folds, 15));
    expect(failed).to.be.instanceOf(DomainError);
    expect((failed as DomainError).code).to.equal('component_unavailable');
    expect((failed as DomainError).details.general_problem).to.include('version 15').and.include('disk I/O error');
    expect(folds.usage().folds).to.equal(0);
    expect(folds.usage().estimatedBytes).to.equal(0);
    reads.failing.on = false;
    const reference = history(seeded.app.storyline.eventStore);
    expect(await storiesAt(folds, 15)).to.deep.equal(await storiesAt(reference, 15));
    await folds.close();
    await reference.close();
  });
});
