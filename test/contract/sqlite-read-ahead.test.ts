// Reading the log in full batches goes through the read-ahead worker; what it hands out must be exactly
// what direct reads return, including while appends continue between batches.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { RecordedEvent } from '../../src/domain/events.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { SqliteReadAhead } from '../../src/infra/event-store/sqlite-read-ahead.js';
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

  it('reads a long run of one stream in the worker, as direct reads return it, appends included', async () => {
    const workerReads: number[] = [];
    const original = SqliteReadAhead.prototype.readStream;
    SqliteReadAhead.prototype.readStream = function (this: SqliteReadAhead, stream, from, limit) {
      workerReads.push(from);
      return original.call(this, stream, from, limit);
    };
    try {
      for (let round = 0; round < 3; round++) {
        await appendMany(store, 'project-1', 450, `a${round}`);
        await appendMany(store, 'project-2', 100, `b${round}`);
      }
      const direct: RecordedEvent[] = [];
      for (let from = 1; ; from += 50) {
        const page = await store.readStream('project-1', { from, limit: 50 });
        direct.push(...page);
        if (page.length < 50) break;
      }
      expect(workerReads, 'pages of 50 are read directly').to.deep.equal([]);
      expect(direct.map((event) => event.version)).to.deep.equal(Array.from({ length: 1_350 }, (_, i) => i + 1));
      expect(await store.readStream('project-1')).to.deep.equal(direct);
      expect(await store.readStream('project-1', { from: 1_001, limit: 1_000 })).to.deep.equal(direct.slice(1_000));
      expect(workerReads).to.deep.equal([1, 1_001]);
      expect(await store.readStream('project-1', { from: 1_301, limit: 1_000 }), 'fewer than 64 left: read directly').to.deep.equal(direct.slice(1_300));
      expect(await store.readStream('project-1', { from: 1_201, limit: 100 }), '100 events: read in the worker').to.deep.equal(direct.slice(1_200, 1_300));
      await appendMany(store, 'project-1', 300, 'late');
      const late = await store.readStream('project-1', { from: 1_351, limit: 1_000 });
      expect(late.map((event) => event.version)).to.deep.equal(Array.from({ length: 300 }, (_, i) => 1_351 + i));
      expect(workerReads, 'what this process appended, read in the worker').to.deep.equal([1, 1_001, 1_201, 1_351]);
      expect(await store.readStream('project-1', { from: 1_651, limit: 1_000 })).to.deep.equal([]);
      expect(await store.readStream('project-9', { limit: 1_000 })).to.deep.equal([]);
      expect(await store.readStream('project-1', { limit: 0 })).to.deep.equal([]);
      expect(workerReads).to.have.length(4);
    } finally {
      SqliteReadAhead.prototype.readStream = original;
    }
  });
});
