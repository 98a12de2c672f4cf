// The reaction runner over the embedded event store: every event handed once and in order, a restart
// resuming from the stored checkpoint, a failing reaction retried with back-off without holding up the
// others or the writes, a checkpoint store that fails (a full disk) retried until it works again with
// nothing handed twice and the failure shown in status(), a type filter, and a clean stop while a
// reaction backs off.
import { expect } from 'chai';
import type { RecordedEvent } from '../../../src/domain/events.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../../src/infra/event-store/sqlite-event-store.js';
import { ReactionRunner } from '../../../src/infra/reaction/reaction-runner.js';
import { openSqliteReactionCheckpoints } from '../../../src/infra/reaction/sqlite-reaction-checkpoints.js';
import type { ReactionCheckpoints } from '../../../src/ports/reaction-checkpoints.js';
import type { Reaction } from '../../../src/reactions/reaction.js';
import { appendOf } from '../../contract/event-store.fixtures.js';

/**
 * A reaction recording the positions it was handed; `fail(event, attempt)` decides whether an attempt at
 * the batch holding that event throws (and so handles none of the batch).
 */
function recording(name: string, fail: (event: RecordedEvent, attempt: number) => boolean = () => false) {
  const handled: number[] = [];
  const attempts = new Map<number, number>();
  const reaction: Reaction = {
    name,
    async handle(events) {
      for (const event of events) attempts.set(event.position, (attempts.get(event.position) ?? 0) + 1);
      const failing = events.find((event) => fail(event, attempts.get(event.position)!));
      if (failing) throw new Error(`attempt ${attempts.get(failing.position)} at ${failing.position} fails`);
      handled.push(...events.map((event) => event.position));
    },
  };
  return { reaction, handled, attempts };
}

const quickBackOff = { initialMs: 1, maxMs: 4 };

