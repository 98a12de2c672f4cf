// The projector runner over the SQLite event store (in memory) and the memory read store: catch-up,
// following, read-your-writes, checkpoints, replays, rebuilds into a fresh generation.
import { expect } from 'chai';
import type { ResourceChange } from '../../../src/domain/events.js';
import { openSqliteEventStore } from '../../../src/infra/event-store/sqlite-event-store.js';
import type { EventStore, ReadAllOptions } from '../../../src/ports/event-store.js';
import { CHECKPOINTS, ProjectorRunner, ProjectorStopped, checkpointId, physicalName } from '../../../src/infra/projector/projector-runner.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import type { Doc, ReadStore } from '../../../src/ports/read-store.js';
import type { Projection } from '../../../src/projections/projection.js';
import { resourcesProjection } from '../../../src/projections/resources/resources-projection.js';
import { performerActivityProjection } from '../../../src/projections/activity/performer-activity-projection.js';
import { subjectActivityProjection } from '../../../src/projections/activity/subject-activity-projection.js';
import { created, deleted, eventOf, updated } from '../projections/resource-events.js';

async function append(events: EventStore, stream: string, changes: ResourceChange[]): Promise<number> {
  return (await events.append(stream, 'any', [eventOf(changes)])).position;
}

/** Two projects with `stories` stories each, every story updated once and every fifth deleted. */
async function seed(events: EventStore, stories = 20): Promise<number> {
  let position = 0;
  for (const project of [10, 20]) {
    position = await append(events, `project-${project}`, [created('project', project, { name: `P${project}` })]);
    for (let i = 0; i < stories; i++) {
      const id = project * 1000 + i;
      await append(events, `project-${project}`, [created('story', id, { name: `s${i}`, estimate: i % 3 }, `r${i}`)]);
      position = await append(events, `project-${project}`, [updated('story', id, { current_state: 'started', estimate: null })]);
      if (i % 5 === 0) position = await append(events, `project-${project}`, [deleted('story', id)]);
    }
  }
  return position;
}

/** Every live collection of the resources projection, as text: the byte-level comparison of read models. */
async function liveDump(runner: ProjectorRunner): Promise<string> {
  const out: Record<string, Doc[]> = {};
  for (const { name } of resourcesProjection.collections) out[name] = await runner.collection(name).all();
  return JSON.stringify(out);
}

/** An event store whose readAll can be held at a gate (to observe a rebuild half-way). */
function gated(inner: EventStore) {
  let gate: Promise<void> | null = null;
  let open: () => void = () => undefined;
  let reached: () => void = () => undefined;
  let arrived = new Promise<void>((resolve) => (reached = resolve));
  const store: EventStore = {
    append: (...args) => inner.append(...args),
    readStream: (...args) => inner.readStream(...args),
    async readAll(options?: ReadAllOptions) {
      if (gate && (options?.after ?? 0) > 0) {
        reached();
        await gate;
      }
      return inner.readAll(options);
    },
    readChain: (options) => inner.readChain(options),
    streamVersion: (stream) => inner.streamVersion(stream),
    headPosition: () => inner.headPosition(),
    appended$: inner.appended$,
    close: () => inner.close(),
  };
  return {
    store,
    /** Holds every read after position 0 until release(); arrived() settles when one is held. */
    hold() {
      gate = new Promise((resolve) => (open = resolve));
      arrived = new Promise<void>((resolve) => (reached = resolve));
      return () => arrived;
    },
    release() {
      gate = null;
      open();
    },
  };
}

