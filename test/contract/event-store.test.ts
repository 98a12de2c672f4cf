// Runs the event store contract against every adapter (KurrentDB only when STORYLINE_KURRENT_URL is
// set), plus what only the SQLite file store promises (several processes on one file) and the codec.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { v5 as uuidV5 } from 'uuid';
import { seededRandom } from '../support/seeded-random.js';
import { EVENT_SCHEMA } from '../../src/domain/events.js';
import { decodeEvent, encodeEvent, upcast } from '../../src/infra/event-codec.js';
import type { EventBody, Upcaster } from '../../src/infra/event-codec.js';
import { openKurrentEventStore, toStreamState, toVersion } from '../../src/infra/event-store/kurrent-event-store.js';
import { KurrentPositionIndex, compareLogPositions } from '../../src/infra/event-store/kurrent-position-index.js';
import type { LogPosition } from '../../src/infra/event-store/kurrent-position-index.js';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { WrongExpectedVersion, eventId } from '../../src/ports/event-store.js';
import { eventStoreContract } from './event-store.contract.js';
import { appendOf, storyUpdateEvent } from './event-store.fixtures.js';

const tempDirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-events-'));
  tempDirs.push(dir);
  return join(dir, 'events.sqlite');
}
after(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

eventStoreContract('SQLite in memory', () => openSqliteEventStore({ path: ':memory:' }));
eventStoreContract('SQLite file', () => openSqliteEventStore({ path: tempFile() }));

const kurrentUrl = process.env.STORYLINE_KURRENT_URL;
if (kurrentUrl) {
  eventStoreContract('KurrentDB', () => openKurrentEventStore({ url: kurrentUrl }));
} else {
  describe.skip('event store contract: KurrentDB (skipped: set STORYLINE_KURRENT_URL to run it)', () => {
    it('runs the contract against KurrentDB');
  });
}

describe('SQLite event store: two store instances on one file (two processes)', () => {
  it('each sees the appends of the other on appended$ within a second', async () => {
    const path = tempFile();
    const one = await openSqliteEventStore({ path, pollIntervalMs: 50 });
    const two = await openSqliteEventStore({ path, pollIntervalMs: 50 });
    try {
      const seenByTwo = firstValueFrom(two.appended$.pipe(filter((p) => p >= 1), timeout(1000)));
      const first = await one.append('project-1', 0, appendOf(randomUUID()));
      expect(await seenByTwo).to.equal(first.position);

      const seenByOne = firstValueFrom(one.appended$.pipe(filter((p) => p >= 2), timeout(1000)));
      const second = await two.append('project-1', 1, appendOf(randomUUID()));
      expect(second).to.deep.equal({ version: 2, position: 2 });
      expect(await seenByOne).to.equal(2);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('interleaves concurrent appends of both into one gap-free log with version checks across them', async () => {
    const path = tempFile();
    const stores = [await openSqliteEventStore({ path }), await openSqliteEventStore({ path })];
    try {
      const appendsEach = 20;
      const conflicts: unknown[] = [];
      await Promise.all(
        stores.map(async (store) => {
          for (let n = 0; n < appendsEach; n++) {
            for (;;) {
              const stream = `project-${n % 3}`;
              try {
                await store.append(stream, await store.streamVersion(stream), appendOf(randomUUID()));
                break;
              } catch (error) {
                if (!(error instanceof WrongExpectedVersion)) throw error;
                conflicts.push(error);
              }
            }
          }
        }),
      );
      const all = await stores[0]!.readAll();
      expect(all.map((e) => e.position)).to.deep.equal(Array.from({ length: 2 * appendsEach }, (_, i) => i + 1));
      for (const stream of ['project-0', 'project-1', 'project-2']) {
        const versions = all.filter((e) => e.stream === stream).map((e) => e.version);
        expect(versions).to.deep.equal(Array.from({ length: versions.length }, (_, i) => i + 1));
      }
    } finally {
      for (const store of stores) await store.close();
    }
  });

  it("reads what another process appended around this store's own appends, which it holds in memory", async () => {
    const path = tempFile();
    const one = await openSqliteEventStore({ path });
    const two = await openSqliteEventStore({ path });
    try {
      await one.append('project-1', 0, appendOf(randomUUID()));
      await two.append('project-2', 0, appendOf(randomUUID()));
      await one.append('project-1', 1, appendOf(randomUUID(), 2));
      expect((await one.readAll({ after: 1 })).map((e) => e.position)).to.deep.equal([2, 3, 4]);
      await two.append('project-2', 1, appendOf(randomUUID()));
      // One's run of its own appends ends at 4; the file's head is 5.
      expect((await one.readAll({ after: 2 })).map((e) => e.position)).to.deep.equal([3, 4, 5]);
      expect((await one.readAll({ after: 2, limit: 1 })).map((e) => e.position)).to.deep.equal([3]);
      await one.append('project-1', 3, appendOf(randomUUID()));
      const fromFile = await openSqliteEventStore({ path });
      try {
        expect(await one.readAll({ after: 4 })).to.deep.equal(await fromFile.readAll({ after: 4 }));
        expect(await one.readAll()).to.deep.equal(await fromFile.readAll());
      } finally {
        await fromFile.close();
      }
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('keeps what was acknowledged after the store is closed and reopened', async () => {
    const path = tempFile();
    const original = await openSqliteEventStore({ path });
    const events = appendOf(randomUUID(), 2);
    await original.append('project-7', 0, events);
    await original.close();
    const reopened = await openSqliteEventStore({ path });
    try {
      const stored = await reopened.readStream('project-7');
      expect(stored.map(({ type, data, meta }) => ({ type, data, meta }))).to.deep.equal(events);
      expect(await reopened.headPosition()).to.equal(2);
    } finally {
      await reopened.close();
    }
  });

  it('refuses appends and reads once closed', async () => {
    const store = await openSqliteEventStore({ path: ':memory:' });
    await store.close();
    let failure: unknown;
    await store.append('project-1', 0, appendOf(randomUUID())).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
  });
});

describe('event codec', () => {
  const row = (body: EventBody) => ({
    id: 'id-1',
    stream: 'project-1',
    version: 1,
    position: 1,
    ...encodeEvent(body),
  });

  it('decodes what it encodes', () => {
    const event = storyUpdateEvent('command-1');
    const recorded = { id: 'id-1', stream: 'project-1', version: 1, position: 1, ...event };
    expect(decodeEvent(row(event))).to.deep.equal(recorded);
  });

  it('derives event ids deterministically from the command id and the index', () => {
    expect(eventId('command-1', 0)).to.equal(eventId('command-1', 0));
    expect(eventId('command-1', 0)).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set([eventId('command-1', 0), eventId('command-1', 1), eventId('command-2', 0)]).size).to.equal(3);
  });

  it("derives event ids as the uuid package's v5 of `<command id>/<index>` in the ids namespace", () => {
    const random = seededRandom(5);
    const names = ['command-1', '', 'é ✓ 😀', 'x'.repeat(5000), ...Array.from({ length: 200 }, () => randomUUID())];
    for (const [index, commandId] of names.entries()) {
      expect(eventId(commandId, index), commandId.slice(0, 40)).to.equal(uuidV5(`${commandId}/${index}`, '5b0c1f43-8f0e-4b61-9a8e-3f1d2c7a9e64'));
      expect(eventId(commandId, Math.floor(random() * 1e6))).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('upcasts an event of an older schema one registered step at a time', () => {
    const old = storyUpdateEvent('command-1');
    const oldest = { ...old, type: 'story_edit', meta: { ...old.meta, schema: EVENT_SCHEMA - 1 } };
    const registry = new Map<number, Upcaster>([
      [EVENT_SCHEMA - 1, (e) => ({ ...e, type: 'story_update', meta: { ...e.meta, schema: e.meta.schema + 1 } })],
    ]);
    expect(upcast(oldest, registry)).to.deep.equal(old);
  });

  it('reads a schema-1 event (millisecond datetimes) with whole-second datetimes', () => {
    const event = storyUpdateEvent('command-1', 1234);
    const written = { ...event, meta: { ...event.meta, schema: 1 } };
    const read = decodeEvent(row(written));
    const [change] = read.data.changes;
    expect(read.meta).to.deep.equal({ ...event.meta, schema: EVENT_SCHEMA, occurred_at: Date.UTC(2025, 0, 6, 9, 0, 1) });
    expect(change!.original_values).to.deep.equal({ ...event.data.changes[0]!.original_values, updated_at: Date.UTC(2025, 0, 6, 9, 0, 1) });
    expect(change!.new_values).to.deep.equal({ ...event.data.changes[0]!.new_values, updated_at: Date.UTC(2025, 0, 6, 9, 0, 1) });
  });

  it('reads schema-2 account memberships with the time flags, the creator no admin', () => {
    const meta = { schema: 2, occurred_at: Date.UTC(2025, 0, 6), performed_by: 101, command_id: 'c-account' };
    const membership = (id: number, personId: number, flags: Record<string, boolean>) => ({
      kind: 'account_membership' as const, change_type: 'create' as const, id, new_values: { id, account_id: 3, person_id: personId, ...flags },
    });
    const created = decodeEvent(row({
      type: 'account_create',
      data: { changes: [membership(40, 101, { owner: true, admin: true, project_creator: true })], primary_resources: [] },
      meta,
    }));
    expect(created.meta.schema).to.equal(EVENT_SCHEMA);
    expect(created.data.changes[0]!.new_values).to.deep.include({ owner: true, admin: false, project_creator: true, timekeeper: true, time_enterer: false });
    const added = decodeEvent(row({
      type: 'account_membership_create',
      data: { changes: [membership(41, 102, { owner: false, admin: true, project_creator: false })], primary_resources: [] },
      meta,
    }));
    expect(added.data.changes[0]!.new_values).to.deep.include({ owner: false, admin: true, timekeeper: false, time_enterer: false });
    const story = storyUpdateEvent('command-1');
    expect(decodeEvent(row({ ...story, meta: { ...story.meta, schema: 2 } })).data).to.deep.equal(story.data);
  });

  it('refuses an event whose schema has no upcaster or is newer than the server', () => {
    const event = storyUpdateEvent('command-1');
    expect(() => upcast({ ...event, meta: { ...event.meta, schema: EVENT_SCHEMA - 1 } }, new Map())).to.throw(
      /no upcaster/,
    );
    expect(() => decodeEvent(row({ ...event, meta: { ...event.meta, schema: EVENT_SCHEMA + 1 } }))).to.throw(
      /newer than this server/,
    );
  });
});

describe('KurrentDB position index (1-based positions over $all log positions)', () => {
  const at = (commit: number, prepare = commit): LogPosition => ({ commit: BigInt(commit), prepare: BigInt(prepare) });

  /** A fake $all whose reads, like KurrentDB's, include the event at `from`. */
  function fakeLog(log: LogPosition[]) {
    const reads: Array<LogPosition | null> = [];
    const read = async function* (from: LogPosition | null) {
      reads.push(from);
      await Promise.resolve();
      for (const position of log) {
        if (!from || compareLogPositions(position, from) >= 0) yield position;
      }
    };
    return { reads, read };
  }

  it('numbers the events of the log from 1, reading on from the last indexed one', async () => {
    const log = [at(10), at(25), at(25, 30)];
    const { reads, read } = fakeLog(log);
    const index = new KurrentPositionIndex(read);
    await index.catchUp();
    log.push(at(40));
    await index.catchUp();
    expect(index.head).to.equal(4);
    expect(reads).to.deep.equal([null, at(25, 30)]);
    expect(await index.positionOf(at(25, 30))).to.equal(3);
    expect(index.logPositionOf(4)).to.deep.equal(at(40));
  });

  it('catches up for a log position it has not seen yet and refuses one that is not in the log', async () => {
    const log = [at(10)];
    const index = new KurrentPositionIndex(fakeLog(log).read);
    await index.catchUp();
    log.push(at(20));
    expect(await index.positionOf(at(20))).to.equal(2);
    let failure: unknown;
    await index.positionOf(at(15)).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
  });

  it('gives a caller arriving during a read a fresh read that sees what it wrote', async () => {
    const log = [at(10)];
    const { reads, read } = fakeLog(log);
    const index = new KurrentPositionIndex(read);
    const first = index.catchUp();
    log.push(at(20));
    const second = index.catchUp();
    const third = index.catchUp();
    await Promise.all([first, second, third]);
    expect(index.head).to.equal(2);
    expect(reads).to.have.length(2);
  });

  it('maps expected versions and current stream states to KurrentDB revisions and back', () => {
    expect(toStreamState(0)).to.equal('no_stream');
    expect(toStreamState(3)).to.equal(2n);
    expect(toStreamState('any')).to.equal('any');
    expect(toVersion('no_stream')).to.equal(0);
    expect(toVersion(4n)).to.equal(5);
  });
});
