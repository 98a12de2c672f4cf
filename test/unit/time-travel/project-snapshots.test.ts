// Persisted snapshots behind cold time travel: a fold that starts from a snapshot holds exactly the
// documents of a fold from the first event and reads fewer than K events; a projection whose version
// changed never starts from a snapshot of its earlier version; the reaction asks for a snapshot at every
// K-th version of a project and records how far it came.
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import { FoldingProjectHistory } from '../../../src/infra/time-travel/project-history.js';
import { ProjectSnapshotter, snapshottedProjections } from '../../../src/infra/time-travel/project-snapshotter.js';
import { openSqliteReadModelSnapshotStore, type ReadModelSnapshotStore } from '../../../src/infra/time-travel/read-model-snapshot-store.js';
import type { RecordedEvent } from '../../../src/domain/events.js';
import type { Projection } from '../../../src/projections/projection.js';
import { projections } from '../../../src/projections/registry.js';
import type { EventStore, ReadStreamOptions } from '../../../src/ports/event-store.js';
import { projectSnapshotsReaction, type ProjectSnapshots } from '../../../src/reactions/project-snapshots.js';
import { storylineApp } from '../../api/support/storyline-app.js';
import { seededProjectHistorySuite, writeSeededProjectHistory } from './seeded-project-history.js';

const EVERY = 4;

