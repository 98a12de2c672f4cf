// The one command handler and the id allocator, over the embedded event store: one event per command,
// versions that follow, conflicts with another writer resolved by deciding again, a bounded retry,
// idempotent commands, ids unique across allocators, and read-your-writes through the projections.
import { expect } from 'chai';
import { CommandHandler, type CommandHandlerOptions, type CommandMeta } from '../../../src/commands/command-handler.js';
import type { Decide } from '../../../src/domain/decision.js';
import { DomainError, invalidField } from '../../../src/domain/errors.js';
import { streams } from '../../../src/domain/events.js';
import type { ProjectState } from '../../../src/domain/project-state.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../../src/infra/event-store/sqlite-event-store.js';
import { WrongExpectedVersion, type EventStore } from '../../../src/ports/event-store.js';
import { IdAllocator } from '../../../src/infra/id-allocator.js';
import { CachedStreamStates, type CachedStreamStatesOptions } from '../../../src/infra/stream-states/cached-stream-states.js';
import { memoryDecisionStateSnapshots } from '../../../src/infra/decision-state-snapshots/sqlite-decision-state-snapshots.js';
import type { DecisionStateSnapshotBuilder, DecisionStateSnapshots } from '../../../src/ports/decision-state-snapshots.js';

const STREAM = streams.project(7);

/** Adds one label named `name`; refuses a name already taken (a rule that reads the state). */
function addLabel(name: string): Decide<ProjectState> {
  return (state, context) => {
    const taken = [...(state.labels ?? [])].some((label) => label['name'] === name);
    if (taken) throw invalidField('name', `${name} is taken`);
    const id = context.nextId('label');
    return {
      type: 'label_create',
      data: { changes: [{ kind: 'label', change_type: 'create', id, new_values: { id, name, created_at: context.now } }], primary_resources: [] },
      subject: { kind: 'label', id },
    };
  };
}

/** Adds `count` labels in one event, each with an id of its own. */
function addLabels(count: number): Decide<ProjectState> {
  return (_state, context) => {
    const changes = Array.from({ length: count }, (_, n) => {
      const id = context.nextId('label');
      return { kind: 'label' as const, change_type: 'create' as const, id, new_values: { id, name: `bulk-${n}`, created_at: context.now } };
    });
    return { type: 'label_create', data: { changes, primary_resources: [] }, subject: { kind: 'label', id: changes[0]!.id } };
  };
}

let commandCount = 0;
function meta(overrides: Partial<CommandMeta> = {}): CommandMeta {
  return { commandId: `command-${++commandCount}`, actorId: 1, now: 1_700_000_000_000, ...overrides };
}

/** A handler over the one StreamStates adapter, made with the adapter's options beside the handler's. */
function handlerWith(options: Omit<CommandHandlerOptions, 'states'> & Omit<CachedStreamStatesOptions, 'eventStore'>): CommandHandler {
  const { eventStore, ids, projections, maxAttempts, ...stateOptions } = options;
  return new CommandHandler({ eventStore, ids, projections, maxAttempts, states: new CachedStreamStates({ eventStore, ...stateOptions }) });
}

function handlerOver(eventStore: EventStore, waited: number[] = [], blockSize = 100): CommandHandler {
  return handlerWith({
    eventStore,
    ids: new IdAllocator(eventStore, { blockSize }),
    projections: { waitFor: async (position) => void waited.push(position) },
  });
}

