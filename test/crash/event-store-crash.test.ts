// Crash safety of the SQLite event store: a child process appending under concurrent load (writers with
// version conflicts, readers of streams and of the global log) is killed with SIGKILL at a seeded random
// moment, 20 times over on the same file; after each reopening, every acknowledged append is there
// with the same content, every append is all-or-nothing, stream versions are contiguous from 1 and
// global positions are gap-free. (SIGKILL keeps the OS page cache, so this checks the store's own
// commit protocol and WAL recovery, not power loss; synchronous=FULL covers the latter.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { RecordedEvent } from '../../src/domain/events.js';
import { eventId } from '../../src/ports/event-store.js';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { eventsOfAck, runAppendChildUntilKilled, type AppendAck } from './append-crash-run.js';

const body = ({ type, data, meta }: RecordedEvent) => ({ type, data, meta });

function groupBy(events: RecordedEvent[], key: (event: RecordedEvent) => string): Map<string, RecordedEvent[]> {
  const groups = new Map<string, RecordedEvent[]>();
  for (const event of events) {
    const group = groups.get(key(event));
    if (group) group.push(event);
    else groups.set(key(event), [event]);
  }
  return groups;
}

/** Checks the reopened log: gap-free positions, contiguous stream versions, whole appends, every ack intact. */
async function expectIntact(path: string, acks: readonly AppendAck[]): Promise<number> {
  const store = await openSqliteEventStore({ path });
  try {
    const all = await store.readAll();
    expect(all.map((e) => e.position)).to.deep.equal(all.map((_, i) => i + 1));

    const byStream = groupBy(all, (e) => e.stream);
    for (const [stream, events] of byStream) {
      expect(events.map((e) => e.version), stream).to.deep.equal(events.map((_, i) => i + 1));
    }

    // Every append in the log, acknowledged or not, is whole: its ids run 0..n-1 on consecutive versions.
    for (const [commandId, events] of groupBy(all, (e) => e.meta.command_id)) {
      expect(events.map((e) => e.id)).to.deep.equal(events.map((_, i) => eventId(commandId, i)));
      expect(new Set(events.map((e) => e.stream)).size).to.equal(1);
      expect(events.map((e) => e.version - events[0]!.version)).to.deep.equal(events.map((_, i) => i));
    }

    let lost = 0;
    for (const ack of acks) {
      const from = ack.version - ack.eventCount + 1;
      const stored = await store.readStream(ack.stream, { from, limit: ack.eventCount });
      if (stored.length !== ack.eventCount) lost++;
      expect(stored.map(body), ack.commandId).to.deep.equal(eventsOfAck(ack));
      expect(stored.at(-1)).to.include({ version: ack.version, position: ack.position });
    }
    return lost;
  } finally {
    await store.close();
  }
}

describe('SQLite event store survives SIGKILL under concurrent appends', function () {
  // Bounded by its 20 cycles (each killed after a seeded number of acknowledgements), not by time: the
  // timeout is only a guard against a hang, wide enough for a loaded machine (12 child starts under load).
  this.timeout(600_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-crash-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every acknowledged append intact across 20 SIGKILL cycles on one log, under mixed load', async () => {
    const path = join(dir, 'events.sqlite');
    const acks: AppendAck[] = [];
    for (let cycle = 0; cycle < 20; cycle++) {
      const seed = 1_000 + cycle * 7;
      const cycleAcks = await runAppendChildUntilKilled({ path, seed, streams: 5, writers: 12, readers: 2 });
      expect(cycleAcks.length, `cycle ${cycle}`).to.be.greaterThan(0);
      acks.push(...cycleAcks);
    }
    // A later crash must not damage what earlier cycles committed either: one check over all 20 cycles.
    expect(await expectIntact(path, acks)).to.equal(0);
    if (process.env['STORYLINE_CRASH_FIGURES']) console.log(`crash: 20 cycles, ${acks.length} acknowledged appends, 0 lost`);

    const store = await openSqliteEventStore({ path });
    try {
      const head = await store.headPosition();
      const afterCrash = eventsOfAck({ commandId: 'after-crash', eventCount: 1 });
      const next = await store.append('project-1', await store.streamVersion('project-1'), afterCrash);
      expect(next.position).to.equal(head + 1);
    } finally {
      await store.close();
    }
  });
});