/** The event store, counting the events its stream reads return. */
function countingReads(source: EventStore): { eventStore: EventStore; read: { events: number } } {
  const read = { events: 0 };
  const readStream = async (stream: string, options?: ReadStreamOptions) => {
    const events = await source.readStream(stream, options);
    read.events += events.length;
    return events;
  };
  const eventStore = new Proxy(source, {
    get(target, key) {
      if (key === 'readStream') return readStream;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { eventStore, read };
}

async function everyEvent(eventStore: EventStore): Promise<RecordedEvent[]> {
  return eventStore.readAll({ after: 0, limit: 1_000_000 });
}

/** Runs the snapshot reaction over the whole log, as the reaction runner would after a start. */
async function takeSnapshots(eventStore: EventStore, store: ReadModelSnapshotStore, over: readonly Projection[]): Promise<void> {
  const history = new FoldingProjectHistory({ eventStore, projections: over, newReadStore: createMemoryReadStore, cacheEntries: over.length, cacheBytes: 1 << 30, snapshots: store });
  const reaction = projectSnapshotsReaction(new ProjectSnapshotter({ history, store, projections: over }), EVERY);
  expect(await reaction.resumeAfter!(0)).to.equal(0);
  await reaction.handle(await everyEvent(eventStore));
  await history.close();
}

describe('time travel: persisted snapshots', function () {
  this.timeout(60_000);
  const seeded = seededProjectHistorySuite(30);

  const cold = (eventStore: EventStore, over: readonly Projection[], snapshots?: ReadModelSnapshotStore) =>
    new FoldingProjectHistory({ eventStore, projections: over, newReadStore: createMemoryReadStore, cacheEntries: 1, cacheBytes: 1 << 30, ...(snapshots ? { snapshots } : {}) });

  it('folds from the snapshot at or below N to the documents of a fold from the first event, reading fewer than K events', async () => {
    const { app, project, version } = seeded;
    const store = openSqliteReadModelSnapshotStore(':memory:');
    const snapshotted = snapshottedProjections(projections);
    await takeSnapshots(app.storyline.eventStore, store, snapshotted);
    expect(await store.storedBytes()).to.be.greaterThan(0);
    const collections = snapshotted.flatMap((projection) => projection.collections.map(({ name }) => name));
    for (let at = 1; at <= version; at++) {
      const counted = countingReads(app.storyline.eventStore);
      const withSnapshots = cold(counted.eventStore, projections, store);
      const without = cold(app.storyline.eventStore, projections);
      const [fromSnapshot, fromFirst] = [await withSnapshots.readerAt(project, at), await without.readerAt(project, at)];
      expect(await fromSnapshot('stories').all(), `stories at ${at}`).to.deep.equal(await fromFirst('stories').all());
      // the resources fold alone: the events since the snapshot (fewer than K) and the one read of its head
      expect(counted.read.events, `events read for a fold at ${at}`).to.equal((at % EVERY) + 1);
      for (const name of collections) expect(await fromSnapshot(name).all(), `${name} at ${at}`).to.deep.equal(await fromFirst(name).all());
      await withSnapshots.close();
      await without.close();
    }
    await store.close();
  });

  it('never starts from a snapshot whose event the log does not hold (another log), and discards it', async () => {
    const { app, project, version } = seeded;
    const store = openSqliteReadModelSnapshotStore(':memory:');
    const resources = projections.filter((projection) => projection.name === 'resources');
    await takeSnapshots(app.storyline.eventStore, store, resources);
    const other = await storylineApp();
    try {
      const replayed = await writeSeededProjectHistory(other, 30);
      expect(replayed).to.include({ project, version });
      const at = version - (version % EVERY);
      expect((await store.nearest(project, resources[0]!, at))?.version).to.equal(at);
      const counted = countingReads(other.storyline.eventStore);
      const fromOtherLog = cold(counted.eventStore, resources, store);
      expect(await (await fromOtherLog.readerAt(project, at))('stories').all()).to.deep.equal(await (await cold(other.storyline.eventStore, resources).readerAt(project, at))('stories').all());
      expect(counted.read.events, 'folded from the first event').to.equal(at + 1);
      expect((await store.nearest(project, resources[0]!, at))?.version, 'the snapshot at it is discarded').to.be.lessThan(at);
      await fromOtherLog.close();
    } finally {
      await other.close();
      await store.close();
    }
  });

  it('never starts a projection from a snapshot of its earlier version, and takes them again for the new one', async () => {
    const { app, project, version } = seeded;
    const tally = (version: number): Projection => ({
      name: 'tally',
      version,
      collections: [{ name: 'tallies', indexes: [] }],
      apply: (event) => [{ collection: 'tallies', ops: [{ op: 'upsert', filter: { id: 1 }, update: { $set: { seen: event.version, meaning: `v${version}` } } }] }],
    });
    const store = openSqliteReadModelSnapshotStore(':memory:');
    await takeSnapshots(app.storyline.eventStore, store, [tally(1)]);
    const before = await store.storedBytes();
    expect(before).to.be.greaterThan(0);
    for (const at of [EVERY, EVERY + 1, version]) {
      const bumped = cold(app.storyline.eventStore, [tally(2)], store);
      const [doc] = await (await bumped.readerAt(project, at))('tallies').all();
      expect(doc).to.include({ meaning: 'v2' });
      await bumped.close();
    }
    // the reaction starts the new version at 0 (the old snapshots deleted) and takes its own
    const snapshotter = new ProjectSnapshotter({ history: cold(app.storyline.eventStore, [tally(2)], store), store, projections: [tally(2)] });
    expect(await snapshotter.takenUpTo()).to.equal(0);
    expect(await store.storedBytes()).to.equal(0);
    await takeSnapshots(app.storyline.eventStore, store, [tally(2)]);
    const snapshot = await store.nearest(project, tally(2), version);
    expect(snapshot?.version).to.equal(version - (version % EVERY));
    expect(JSON.stringify(snapshot?.collections)).to.include('"meaning":"v2"').and.not.include('"meaning":"v1"');
    await store.close();
  });
});

describe('the project-snapshots reaction', () => {
  function recording(): ProjectSnapshots & { taken: Array<[number, number, number]>; recorded: number[] } {
    const taken: Array<[number, number, number]> = [];
    const recorded: number[] = [];
    return {
      taken,
      recorded,
      takenUpTo: async () => 7,
      take: async (projectId, version, position) => void taken.push([projectId, version, position]),
      recordTakenUpTo: async (position) => void recorded.push(position),
    };
  }
  const event = (stream: string, version: number, position: number) => ({ stream, version, position }) as RecordedEvent;

  it('asks for a snapshot at every K-th version of each project stream, then records the batch as handled', async () => {
    const port = recording();
    const reaction = projectSnapshotsReaction(port, 3);
    expect(await reaction.resumeAfter!(100)).to.equal(7);
    await reaction.handle([event('project-1', 2, 10), event('project-1', 3, 11), event('person-3', 3, 12), event('project-2', 6, 13), event('project-1', 4, 14)]);
    expect(port.taken).to.deep.equal([[1, 3, 11], [2, 6, 13]]);
    expect(port.recorded).to.deep.equal([14]);
  });

  it('refuses an interval that is not a positive integer', () => {
    for (const every of [0, -3, 1.5, Number.NaN]) expect(() => projectSnapshotsReaction(recording(), every)).to.throw(/positive integer/);
  });
});
