// What the SQLite log promises about its hash chain beyond the contract: a log written before hashes
// existed is chained at open to the very hashes a fresh log computes, and verifyLog names the first
// event that was altered, removed or re-hashed in the file.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { chainHash, chainRest } from '../../src/infra/event-codec.js';
import { verifyLog } from '../../src/infra/event-store/chain-verifier.js';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import type { EventStore } from '../../src/ports/event-store.js';
import { appendOf } from './event-store.fixtures.js';

const tempDirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-chain-'));
  tempDirs.push(dir);
  return join(dir, 'events.sqlite');
}
after(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A log of three streams, 2 + 3 + 1 appends interleaved, closed; returns its path and stored hashes. */
async function writtenLog(): Promise<{ path: string; hashes: string[] }> {
  const path = tempFile();
  const store = await openSqliteEventStore({ path });
  const plan = ['project-1', 'project-2', 'project-1', 'project-2', 'person-7', 'project-2'];
  for (const [index, stream] of plan.entries()) {
    await store.append(stream, await store.streamVersion(stream), appendOf(`command-${index}`, 1, index));
  }
  const hashes = (await store.readChain()).map((event) => event.hash);
  await store.close();
  return { path, hashes };
}

function editFile(path: string, sql: string): void {
  const db = new Database(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/**
 * verifyLog over the file twice: through the SQLite store's own read (the database joins data and meta)
 * and through the port's readChain alone (what every other adapter offers); both must agree.
 */
async function verification(path: string) {
  const store = await openSqliteEventStore({ path });
  try {
    const fast = await verifyLog(store, 2);
    const portOnly: Partial<typeof store> = { ...store };
    delete portOnly.readChainRests;
    expect(await verifyLog(portOnly as EventStore, 2)).to.deep.equal(fast);
    return fast;
  } finally {
    await store.close();
  }
}

describe('SQLite event store: hash chain', () => {
  it('chains a log written before hashes at open, to the hashes a fresh log computes', async () => {
    const { path, hashes } = await writtenLog();
    editFile(path, 'DROP INDEX events_unchained; ALTER TABLE events DROP COLUMN hash;');

    const upgraded = await openSqliteEventStore({ path });
    try {
      expect(upgraded.chainedOnOpen).to.equal(6);
      expect((await upgraded.readChain()).map((event) => event.hash)).to.deep.equal(hashes);
      await upgraded.append('project-1', 2, appendOf('command-after-upgrade', 1, 9));
      expect((await verifyLog(upgraded)).ok).to.equal(true);
    } finally {
      await upgraded.close();
    }
    const reopened = await openSqliteEventStore({ path });
    expect(reopened.chainedOnOpen).to.equal(0);
    await reopened.close();
  });

  it("summarises every stream's version and head hash when nothing was altered", async () => {
    const { path, hashes } = await writtenLog();
    const result = await verification(path);
    expect(result).to.deep.equal({
      ok: true,
      summary: {
        events: 6,
        // every event's hash in log order, hashed
        sequence_hash: createHash('sha256').update(hashes.join('')).digest('hex'),
        streams: [
          { stream: 'person-7', version: 1, head_hash: hashes[4] },
          { stream: 'project-1', version: 2, head_hash: hashes[2] },
          { stream: 'project-2', version: 3, head_hash: hashes[5] },
        ],
      },
    });
  });

  it("has the database write each event's hashed text as the codec does, whatever names and data it holds", async () => {
    const path = tempFile();
    const store = await openSqliteEventStore({ path });
    try {
      // every BMP character but the surrogates, in stream names and types, and awkward data
      const characters = Array.from({ length: 0x10000 }, (_, code) => code).filter((code) => code < 0xd800 || code > 0xdfff).map((code) => String.fromCharCode(code));
      const names = Array.from({ length: 64 }, (_, index) => characters.filter((_, position) => position % 64 === index).join(''));
      for (const [index, name] of names.entries()) {
        const event = { type: `type ${name}`, data: { changes: [`é ✓ 😀 \u2028 "q" \\ \n ${name}`] }, meta: { schema: 2, occurred_at: 1, performed_by: 1, command_id: `c-${index}` } };
        await store.append(`stream ${name}`, 0, [event as never]);
      }
      const chained = await store.readChain();
      const rows = await store.readChainRests(0, 1000);
      expect(rows).to.have.length(names.length);
      expect(rows).to.deep.equal(chained.map((event) => [event.position, event.stream, event.version, event.hash, chainRest(event.stream, event.version, event.type, event.data, event.meta)]));
      expect((await verifyLog(store)).ok).to.equal(true);
    } finally {
      await store.close();
    }
  });

  it('names the stream and version of an event whose data was edited in the file', async () => {
    const { path } = await writtenLog();
    editFile(path, `UPDATE events SET data = replace(data, 'finished', 'accepted') WHERE position = 4`);
    expect(await verification(path)).to.include({ ok: false, stream: 'project-2', version: 2, position: 4 });
  });

  it('names the successor of an event that was edited and re-hashed', async () => {
    const { path } = await writtenLog();
    const db = new Database(path);
    const row = db.prepare('SELECT stream, version, type, data, meta FROM events WHERE position = 2').get() as {
      stream: string; version: number; type: string; data: string; meta: string;
    };
    const data = row.data.replace('finished', 'accepted');
    db.prepare('UPDATE events SET data = ?, hash = ? WHERE position = 2').run(data, chainHash('', row.stream, 1, { ...row, data }));
    db.close();
    const result = await verification(path);
    expect(result).to.include({ ok: false, stream: 'project-2', version: 2, position: 4 });
    expect(result.ok || result.problem).to.match(/altered/);
  });

  // (a stream's removed LAST event leaves no gap: the head hashes an operator kept elsewhere show it)
  it('names the gap an event removed from the file leaves', async () => {
    const { path } = await writtenLog();
    editFile(path, 'DELETE FROM events WHERE position = 2');
    const result = await verification(path);
    expect(result).to.include({ ok: false, stream: 'project-2', version: 2, position: 4 });
  });
});

describe('chain hash definition', () => {
  it('is SHA-256 over JSON.stringify([previous, stream, version, type]), data and meta, newline-separated, for any names', async () => {
    const { createHash } = await import('node:crypto');
    const cases: [string, string, number, string][] = [
      ['', 'project-1', 1, 'story_create'],
      ['ab'.repeat(32), 'str"eam\\\u2028é', 7, 'ty\npe "x"'],
    ];
    for (const [previous, stream, version, type] of cases) {
      const event = { type, data: '{"a":"é\\n"}', meta: '{"schema":1}' };
      const defined = createHash('sha256').update(`${JSON.stringify([previous, stream, version, type])}\n${event.data}\n${event.meta}`).digest('hex');
      expect(chainHash(previous, stream, version, event)).to.equal(defined);
    }
    // A hash of a log written before this change, pinned so existing logs keep verifying.
    expect(chainHash('', 'project-1', 1, { type: 'project_create', data: '{}', meta: '{}' })).to.equal(
      createHash('sha256').update('["","project-1",1,"project_create"]\n{}\n{}').digest('hex'),
    );
  });
});