describe('reaction runner', () => {
  let store: SqliteEventStore;
  let checkpoints: ReactionCheckpoints;
  let commands = 0;
  const append = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const stream = `project-${(i % 3) + 1}`;
      await store.append(stream, 'any', appendOf(`command-${++commands}`));
    }
    return store.headPosition();
  };

  beforeEach(async () => {
    store = await openSqliteEventStore({ path: ':memory:' });
    checkpoints = openSqliteReactionCheckpoints(':memory:');
  });
  afterEach(async () => {
    await checkpoints.close();
    await store.close();
  });

  it('hands every event once, in log order, and follows later appends', async () => {
    const { reaction, handled } = recording('audit');
    await append(5);
    const runner = new ReactionRunner({ eventStore: store, checkpoints, reactions: [reaction], batchSize: 2 });
    runner.start();
    await runner.waitFor(5);
    const head = await append(4);
    await runner.waitFor(head);
    await runner.stop();
    expect(handled).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await checkpoints.position('audit')).to.equal(9);
  });

  it('lets the event loop turn between full batches of a catch-up', async () => {
    const { reaction, handled } = recording('audit');
    const head = await append(40);
    const runner = new ReactionRunner({ eventStore: store, checkpoints, reactions: [reaction], batchSize: 10 });
    // An immediate queued before the catch-up starts runs at the first turn the catch-up gives back:
    // with every read resolving at once, a catch-up that never yields would have handled all 40 first.
    const seenAtFirstTurn = new Promise<number>((resolve) => setImmediate(() => resolve(handled.length)));
    runner.start();
    expect(await seenAtFirstTurn).to.be.below(40);
    await runner.waitFor(head);
    await runner.stop();
    expect(handled).to.have.length(40);
  });

  it('resumes after a restart from the stored checkpoint, not from the start', async () => {
    const first = recording('mail');
    await append(6);
    const runner = new ReactionRunner({ eventStore: store, checkpoints, reactions: [first.reaction] });
    runner.start();
    await runner.waitFor(6);
    await runner.stop();

    const head = await append(3);
    const second = recording('mail');
    const restarted = new ReactionRunner({ eventStore: store, checkpoints, reactions: [second.reaction] });
    restarted.start();
    await restarted.waitFor(head);
    await restarted.stop();
    expect(first.handled).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(second.handled).to.deep.equal([7, 8, 9]);
  });

  it('retries a failing event with back-off and does not move past it, while other reactions go on', async () => {
    const flaky = recording('flaky', (event, attempt) => event.position === 2 && attempt < 4);
    const steady = recording('steady');
    const head = await append(4);
    const runner = new ReactionRunner({
      eventStore: store,
      checkpoints,
      reactions: [flaky.reaction, steady.reaction],
      backOff: quickBackOff,
    });
    runner.start();
    await runner.waitFor(head);
    await runner.stop();
    expect(flaky.attempts.get(2)).to.equal(4);
    expect(flaky.handled).to.deep.equal([1, 2, 3, 4]);
    expect(steady.handled).to.deep.equal([1, 2, 3, 4]);
  });

  it('never holds up appends: the log grows while a reaction is stuck, and the stuck one stops cleanly', async () => {
    const stuck = recording('stuck', () => true);
    const steady = recording('steady');
    await append(1);
    const runner = new ReactionRunner({
      eventStore: store,
      checkpoints,
      reactions: [stuck.reaction, steady.reaction],
      backOff: { initialMs: 3_600_000, maxMs: 3_600_000 },
    });
    runner.start();
    const head = await append(3);
    await runner.waitFor(head, 'steady');
    expect(steady.handled).to.deep.equal([1, 2, 3, 4]);
    expect(runner.status().find((s) => s.name === 'stuck')).to.deep.include({ position: 0 });
    await runner.stop(); // during an hour-long back-off
    expect(stuck.handled).to.deep.equal([]);
    expect(await checkpoints.position('stuck')).to.equal(0);
  });

  it('only calls a reaction for its event types, and still moves its checkpoint past the others', async () => {
    const handled: string[] = [];
    const reaction: Reaction = { name: 'typed', types: ['label_create'], handle: async (events) => void handled.push(...events.map((event) => event.type)) };
    const head = await append(3);
    const runner = new ReactionRunner({ eventStore: store, checkpoints, reactions: [reaction] });
    runner.start();
    await runner.waitFor(head);
    await runner.stop();
    expect(handled).to.deep.equal([]);
    expect(await checkpoints.position('typed')).to.equal(head);
  });

  it('stops past a delivery that never ends, recording nothing for it (it is delivered again next time)', async () => {
    let started!: () => void;
    const inHand = new Promise<void>((resolve) => (started = resolve));
    const hung: Reaction = {
      name: 'hung',
      handle: () => {
        started();
        return new Promise<void>(() => {});
      },
    };
    await append(2);
    const runner = new ReactionRunner({ eventStore: store, checkpoints, reactions: [hung], stopGraceMs: 1 });
    runner.start();
    await inHand;
    await runner.stop();
    expect(await checkpoints.position('hung')).to.equal(0);
  });

  /** `checkpoints` whose loads and saves throw (as SQLite does on a full disk) while `state.now` is set. */
  function failingCheckpoints(inner: ReactionCheckpoints) {
    const state = { now: true, loads: 0 };
    const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const store: ReactionCheckpoints = {
      async position(reaction) {
        state.loads++;
        if (state.now) throw full();
        return inner.position(reaction);
      },
      async save(reaction, position) {
        if (state.now) throw full();
        return inner.save(reaction, position);
      },
      close: () => inner.close(),
    };
    return { store, state };
  }

  /** Resolves once `check` holds, polling the runner's own state (bounded: fails after 2 s). */
  async function until(check: () => boolean): Promise<void> {
    for (let turn = 0; turn < 2000 && !check(); turn++) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(check(), 'condition never held').to.equal(true);
  }

  it('retries a checkpoint that cannot be saved, shows the failure in status(), and resumes by itself without handing a batch twice', async () => {
    const { reaction, handled } = recording('notify');
    const { store: flaky, state } = failingCheckpoints(checkpoints);
    state.now = false;
    const runner = new ReactionRunner({ eventStore: store, checkpoints: flaky, reactions: [reaction], backOff: quickBackOff, clock: () => 1_000 });
    runner.start();
    await runner.waitFor(await append(2));
    state.now = true;
    const head = await append(3);
    await until(() => (runner.status()[0]!.failing?.attempts ?? 0) >= 3);
    const { failing, ...rest } = runner.status()[0]!;
    expect(rest).to.deep.equal({ name: 'notify', position: 2 });
    expect(failing).to.deep.include({ step: 'checkpoint', error: 'database or disk is full', since: 1_000 });
    state.now = false;
    await runner.waitFor(head);
    expect(runner.status()).to.deep.equal([{ name: 'notify', position: head, failing: null }]);
    const later = await append(2);
    await runner.waitFor(later);
    await runner.stop();
    expect(handled).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    expect(await checkpoints.position('notify')).to.equal(later);
  });

  it('retries loading its checkpoint at start until it can, then goes on from it', async () => {
    await checkpoints.save('notify', 2);
    const { reaction, handled } = recording('notify');
    const { store: flaky, state } = failingCheckpoints(checkpoints);
    const head = await append(4);
    const runner = new ReactionRunner({ eventStore: store, checkpoints: flaky, reactions: [reaction], backOff: quickBackOff });
    runner.start();
    await until(() => state.loads >= 3);
    expect(runner.status()[0]).to.deep.include({ position: 0 }).and.nested.include({ 'failing.step': 'resume' });
    state.now = false;
    await runner.waitFor(head);
    await runner.stop();
    expect(handled).to.deep.equal([3, 4]);
  });

  it('shows a failure of the work a reaction runs beside the log as its status while its own steps succeed', async () => {
    const { reaction } = recording('deliveries');
    let own: ReturnType<NonNullable<Reaction['ownFailure']>> = { step: 'handle', error: 'SQLITE_BUSY', since: 500, attempts: 2 };
    const runner = new ReactionRunner({ eventStore: store, checkpoints, reactions: [{ ...reaction, ownFailure: () => own }], backOff: quickBackOff });
    runner.start();
    await runner.waitFor(await append(1));
    expect(runner.status()[0]!.failing).to.deep.equal({ step: 'handle', error: 'SQLITE_BUSY', since: 500, attempts: 2 });
    own = null;
    expect(runner.status()[0]!.failing).to.equal(null);
    await runner.stop();
  });

  it('refuses two reactions with one name (they would share a checkpoint)', () => {
    const reactions = [recording('same').reaction, recording('same').reaction];
    expect(() => new ReactionRunner({ eventStore: store, checkpoints, reactions })).to.throw(/same/);
  });
});