describe('projector runner', function () {
  this.timeout(20_000);
  let events: EventStore;
  let reads: ReadStore;
  const runners: ProjectorRunner[] = [];

  beforeEach(async () => {
    events = await openSqliteEventStore({ path: ':memory:', pollIntervalMs: 20 });
    reads = createMemoryReadStore();
  });
  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop();
    await events.close();
  });

  function runnerOf(options: { batchSize?: number; projections?: Projection[]; eventStore?: EventStore; foldRebuilds?: boolean } = {}) {
    const runner = new ProjectorRunner({
      eventStore: options.eventStore ?? events,
      readStore: reads,
      projections: options.projections ?? [resourcesProjection],
      batchSize: options.batchSize ?? 7,
      foldRebuilds: options.foldRebuilds ?? false,
    });
    runners.push(runner);
    return runner;
  }

  it('catches up with the log at start, in batches, and reports what it read', async () => {
    const head = await seed(events);
    const runner = runnerOf();
    const report = await runner.start();
    expect(report).to.include({ eventsRead: head, position: head });
    expect(report.rebuilding).to.deep.equal([]);
    expect(await runner.collection('stories').count({ project_id: 10 })).to.equal(16);
    expect(await runner.collection('stories').findOne({ id: 10001 })).to.deep.include({ name: 's1', current_state: 'started', project_id: 10 });
    expect((await runner.collection('projects').findOne({ id: 20 }))?.version).to.equal(1 + 20 * 2 + 4);
    expect(await reads.listCollections()).to.include.members([CHECKPOINTS, physicalName('stories', 1)]);
  });

  it('follows appends after start; waitFor resolves once they are applied, at once when already there', async () => {
    const runner = runnerOf();
    await runner.start();
    const position = await append(events, 'project-10', [created('project', 10, { name: 'P' })]);
    await runner.waitFor(position);
    expect(await runner.collection('projects').findOne({ id: 10 })).to.deep.include({ name: 'P', version: 1 });
    await runner.waitFor(position);
    const positions = await Promise.all(
      Array.from({ length: 30 }, (_, i) => append(events, 'project-10', [created('story', i + 1, { name: `s${i}` })])),
    );
    await runner.waitFor(Math.max(...positions));
    expect(await runner.collection('stories').count({ project_id: 10 })).to.equal(30);
    expect(runner.position).to.equal(31);
  });

  it('moves its change stamp once a batch is visible and at a rebuild\'s switch-over, never while nothing changed', async () => {
    // A folded rebuild applies no batch to the live path: only its switch-over can move the stamp.
    const runner = runnerOf({ foldRebuilds: true });
    await runner.start();
    const idle = runner.stamp();
    expect(runner.stamp()).to.equal(idle);
    const position = await append(events, 'project-10', [created('project', 10, { name: 'P' })]);
    await runner.waitFor(position);
    const afterWrite = runner.stamp();
    expect(afterWrite).to.be.greaterThan(idle);
    // What waitFor promised is readable under the new stamp.
    expect(await runner.collection('projects').findOne({ id: 10 })).to.deep.include({ name: 'P' });
    await runner.rebuild('resources');
    expect(runner.stamp()).to.be.greaterThan(afterWrite);
  });

  it('tells which stories each live batch wrote to a followed collection since a stamp, and that any may have changed after a switch-over', async () => {
    const runner = runnerOf({ foldRebuilds: true });
    await runner.start();
    const stamp = () => runner.stampOf(['stories']);
    expect(runner.writtenSince('stories', stamp()), 'a collection not followed').to.equal(null);
    runner.followWrites(['stories']);
    const before = stamp();
    expect([...runner.writtenSince('stories', before)!]).to.deep.equal([]);
    await runner.waitFor(await append(events, 'project-10', [created('project', 10, { name: 'P' })]));
    await runner.waitFor(await append(events, 'project-10', [created('story', 7, { name: 'seven' }, 'r7')]));
    const afterSeven = stamp();
    await runner.waitFor(await append(events, 'project-10', [updated('story', 7, { name: 'SEVEN' }), created('story', 8, { name: 'eight' }, 'r8')]));
    await runner.waitFor(await append(events, 'project-10', [deleted('story', 8)]));
    expect([...runner.writtenSince('stories', before)!].sort()).to.deep.equal([7, 8]);
    expect([...runner.writtenSince('stories', afterSeven)!].sort()).to.deep.equal([7, 8]);
    expect([...runner.writtenSince('stories', stamp())!]).to.deep.equal([]);
    await runner.rebuild('resources');
    expect(runner.writtenSince('stories', afterSeven), 'a switch-over rewrote every story').to.equal(null);
    expect([...runner.writtenSince('stories', stamp())!]).to.deep.equal([]);
  });

  it('settles a waitFor made before start once start has caught up', async () => {
    const head = await seed(events, 3);
    const runner = runnerOf();
    const waited = runner.waitFor(head);
    await runner.start();
    await waited;
    expect(runner.position).to.equal(head);
  });

  it('rejects pending and later waitFor calls with ProjectorStopped on stop', async () => {
    const runner = runnerOf();
    await runner.start();
    const pending = runner.waitFor(1_000);
    await runner.stop();
    const failures = await Promise.allSettled([pending, runner.waitFor(1)]);
    for (const failure of failures) {
      expect(failure.status).to.equal('rejected');
      expect((failure as PromiseRejectedResult).reason).to.be.instanceOf(ProjectorStopped);
    }
  });

  it('resumes from its checkpoint after a restart, reading only the new events', async () => {
    const first = await seed(events, 5);
    const before = runnerOf();
    await before.start();
    await before.stop();
    const later = await append(events, 'project-10', [updated('story', 10001, { name: 'renamed' })]);
    const after = runnerOf();
    const report = await after.start();
    expect(report.eventsRead).to.equal(later - first);
    expect(await after.collection('stories').findOne({ id: 10001 })).to.deep.include({ name: 'renamed' });
    expect(await reads.collection(CHECKPOINTS).findOne({ id: checkpointId('resources') })).to.deep.include({
      name: 'resources',
      version: resourcesProjection.version,
      generation: 1,
      position: later,
    });
  });

  it('leaves byte-identical read models when the events are applied again (checkpoint lost)', async () => {
    const head = await seed(events);
    const first = runnerOf();
    await first.start();
    const once = await liveDump(first);
    await first.stop();
    await reads.collection(CHECKPOINTS).write([
      { op: 'update', filter: { id: checkpointId('resources') }, update: { $set: { position: 0 } } },
    ]);
    const again = runnerOf({ batchSize: 11 });
    const report = await again.start();
    expect(report.eventsRead).to.equal(head);
    expect(await liveDump(again)).to.equal(once);
  });

  it('rebuilds into a fresh generation while reads keep working, then switches over and drops the old one', async () => {
    const head = await seed(events);
    const gate = gated(events);
    const runner = runnerOf({ eventStore: gate.store, batchSize: 5 });
    await runner.start();
    const live = await liveDump(runner);

    const heldRead = gate.hold();
    const rebuilding = runner.rebuild('resources');
    await heldRead();
    // Half-way: the new generation exists and is partial; the live one still answers in full.
    expect(await reads.listCollections()).to.include.members([physicalName('stories', 1), physicalName('stories', 2)]);
    expect(await reads.collection(physicalName('stories', 2)).count({})).to.be.below(32);
    expect(await runner.collection('stories').count({})).to.equal(32);
    expect(await liveDump(runner)).to.equal(live);
    gate.release();

    const report = await rebuilding;
    expect(report).to.include({ projection: 'resources', generation: 2, position: head });
    expect(await liveDump(runner)).to.equal(live);
    const collections = await reads.listCollections();
    expect(collections).to.include(physicalName('stories', 2));
    expect(collections).to.not.include(physicalName('stories', 1));
    expect(await reads.collection(CHECKPOINTS).findOne({ id: checkpointId('resources') })).to.deep.include({ generation: 2, position: head });
  });

  it('rebuilds several projections from one read of the log, reporting progress, and switches them together', async () => {
    const head = await seed(events, 10);
    let read = 0;
    const counting: EventStore = {
      ...events,
      append: (...args) => events.append(...args),
      readStream: (...args) => events.readStream(...args),
      streamVersion: (stream) => events.streamVersion(stream),
      headPosition: () => events.headPosition(),
      close: () => events.close(),
      async readAll(options?: ReadAllOptions) {
        const batch = await events.readAll(options);
        read += batch.length;
        return batch;
      },
    };
    const runner = runnerOf({ eventStore: counting, batchSize: 4, projections: [resourcesProjection, performerActivityProjection, subjectActivityProjection] });
    await runner.start();
    const live = await liveDump(runner);
    read = 0;
    const progress: number[] = [];
    const reports = await runner.rebuildTogether(['resources', 'performer_activity', 'subject_activity'], ({ eventsRead, total }) => {
      expect(total).to.equal(head);
      progress.push(eventsRead);
    });
    expect(read).to.equal(head);
    expect(progress.at(-1)).to.equal(head);
    expect(reports.map((report) => [report.projection, report.generation, report.position])).to.deep.equal([
      ['resources', 2, head],
      ['performer_activity', 2, head],
      ['subject_activity', 2, head],
    ]);
    expect(await liveDump(runner)).to.equal(live);
    const checkpoints = await reads.collection(CHECKPOINTS).all();
    expect(checkpoints.map((doc) => [doc['name'], doc['generation'], doc['position']])).to.have.deep.members([
      ['resources', 2, head],
      ['performer_activity', 2, head],
      ['subject_activity', 2, head],
    ]);
  });

  for (const foldRebuilds of [false, true]) {
    it(`lets the event loop turn between the batches of a rebuild${foldRebuilds ? ' folded in memory' : ''} and of a backlog`, async () => {
      const head = await seed(events);
      const runner = runnerOf({ batchSize: 4, foldRebuilds });
      await runner.start();
      // An immediate queued as the rebuild starts runs at the first turn it gives back: with every read
      // resolving at once, a rebuild that never yields would have read the whole log first.
      let readAtFirstTurn = -1;
      let read = 0;
      setImmediate(() => (readAtFirstTurn = read));
      await runner.rebuildTogether(['resources'], ({ eventsRead }) => (read = eventsRead));
      expect(readAtFirstTurn).to.be.within(0, head - 1);

      // A backlog of ten batches: an immediate queued once the first is applied runs before the rest.
      const before = runner.position;
      let appliedAtNextTurn = -1;
      const firstApplied = runner.waitFor(before + 1).then(() => setImmediate(() => (appliedAtNextTurn = runner.position)));
      const stories = Array.from({ length: 40 }, (_, i) => eventOf([created('story', 30_000 + i, { name: `b${i}` })]));
      const backlog = (await events.append('project-30', 'any', stories.map((event) => ({ ...event, meta: stories[0]!.meta })))).position;
      await firstApplied;
      await runner.waitFor(backlog);
      expect(appliedAtNextTurn).to.be.within(before + 1, backlog - 1);
    });
  }

  it('builds the read models again when their checkpoint is ahead of the log (a log restored from an older copy)', async () => {
    await seed(events, 6);
    const first = runnerOf();
    await first.start();
    await first.stop();
    const older = await openSqliteEventStore({ path: ':memory:' });
    try {
      const head = await seed(older, 2);
      const restarted = runnerOf({ eventStore: older });
      const report = await restarted.start();
      expect(report).to.include({ eventsRead: head, position: head });
      const reference = new ProjectorRunner({ eventStore: older, readStore: createMemoryReadStore(), projections: [resourcesProjection] });
      runners.push(reference);
      await reference.start();
      expect(await liveDump(restarted)).to.equal(await liveDump(reference));
      expect(await reads.listCollections()).to.not.include(physicalName('stories', 1));
    } finally {
      for (const runner of runners.splice(0)) await runner.stop();
      await older.close();
    }
  });

  it('commits each batch with every checkpoint in one atomic write of the read store', async () => {
    const head = await seed(events, 3);
    const writes: string[][] = [];
    const inner = reads;
    reads = { ...inner, async writeAtomically(batch) {
      writes.push(batch.map(({ collection }) => collection));
      return inner.writeAtomically(batch);
    } };
    const runner = runnerOf({ batchSize: 5 });
    await runner.start();
    expect(writes).to.have.length(Math.ceil(head / 5));
    for (const collections of writes) expect(collections.at(-1)).to.equal(CHECKPOINTS);
    expect(await inner.collection(CHECKPOINTS).findOne({ id: checkpointId('resources') })).to.deep.include({ position: head });
  });

  it('applies events appended during a rebuild to both generations before switching', async () => {
    await seed(events, 5);
    const gate = gated(events);
    const runner = runnerOf({ eventStore: gate.store, batchSize: 3 });
    await runner.start();
    const heldRead = gate.hold();
    const rebuilding = runner.rebuild('resources');
    await heldRead();
    const position = await append(events, 'project-20', [created('story', 99, { name: 'late' })]);
    gate.release();
    await runner.waitFor(position);
    await rebuilding;
    expect(await runner.collection('stories').findOne({ id: 99 })).to.deep.include({ name: 'late', project_id: 20 });
    const fresh = createMemoryReadStore();
    const reference = new ProjectorRunner({ eventStore: events, readStore: fresh, projections: [resourcesProjection] });
    runners.push(reference);
    await reference.start();
    expect(await liveDump(runner)).to.equal(await liveDump(reference));
  });

  it('rebuilds a projection whose version changed, after start-up, and keeps serving meanwhile', async () => {
    const head = await seed(events, 5);
    const first = runnerOf();
    await first.start();
    const before = await liveDump(first);
    await first.stop();

    const bumped: Projection = { ...resourcesProjection, version: resourcesProjection.version + 1 };
    const runner = runnerOf({ projections: [bumped] });
    const report = await runner.start();
    expect(report.rebuilding).to.deep.equal(['resources']);
    expect(await runner.collection('stories').count({})).to.equal(8);
    const [rebuilt] = await runner.rebuildsSettled();
    expect(rebuilt).to.include({ generation: 2, position: head });
    expect(await liveDump(runner)).to.equal(before);
    expect(await reads.collection(CHECKPOINTS).findOne({ id: checkpointId('resources') })).to.deep.include({
      version: bumped.version,
      generation: 2,
    });
  });

  it('drops generations left behind by an interrupted rebuild at start', async () => {
    await seed(events, 2);
    await reads.collection(physicalName('stories', 2)).write([{ op: 'insert', doc: { id: 1, leftover: true } }]);
    const runner = runnerOf();
    await runner.start();
    expect(await reads.listCollections()).to.not.include(physicalName('stories', 2));
    expect(await runner.collection('stories').count({ leftover: true })).to.equal(0);
  });

  it('rejects waitFor instead of hanging when a projection fails, and retries on the next append', async () => {
    let failing = true;
    const fragile: Projection = {
      ...resourcesProjection,
      apply(event) {
        if (failing && event.type === 'story_update') throw new Error('projection bug');
        return resourcesProjection.apply(event);
      },
    };
    const runner = runnerOf({ projections: [fragile] });
    await runner.start();
    const position = await append(events, 'project-10', [updated('story', 1, { name: 'x' })]);
    let failure: unknown;
    await runner.waitFor(position).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error).with.property('message', 'projection bug');
    failing = false;
    const next = await append(events, 'project-10', [created('project', 10, { name: 'P' })]);
    await runner.waitFor(next);
    expect(await runner.collection('projects').findOne({ id: 10 })).to.deep.include({ version: 2 });
  });

  it('refuses projections that share a collection', () => {
    expect(() => runnerOf({ projections: [resourcesProjection, { ...resourcesProjection, name: 'copy' }] })).to.throw(/declared by/);
  });
});
