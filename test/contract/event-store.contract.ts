// The event store contract: every adapter of src/infra/event-store/port.ts passes this suite.
// Stream names and command ids are unique per test and global positions are checked relative to the
// head before the test, so the suite also runs against a shared server (KurrentDB).
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { GENESIS_HASH, chainHash, encodeEvent } from '../../src/infra/event-codec.js';
import { WrongExpectedVersion, eventId } from '../../src/ports/event-store.js';
import type { AppendResult, EventStore } from '../../src/ports/event-store.js';
import { appendOf, storyUpdateEvent } from './event-store.fixtures.js';

export function eventStoreContract(name: string, open: () => Promise<EventStore>): void {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    let streamCounter = 0;
    const runId = randomUUID().slice(0, 8);
    const newStream = () => `project-${runId}${++streamCounter}`;

    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    async function rejection(promise: Promise<unknown>): Promise<unknown> {
      try {
        await promise;
      } catch (error) {
        return error;
      }
      throw new Error('expected the promise to reject');
    }

    async function appendOne(stream: string, expected: number | 'any'): Promise<AppendResult> {
      return store.append(stream, expected, appendOf(randomUUID()));
    }

    describe('append', () => {
      it('numbers a new stream from version 1 and returns the last version and position', async () => {
        const stream = newStream();
        const head = await store.headPosition();
        const commandId = randomUUID();
        const events = appendOf(commandId, 3);

        const result = await store.append(stream, 0, events);

        expect(result).to.deep.equal({ version: 3, position: head + 3 });
        const stored = await store.readStream(stream);
        expect(stored.map((e) => e.version)).to.deep.equal([1, 2, 3]);
        expect(stored.map((e) => e.position)).to.deep.equal([head + 1, head + 2, head + 3]);
        expect(stored.map((e) => e.id)).to.deep.equal([0, 1, 2].map((i) => eventId(commandId, i)));
        stored.forEach((event, index) => {
          expect(event.stream).to.equal(stream);
          expect({ type: event.type, data: event.data, meta: event.meta }).to.deep.equal(events[index]);
        });
      });

      it('continues an existing stream from its current version', async () => {
        const stream = newStream();
        await appendOne(stream, 0);
        const result = await store.append(stream, 1, appendOf(randomUUID(), 2));
        expect(result.version).to.equal(3);
        expect(await store.streamVersion(stream)).to.equal(3);
      });

      it('rejects a stale expected version with a typed error carrying the actual one, writing nothing', async () => {
        const stream = newStream();
        await appendOne(stream, 0);
        await appendOne(stream, 1);
        const head = await store.headPosition();

        const error = await rejection(store.append(stream, 1, appendOf(randomUUID(), 2)));

        expect(error).to.be.instanceOf(WrongExpectedVersion);
        expect(error).to.include({ stream, expected: 1, actual: 2 });
        expect(await store.streamVersion(stream)).to.equal(2);
        expect(await store.headPosition()).to.equal(head);
      });

      it('rejects an expected version ahead of the stream', async () => {
        const stream = newStream();
        await appendOne(stream, 0);
        const error = await rejection(appendOne(stream, 5));
        expect(error).to.be.instanceOf(WrongExpectedVersion);
        expect(error).to.include({ expected: 5, actual: 1 });
      });

      it('rejects expected version 0 when the stream already exists', async () => {
        const stream = newStream();
        await appendOne(stream, 0);
        const error = await rejection(appendOne(stream, 0));
        expect(error).to.be.instanceOf(WrongExpectedVersion);
        expect(error).to.include({ expected: 0, actual: 1 });
      });

      it("reports actual version 0 when a stream that does not exist was expected at a version", async () => {
        const error = await rejection(appendOne(newStream(), 2));
        expect(error).to.be.instanceOf(WrongExpectedVersion);
        expect(error).to.include({ expected: 2, actual: 0 });
      });

      it("appends with 'any' to a new and to an existing stream", async () => {
        const stream = newStream();
        expect((await appendOne(stream, 'any')).version).to.equal(1);
        expect((await appendOne(stream, 'any')).version).to.equal(2);
      });

      it('fails one append of a concurrent group alone', async () => {
        const [a, b] = [newStream(), newStream()];
        await appendOne(b, 0);
        const outcomes = await Promise.allSettled([appendOne(a, 0), appendOne(b, 0), appendOne(b, 1)]);
        expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
        expect((outcomes[1] as PromiseRejectedResult).reason).to.be.instanceOf(WrongExpectedVersion);
        expect(await store.streamVersion(a)).to.equal(1);
        expect(await store.streamVersion(b)).to.equal(2);
      });
    });

    describe('idempotent re-append', () => {
      it('returns the first result and writes nothing, even when the expected version has moved on', async () => {
        const stream = newStream();
        const commandId = randomUUID();
        const first = await store.append(stream, 0, appendOf(commandId, 2));
        await appendOne(stream, 2);
        const head = await store.headPosition();

        const again = await store.append(stream, 0, appendOf(commandId, 2));

        expect(again).to.deep.equal(first);
        expect(await store.headPosition()).to.equal(head);
        expect((await store.readStream(stream)).map((e) => e.version)).to.deep.equal([1, 2, 3]);
      });

      it('writes a command once when the same append is requested twice at the same time', async () => {
        const stream = newStream();
        const commandId = randomUUID();
        const [one, two] = await Promise.all([
          store.append(stream, 0, appendOf(commandId)),
          store.append(stream, 0, appendOf(commandId)),
        ]);
        expect(two).to.deep.equal(one);
        expect(await store.streamVersion(stream)).to.equal(1);
      });
    });

    describe('reads', () => {
      let stream: string;
      let head: number;
      beforeEach(async () => {
        stream = newStream();
        head = await store.headPosition();
        for (let version = 0; version < 5; version++) {
          await store.append(stream, version, [storyUpdateEvent(randomUUID(), version)]);
        }
      });

      const versions = async (options: Parameters<EventStore['readStream']>[1]) =>
        (await store.readStream(stream, options)).map((e) => e.version);

      it('reads a stream forwards from a version with a limit', async () => {
        expect(await versions({})).to.deep.equal([1, 2, 3, 4, 5]);
        expect(await versions({ from: 2, limit: 2 })).to.deep.equal([2, 3]);
        expect(await versions({ from: 4 })).to.deep.equal([4, 5]);
        expect(await versions({ from: 6 })).to.deep.equal([]);
      });

      it('reads a stream backwards from a version with a limit', async () => {
        expect(await versions({ direction: 'backwards' })).to.deep.equal([5, 4, 3, 2, 1]);
        expect(await versions({ direction: 'backwards', from: 4, limit: 2 })).to.deep.equal([4, 3]);
        expect(await versions({ direction: 'backwards', limit: 1 })).to.deep.equal([5]);
      });

      it('reads nothing from a stream that does not exist', async () => {
        expect(await store.readStream(newStream())).to.deep.equal([]);
        expect(await store.readStream(newStream(), { direction: 'backwards' })).to.deep.equal([]);
      });

      it('reads the global log after a position, in position order, with a limit', async () => {
        const after = await store.readAll({ after: head + 1, limit: 3 });
        expect(after.map((e) => e.position)).to.deep.equal([head + 2, head + 3, head + 4]);
        expect(after.map((e) => [e.stream, e.version])).to.deep.equal([
          [stream, 2],
          [stream, 3],
          [stream, 4],
        ]);
        expect(await store.readAll({ after: head + 5 })).to.deep.equal([]);
      });

      it('reports stream versions and the head position', async () => {
        expect(await store.streamVersion(stream)).to.equal(5);
        expect(await store.streamVersion(newStream())).to.equal(0);
        expect(await store.headPosition()).to.equal(head + 5);
      });
    });

    it('keeps a gap-free global order and contiguous stream versions under concurrent appends', async () => {
      const head = await store.headPosition();
      const streams = Array.from({ length: 6 }, newStream);
      const writers = 12;
      const appendsPerWriter = 10;
      const acknowledged: Array<{ stream: string; commandId: string; eventCount: number; result: AppendResult }> = [];

      async function writer(index: number): Promise<void> {
        for (let n = 0; n < appendsPerWriter; n++) {
          const stream = streams[(index + n) % streams.length]!;
          const commandId = randomUUID();
          const events = appendOf(commandId, 1 + ((index + n) % 2));
          for (;;) {
            const expected = await store.streamVersion(stream);
            try {
              const result = await store.append(stream, expected, events);
              acknowledged.push({ stream, commandId, eventCount: events.length, result });
              break;
            } catch (error) {
              if (!(error instanceof WrongExpectedVersion)) throw error;
            }
          }
        }
      }
      await Promise.all(Array.from({ length: writers }, (_, index) => writer(index)));

      const all = await store.readAll({ after: head });
      const total = acknowledged.reduce((sum, a) => sum + a.eventCount, 0);
      expect(acknowledged).to.have.length(writers * appendsPerWriter);
      expect(all.map((e) => e.position)).to.deep.equal(Array.from({ length: total }, (_, i) => head + i + 1));
      for (const stream of streams) {
        const versions = all.filter((e) => e.stream === stream).map((e) => e.version);
        expect(versions).to.deep.equal(Array.from({ length: versions.length }, (_, i) => i + 1));
      }
      for (const { stream, commandId, result } of acknowledged) {
        const last = all.find((e) => e.position === result.position);
        expect(last, `${stream}@${result.version}`).to.include({ stream, version: result.version });
        expect(last!.meta.command_id).to.equal(commandId);
      }
    });

    it('announces the new head position on appended$ after an append', async () => {
      const head = await store.headPosition();
      const announced = firstValueFrom(
        store.appended$.pipe(
          filter((position) => position >= head + 2),
          timeout(2000),
        ),
      );
      const result = await store.append(newStream(), 0, appendOf(randomUUID(), 2));
      expect(await announced).to.be.at.least(result.position);
    });

    describe('hash chain', () => {
      it("stores each event with the hash of its content over its stream predecessor's hash", async () => {
        const stream = newStream();
        const other = newStream();
        const head = await store.headPosition();
        const first = appendOf(randomUUID(), 2);
        const interleaved = appendOf(randomUUID());
        const third = appendOf(randomUUID(), 1, 2);
        await store.append(stream, 0, first);
        await store.append(other, 0, interleaved);
        await store.append(stream, 2, third);

        const chain = await store.readChain({ after: head });
        const ours = chain.filter((event) => event.stream === stream);
        expect(ours.map((event) => event.version)).to.deep.equal([1, 2, 3]);
        let previous = GENESIS_HASH;
        [...first, ...third].forEach((event, index) => {
          const stored = ours[index]!;
          expect({ type: stored.type, data: JSON.parse(stored.data), meta: JSON.parse(stored.meta) }).to.deep.equal(event);
          previous = chainHash(previous, stream, index + 1, encodeEvent(event));
          expect(stored.hash).to.equal(previous);
        });
        const otherHead = chain.find((event) => event.stream === other)!;
        expect(otherHead.hash).to.equal(chainHash(GENESIS_HASH, other, 1, encodeEvent(interleaved[0]!)));
      });

      it('reads the chain in the global order and positions of readAll, after a position, with a limit', async () => {
        const head = await store.headPosition();
        await store.append(newStream(), 0, appendOf(randomUUID(), 3));
        await store.append(newStream(), 0, appendOf(randomUUID(), 2));
        const chain = await store.readChain({ after: head + 1, limit: 3 });
        const all = await store.readAll({ after: head + 1, limit: 3 });
        expect(chain.map(({ position, stream, version }) => ({ position, stream, version }))).to.deep.equal(
          all.map(({ position, stream, version }) => ({ position, stream, version })),
        );
        expect(chain.map((event) => event.position)).to.deep.equal([head + 2, head + 3, head + 4]);
      });

      it("chains an 'any' append and an idempotent re-append like any other", async () => {
        const stream = newStream();
        const head = await store.headPosition();
        const repeated = appendOf(randomUUID());
        await store.append(stream, 'any', repeated);
        await store.append(stream, 'any', appendOf(randomUUID(), 1, 1));
        await store.append(stream, 0, repeated);
        const chain = (await store.readChain({ after: head })).filter((event) => event.stream === stream);
        expect(chain).to.have.length(2);
        expect(chain[1]!.hash).to.equal(chainHash(chain[0]!.hash, stream, 2, chain[1]!));
      });
    });
  });
}