describe('command handler', () => {
  let store: SqliteEventStore;
  beforeEach(async () => {
    store = await openSqliteEventStore({ path: ':memory:' });
  });
  afterEach(() => store.close());

  it('appends one event per command, numbered by the stream version, and waits for its position', async () => {
    const waited: number[] = [];
    const handler = handlerOver(store, waited);
    const first = await handler.execute(STREAM, addLabel('alpha'), meta());
    const second = await handler.execute(STREAM, addLabel('beta'), meta());
    expect([first.version, second.version]).to.deep.equal([1, 2]);
    expect(waited).to.deep.equal([first.position, second.position]);
    expect(second.event).to.include({ stream: STREAM, version: 2, type: 'label_create' });
    expect(second.event.meta).to.include({ performed_by: 1, occurred_at: 1_700_000_000_000 });
    expect([...second.state.labels].map((label) => label['name'])).to.deep.equal(['alpha', 'beta']);
    expect((await store.readStream(STREAM)).map((event) => event.version)).to.deep.equal([1, 2]);
  });

  it('lets the event loop turn between the pages of a long stream it reads cold', async () => {
    const warm = handlerOver(store);
    for (let n = 0; n < 2_100; n++) await warm.execute(STREAM, addLabels(1), meta());
    let pagesRead = 0;
    const counting: EventStore = { ...store, readStream: (...args) => (pagesRead++, store.readStream(...args)) };
    const cold = handlerOver(counting);
    // An immediate queued as the command starts runs at the first turn the cold read gives back: a read
    // that never yielded would have taken all three pages (1,000 events each) first.
    let pagesAtFirstTurn = -1;
    setImmediate(() => (pagesAtFirstTurn = pagesRead));
    const outcome = await cold.execute(STREAM, addLabel('after a long history'), meta());
    expect(outcome.version).to.equal(2_101);
    expect(pagesAtFirstTurn).to.be.within(1, 2);
  });

  it('writes to other streams while one stream\'s cold load waits for its reads (a cold disk)', async () => {
    const [slow, other] = [streams.project(31), streams.project(32)];
    await handlerOver(store).execute(slow, addLabel('written before the start'), meta());
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slowReads: EventStore = {
      ...store,
      readStream: async (stream, options) => {
        if (stream === slow) await released;
        return store.readStream(stream, options);
      },
    };
    const handler = handlerOver(slowReads);
    let slowDone = false;
    const slowWrite = handler.execute(slow, addLabel('behind a slow read'), meta()).then((outcome) => ((slowDone = true), outcome));
    for (let n = 1; n <= 3; n++) expect((await handler.execute(other, addLabel(`meanwhile ${n}`), meta())).version).to.equal(n);
    expect(slowDone, 'the slow stream still waits for its read').to.equal(false);
    release();
    expect((await slowWrite).version).to.equal(2);
  });

  it('writes to other streams while one stream waits for the snapshot builder', async () => {
    const [cold, other] = [streams.project(41), streams.project(42)];
    for (let n = 0; n < 12; n++) await handlerOver(store).execute(cold, addLabel(`old ${n}`), meta());
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const asked: string[] = [];
    const builder: DecisionStateSnapshotBuilder = {
      async catchUp(stream) {
        asked.push(stream);
        await released; // a build of a long history from a cold disk
      },
      close: async () => undefined,
    };
    const handler = handlerWith({
      eventStore: store,
      ids: new IdAllocator(store, { blockSize: 100 }),
      projections: { waitFor: async () => undefined },
      snapshots: memoryDecisionStateSnapshots(),
      snapshotBuilder: builder,
      snapshotEvery: 10,
    });
    let coldDone = false;
    const coldWrite = handler.execute(cold, addLabel('after the build'), meta()).then((outcome) => ((coldDone = true), outcome));
    for (let n = 1; n <= 3; n++) expect((await handler.execute(other, addLabel(`meanwhile ${n}`), meta())).version).to.equal(n);
    expect(asked).to.deep.equal([cold]);
    expect(coldDone).to.equal(false);
    release();
    expect((await coldWrite).version).to.equal(13);
  });

  it('keeps stream states up to a bound on their documents, letting the least recently used go first', async () => {
    const coldLoads: string[] = [];
    const counting: EventStore = {
      ...store,
      readStream: (stream, options) => {
        if ((options?.from ?? 1) === 1) coldLoads.push(stream);
        return store.readStream(stream, options);
      },
    };
    const handler = handlerWith({ eventStore: counting, ids: new IdAllocator(store, { blockSize: 100 }), projections: { waitFor: async () => undefined }, cacheDocuments: 4 });
    const [a, b] = [streams.project(21), streams.project(22)];
    const projectLoads = () => coldLoads.filter((stream) => stream.startsWith('project'));
    await handler.execute(a, addLabels(3), meta());
    await handler.execute(b, addLabels(3), meta()); // 3 + 3 documents over 4: a, used longest ago, goes
    await handler.execute(b, addLabel('b1'), meta());
    expect(projectLoads()).to.deep.equal([a, b]);
    const outcome = await handler.execute(a, addLabel('a1'), meta()); // folded again from the log; b goes
    expect([...outcome.state.labels].map((label) => label['name'])).to.deep.equal(['bulk-0', 'bulk-1', 'bulk-2', 'a1']);
    await handler.execute(a, addLabel('a2'), meta()); // larger than the bound alone, and kept
    expect(projectLoads()).to.deep.equal([a, b, a]);
    await handler.execute(b, addLabel('b2'), meta());
    expect(projectLoads()).to.deep.equal([a, b, a, b]);
  });

  describe('stream state snapshots', () => {
    /** A handler over `eventStore` with `snapshots` every 10 events, and the `from` of every stream read it makes. */
    function snapshotting(eventStore: EventStore, snapshots: DecisionStateSnapshots, errors: unknown[] = [], snapshotBuilder?: DecisionStateSnapshotBuilder) {
      const reads: number[] = [];
      const counting: EventStore = { ...eventStore, readStream: (stream, options) => (stream === STREAM && reads.push(options?.from ?? 1), eventStore.readStream(stream, options)) };
      const handler = handlerWith({
        eventStore: counting,
        ids: new IdAllocator(eventStore, { blockSize: 100 }),
        projections: { waitFor: async () => undefined },
        snapshots,
        ...(snapshotBuilder ? { snapshotBuilder } : {}),
        snapshotEvery: 10,
        onSnapshotError: (error) => void errors.push(error),
      });
      return { handler, reads };
    }
    const labelNames = (state: ProjectState) => [...state.labels].map((label) => label['name']);

    it('folds a cold stream from its latest snapshot and the events after it', async () => {
      const snapshots = memoryDecisionStateSnapshots();
      const { handler: writer } = snapshotting(store, snapshots);
      for (let n = 1; n <= 25; n++) await writer.execute(STREAM, addLabel(`label ${n}`), meta());
      expect((await snapshots.latest(STREAM))!.version).to.equal(20);
      const { handler: restarted, reads } = snapshotting(store, snapshots);
      const outcome = await restarted.execute(STREAM, addLabel('after a restart'), meta());
      expect(reads, 'the snapshot checked against the log, then the events after it').to.deep.equal([20, 21]);
      const scratch = await handlerOver(store).load(STREAM);
      expect(outcome.version).to.equal(26);
      expect(labelNames(outcome.state)).to.deep.equal(labelNames(scratch));
      expect(outcome.state.snapshot().docs).to.deep.equal(scratch.snapshot().docs);
      // The rule that reads the state sees the documents of the snapshot.
      const refused = await restarted.execute(STREAM, addLabel('label 3'), meta()).catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(DomainError);
    });

    it('snapshots a stream folded cold past the distance, and not one folded from a recent snapshot', async () => {
      for (let n = 0; n < 3; n++) await handlerOver(store).execute(STREAM, addLabels(4), meta());
      const snapshots = memoryDecisionStateSnapshots();
      for (let n = 0; n < 12; n++) await handlerOver(store).execute(STREAM, addLabel(`more ${n}`), meta());
      const { handler } = snapshotting(store, snapshots);
      await handler.load(STREAM);
      expect((await snapshots.latest(STREAM))!.version, 'a cold fold of 15 events').to.equal(15);
      await handlerOver(store).execute(STREAM, addLabel('elsewhere'), meta());
      const { handler: next, reads } = snapshotting(store, snapshots);
      await next.load(STREAM);
      expect(reads).to.deep.equal([15, 16]);
      expect((await snapshots.latest(STREAM))!.version).to.equal(15);
    });

    it('folds the whole stream when the log does not hold the snapshot\'s last event, or the snapshot is of another format', async () => {
      const snapshots = memoryDecisionStateSnapshots();
      const { handler: writer } = snapshotting(store, snapshots);
      for (let n = 1; n <= 12; n++) await writer.execute(STREAM, addLabel(`first log ${n}`), meta());
      const other = await openSqliteEventStore({ path: ':memory:' });
      try {
        for (let n = 1; n <= 12; n++) await handlerOver(other).execute(STREAM, addLabel(`other log ${n}`), meta());
        const { handler, reads } = snapshotting(other, snapshots);
        const state = await handler.load(STREAM);
        expect(reads[0], 'the snapshot checked').to.equal(10);
        expect(reads.slice(1)).to.deep.equal([1]);
        expect(labelNames(state)).to.have.members(Array.from({ length: 12 }, (_, n) => `other log ${n + 1}`));
      } finally {
        await other.close();
      }
      const latest = (await snapshots.latest(STREAM))!;
      await snapshots.save({ ...latest, format: latest.format + 1 });
      const { handler, reads } = snapshotting(store, snapshots);
      expect(labelNames(await handler.load(STREAM))).to.have.length(12);
      expect(reads).to.deep.equal([1]);
    });

    it('loads a stream it has not cached once the snapshot builder has caught it up, unless the stream is shorter than the distance or near its snapshot', async () => {
      const snapshots = memoryDecisionStateSnapshots();
      const caughtUp: string[] = [];
      // What the worker does, here in the test: the state at the stream's head, snapshotted.
      const builder: DecisionStateSnapshotBuilder = {
        async catchUp(stream) {
          caughtUp.push(stream);
          await snapshots.save((await handlerOver(store).load(stream)).snapshot());
        },
        close: async () => undefined,
      };
      for (let n = 1; n <= 9; n++) await handlerOver(store).execute(STREAM, addLabel(`label ${n}`), meta());
      await snapshotting(store, snapshots, [], builder).handler.load(STREAM);
      expect(caughtUp, 'nine events: shorter than the distance').to.deep.equal([]);
      for (let n = 10; n <= 25; n++) await handlerOver(store).execute(STREAM, addLabel(`label ${n}`), meta());
      const { handler, reads } = snapshotting(store, snapshots, [], builder);
      const outcome = await handler.execute(STREAM, addLabel('after the build'), meta());
      expect(caughtUp).to.deep.equal([STREAM]);
      expect(reads, 'the built snapshot checked against the log, then nothing after it').to.deep.equal([25, 26]);
      expect(outcome.version).to.equal(26);
      expect(outcome.state.snapshot().docs).to.deep.equal((await handlerOver(store).load(STREAM)).snapshot().docs);
      await snapshotting(store, snapshots, [], builder).handler.load(STREAM);
      expect(caughtUp, 'one event past the snapshot: nothing asked').to.deep.equal([STREAM]);
    });

    it('has the snapshot builder store the snapshots that fall due: nothing is serialised on the serving thread', async () => {
      const snapshots = memoryDecisionStateSnapshots();
      const asked: number[] = [];
      const builder: DecisionStateSnapshotBuilder = {
        async catchUp() {
          asked.push(await store.streamVersion(STREAM));
        },
        close: async () => undefined,
      };
      const { handler } = snapshotting(store, snapshots, [], builder);
      for (let n = 1; n <= 21; n++) await handler.execute(STREAM, addLabel(`label ${n}`), meta());
      expect(asked, 'every 10 events').to.deep.equal([10, 20]);
      expect(await snapshots.latest(STREAM), 'nothing serialised on the serving thread').to.equal(null);
    });

    it('folds the whole stream and stores its snapshot itself when the snapshot builder fails, and says so', async () => {
      for (let n = 1; n <= 12; n++) await handlerOver(store).execute(STREAM, addLabel(`label ${n}`), meta());
      const errors: unknown[] = [];
      const failing: DecisionStateSnapshotBuilder = {
        catchUp: async () => {
          throw new Error('the snapshot builder failed');
        },
        close: async () => undefined,
      };
      const snapshots = memoryDecisionStateSnapshots();
      const { handler, reads } = snapshotting(store, snapshots, errors, failing);
      expect(labelNames(await handler.load(STREAM))).to.have.length(12);
      expect(reads).to.deep.equal([1]);
      await new Promise((resolve) => setImmediate(resolve));
      expect((await snapshots.latest(STREAM))!.version, 'the cold fold of 12 events, snapshotted here').to.equal(12);
      // Told twice: the build the load waited for, then the one the due snapshot asked for.
      expect(errors.map((error) => (error as Error).message)).to.deep.equal(['the snapshot builder failed', 'the snapshot builder failed']);
    });

    it('goes on without snapshots that cannot be read or stored, and says so', async () => {
      const errors: unknown[] = [];
      const broken: DecisionStateSnapshots = {
        latest: async () => {
          throw new Error('unreadable');
        },
        save: () => {
          throw new Error('unwritable');
        },
        storedHead: async () => {
          throw new Error('unreadable');
        },
        close: async () => undefined,
      };
      const { handler } = snapshotting(store, broken, errors);
      for (let n = 1; n <= 11; n++) await handler.execute(STREAM, addLabel(`label ${n}`), meta());
      expect(errors.map((error) => (error as Error).message)).to.deep.equal(['unreadable', 'unwritable']);
      const { handler: restarted } = snapshotting(store, broken, errors);
      expect(labelNames(await restarted.load(STREAM))).to.have.length(11);
    });
  });

  it('leaves state and log untouched when a decision is refused', async () => {
    const handler = handlerOver(store);
    await handler.execute(STREAM, addLabel('alpha'), meta());
    const refused = await handler.execute(STREAM, addLabel('alpha'), meta()).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(DomainError).and.have.property('code', 'invalid_parameter');
    expect((await handler.load(STREAM)).version).to.equal(1);
    expect(await store.streamVersion(STREAM)).to.equal(1);
  });

  it('decides again on the caught-up state when another writer appended first', async () => {
    const mine = handlerOver(store);
    const theirs = handlerOver(store);
    await mine.execute(STREAM, addLabel('alpha'), meta());
    await theirs.execute(STREAM, addLabel('beta'), meta()); // `mine` has not seen it yet
    const outcome = await mine.execute(STREAM, addLabel('gamma'), meta());
    expect(outcome.version).to.equal(3);
    const refused = await mine.execute(STREAM, addLabel('beta'), meta()).catch((error: unknown) => error);
    expect(refused).to.have.property('code', 'invalid_parameter');
  });

  it('checks a refusal decided on its cached state against the caught-up state before answering it', async () => {
    const mine = handlerOver(store);
    const theirs = handlerOver(store);
    await mine.execute(STREAM, addLabel('alpha'), meta()); // `mine` caches the stream at version 1
    await theirs.execute(STREAM, addLabel('beta'), meta());
    const requiresBeta: Decide<ProjectState> = (state, context) => {
      const names = [...(state.labels ?? [])].map((label) => label['name']);
      if (!names.includes('beta')) throw new DomainError('unfound_resource');
      return addLabel('gamma')(state, context);
    };
    const outcome = await mine.execute(STREAM, requiresBeta, meta());
    expect(outcome.version).to.equal(3);
  });

  it('settles once every queued command has finished, including one still waiting for its projections', async () => {
    let release!: () => void;
    const projected = new Promise<void>((resolve) => (release = resolve));
    const handler = handlerWith({
      eventStore: store,
      ids: new IdAllocator(store, { blockSize: 100 }),
      projections: { waitFor: () => projected },
    });
    const write = handler.execute(STREAM, addLabel('alpha'), meta());
    let settled = false;
    const settling = handler.settled().then(() => (settled = true));
    while ((await store.streamVersion(STREAM)) < 1) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).to.equal(false);
    release();
    await settling;
    expect((await write).version).to.equal(1);
  });

  it('appends nothing while the projections fail to apply what is stored, and says a change it stored but could not show is stored', async () => {
    const full = () => new DomainError('storage_full', { general_problem: 'The server cannot store the change: its disk is full. Nothing was changed.' });
    let failing = false;
    const handler = handlerWith({
      eventStore: store,
      ids: new IdAllocator(store, { blockSize: 100 }),
      projections: {
        waitFor: async () => (failing ? Promise.reject(full()) : undefined),
        ready: async () => (failing ? Promise.reject(full()) : undefined),
      },
    });
    await handler.execute(STREAM, addLabel('alpha'), meta());
    failing = true;
    const refused = await handler.execute(STREAM, addLabel('beta'), meta()).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(DomainError).with.property('code', 'storage_full');
    expect((refused as DomainError).details.general_problem).to.contain('Nothing was changed');
    expect(await store.streamVersion(STREAM), 'nothing appended while the projections fail').to.equal(1);

    // The projections recover for the check before the append, then fail to apply the event appended.
    let readyCalls = 0;
    const storedUnshown = handlerWith({
      eventStore: store,
      ids: new IdAllocator(store, { blockSize: 100 }),
      projections: { waitFor: async () => Promise.reject(full()), ready: async () => void readyCalls++ },
    });
    const unshown = await storedUnshown.execute(STREAM, addLabel('gamma'), meta()).catch((error: unknown) => error);
    expect(readyCalls).to.equal(1);
    expect(unshown).to.be.instanceOf(DomainError).with.property('code', 'storage_full');
    expect((unshown as DomainError).details.general_problem).to.contain('The change was stored').and.not.contain('Nothing was changed');
    expect((unshown as DomainError).details.possible_fix).to.contain('Do not send the change again');
    expect(await store.streamVersion(STREAM)).to.equal(2);
  });

  it('serialises concurrent commands on one stream: all succeed with contiguous versions', async () => {
    const handler = handlerOver(store);
    const outcomes = await Promise.all(Array.from({ length: 25 }, (_, n) => handler.execute(STREAM, addLabel(`label-${n}`), meta())));
    expect(outcomes.map((outcome) => outcome.version).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 25 }, (_, n) => n + 1));
  });

  it('gives up with deadlock after a bounded number of conflicts', async () => {
    let appends = 0;
    const alwaysBehind: EventStore = Object.assign(Object.create(store) as EventStore, {
      append: async (stream: string, expected: number) => {
        appends++;
        throw new WrongExpectedVersion(stream, expected, expected + 1);
      },
    });
    const handler = handlerWith({ eventStore: alwaysBehind, ids: new IdAllocator(store), projections: { waitFor: async () => {} }, maxAttempts: 4 });
    const error = await handler.execute(STREAM, addLabel('alpha'), meta()).catch((thrown: unknown) => thrown);
    expect(error).to.be.instanceOf(DomainError).and.have.property('code', 'deadlock');
    expect(appends).to.equal(4);
  });

  it('does not append a command twice: the same command id returns the first result', async () => {
    const handler = handlerOver(store);
    const once = meta();
    const first = await handler.execute(STREAM, addLabel('alpha'), once);
    const again = await handlerOver(store).execute(STREAM, addLabel('alpha-renamed'), once);
    expect(again.version).to.equal(first.version);
    expect(again.event.data).to.deep.equal(first.event.data);
    expect(await store.streamVersion(STREAM)).to.equal(1);
  });

  it('reserves a new block of ids when a decision uses up the current one', async () => {
    const handler = handlerOver(store, [], 2);
    const ids: number[] = [];
    for (let n = 0; n < 5; n++) {
      const outcome = await handler.execute(STREAM, addLabel(`label-${n}`), meta());
      ids.push(outcome.subject.id);
    }
    expect(ids).to.deep.equal([1, 2, 3, 4, 5]);
  });

  it('serves a decision that needs more ids than a block holds with one reservation of that many', async () => {
    const handler = handlerOver(store);
    await handler.execute(STREAM, addLabel('first'), meta()); // label block 1..100, 99 left
    const outcome = await handler.execute(STREAM, addLabels(150), meta());
    const ids = outcome.event.data.changes.map((change) => change.id);
    expect(ids).to.deep.equal(Array.from({ length: 150 }, (_, n) => 101 + n));
    const blocks = (await store.readStream(streams.ids('label'))).map((event) => event.data.changes[0]!.new_values);
    expect(blocks).to.deep.equal([
      { kind_of_id: 'label', first: 1, last: 100 },
      { kind_of_id: 'label', first: 101, last: 250 },
    ]);
    expect(await store.streamVersion(STREAM)).to.equal(2);
  });

  it('gives up with server_under_load when the ids it reserved keep being taken (bounded rounds)', async () => {
    let reservations = 0;
    const starved = { take: () => null, reserve: async () => void reservations++ };
    const handler = handlerWith({ eventStore: store, ids: starved, projections: { waitFor: async () => {} } });
    const error = await handler.execute(STREAM, addLabels(3), meta()).catch((thrown: unknown) => thrown);
    expect(error).to.be.instanceOf(DomainError).and.have.property('code', 'server_under_load');
    expect(reservations).to.equal(3);
    expect(await store.streamVersion(STREAM)).to.equal(0);
  });

  it('reports the refusal of a decision only once it decided with real ids', async () => {
    const handler = handlerOver(store);
    const refuseProvisional: Decide<ProjectState> = (state, context) => {
      if (context.nextId('label') < 0) throw invalidField('name', 'provisional id seen');
      return addLabel('real')(state, context);
    };
    const outcome = await handler.execute(STREAM, refuseProvisional, meta());
    expect(outcome.version).to.equal(1);
  });
});

describe('id allocator', () => {
  it('never hands out the same id from two allocators on one log (two processes)', async () => {
    const store = await openSqliteEventStore({ path: ':memory:' });
    try {
      const left = new IdAllocator(store, { blockSize: 3 });
      const right = new IdAllocator(store, { blockSize: 3 });
      const ids = await Promise.all(Array.from({ length: 40 }, (_, n) => (n % 2 ? left : right).next('story')));
      expect(new Set(ids).size).to.equal(40);
      expect(await left.next('label')).to.equal(1); // kinds are counted separately
      expect((await store.readStream(streams.ids('story'))).length).to.be.at.least(14);
    } finally {
      await store.close();
    }
  });
});
