// Reading the log in full batches goes through the read-ahead worker; what it hands out must be exactly
// what direct reads return, including while appends continue between batches.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { RecordedEvent } from '../../src/domain/events.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { appendOf } from './event-store.fixtures.js';

async function appendMany(store: SqliteEventStore, stream: string, count: number, tag: string): Promise<void> {
  let version = await store.streamVersion(stream);
  for (let n = 0; n < count; n += 50) {
    version = (await store.append(stream, version, appendOf(`${tag}-${n}`, Math.min(50, count - n)))).version;
  }
}

async function walk(store: SqliteEventStore, batch: number, between?: (after: number) => Promise<void>): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (;;) {
    const page = await store.readAll({ after: events.at(-1)?.position ?? 0, limit: batch });
    events.push(...page);
    if (page.length < batch) return events;
    await between?.(events.at(-1)!.position);
  }
}

describe('SQLite event store: batched reads of the global log (read-ahead)', function () {
  this.timeout(20_000);
  let dir: string;
  let store: SqliteEventStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-read-ahead-'));
    store = await openSqliteEventStore({ path: join(dir, 'events.sqlite') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('returns the whole log, in order, batch after batch', async () => {
    await appendMany(store, 'project-1', 1_300, 'a');
    await appendMany(store, 'project-2', 1_250, 'b');
    const direct = await store.readAll();
    const batched = await walk(store, 500);
    expect(batched.map((e) => e.position)).to.deep.equal(direct.map((_, i) => i + 1));
    expect(batched).to.deep.equal(direct);
  });

  it('sees events appended while it walks, and hands out no stale short batch', async () => {
    await appendMany(store, 'project-1', 1_000, 'a');
    let round = 0;
    const batched = await walk(store, 300, async () => {
      if (round++ < 4) await appendMany(store, 'project-3', 120, `c${round}`);
    });
    const direct = await store.readAll();
    expect(direct).to.have.length(1_000 + 4 * 120);
    expect(batched).to.deep.equal(direct);
  });
});
