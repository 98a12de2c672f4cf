// Stream-state snapshots, in the file beside the log and in memory: the latest one per stream, read back
// as it was stored; a file that is not a database is made again, not a reason to stop.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { DECISION_STATE_FORMAT, type DecisionStateSnapshot } from '../../src/domain/resource-state.js';
import { createLog, silentLog } from '../../src/infra/log.js';
import { memoryDecisionStateSnapshots, openSqliteDecisionStateSnapshots } from '../../src/infra/decision-state-snapshots/sqlite-decision-state-snapshots.js';
import type { DecisionStateSnapshots } from '../../src/ports/decision-state-snapshots.js';

function snapshotAt(stream: string, version: number): DecisionStateSnapshot {
  return {
    stream,
    format: DECISION_STATE_FORMAT,
    version,
    updatedAt: 1_700_000_000_000 + version,
    lastEventId: `event-${version}`,
    docs: { story: [{ id: 1, name: 'Ünïcode ✓', label_ids: [2, 3], rank: 'U00001' }], label: [{ id: 2, name: 'ops' }, { id: 3, name: 'api' }] },
  };
}

describe('stream-state snapshots', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-states-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const adapters: Array<[string, () => DecisionStateSnapshots]> = [
    ['in a file', () => openSqliteDecisionStateSnapshots(join(dir, 'states.sqlite'), silentLog)],
    ['in memory', () => memoryDecisionStateSnapshots()],
  ];
  for (const [name, open] of adapters) {
    it(`keeps the latest snapshot of each stream, read back as stored (${name})`, async () => {
      const snapshots = open();
      try {
        expect(await snapshots.latest('project-1')).to.equal(null);
        await snapshots.save(snapshotAt('project-1', 1_000));
        await snapshots.save(snapshotAt('project-2', 3_000));
        await snapshots.save(snapshotAt('project-1', 2_000));
        expect(await snapshots.latest('project-1')).to.deep.equal(JSON.parse(JSON.stringify(snapshotAt('project-1', 2_000))));
        expect((await snapshots.latest('project-2'))!.version).to.equal(3_000);
        // Asked for one after the other without waiting: stored in that order, whatever their sizes.
        const large = { ...snapshotAt('project-2', 4_000), docs: { story: Array.from({ length: 2_000 }, (_, id) => ({ id, name: randomBytes(64).toString('hex') })) } };
        await Promise.all([snapshots.save(large), snapshots.save(snapshotAt('project-2', 5_000))]);
        expect((await snapshots.latest('project-2'))!.version).to.equal(5_000);
      } finally {
        await snapshots.close();
      }
    });
  }

  it('keeps its snapshots across a reopening of the file, and tells what each is of without its body', async () => {
    const path = join(dir, 'states.sqlite');
    const first = openSqliteDecisionStateSnapshots(path, silentLog);
    await first.save(snapshotAt('project-7', 1_000));
    await first.close();
    const again = openSqliteDecisionStateSnapshots(path, silentLog);
    try {
      expect((await again.latest('project-7'))!.lastEventId).to.equal('event-1000');
      expect(await again.storedHead('project-7')).to.deep.equal({ stream: 'project-7', version: 1_000, format: DECISION_STATE_FORMAT, lastEventId: 'event-1000' });
      expect(await again.storedHead('project-8')).to.equal(null);
    } finally {
      await again.close();
    }
  });

  it('empties a file of another layout', async () => {
    const path = join(dir, 'states.sqlite');
    const old = new Database(path);
    old.exec('CREATE TABLE stream_states (stream TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL) WITHOUT ROWID');
    old.prepare('INSERT INTO stream_states VALUES (?, ?, ?)').run('project-1', 1_000, JSON.stringify(snapshotAt('project-1', 1_000)));
    old.close();
    const snapshots = openSqliteDecisionStateSnapshots(path, silentLog);
    try {
      expect(await snapshots.latest('project-1')).to.equal(null);
      await snapshots.save(snapshotAt('project-1', 2_000));
      expect((await snapshots.latest('project-1'))!.version).to.equal(2_000);
    } finally {
      await snapshots.close();
    }
  });

  it('goes without snapshots where the file cannot be opened, and says so', async () => {
    const path = join(dir, 'states.sqlite');
    mkdirSync(path);
    const warnings: string[] = [];
    const snapshots = openSqliteDecisionStateSnapshots(path, createLog('warn', (line) => warnings.push(line)));
    try {
      await snapshots.save(snapshotAt('project-1', 1_000));
      expect(await snapshots.latest('project-1')).to.equal(null);
      expect(warnings.join('\n')).to.match(/states\.sqlite cannot be opened: no stream state is snapshotted/);
    } finally {
      await snapshots.close();
    }
  });

  it('makes a file that is not a database again, and says so', async () => {
    const path = join(dir, 'states.sqlite');
    writeFileSync(path, 'not a database at all, but long enough to be read as a header of one'.repeat(100));
    const warnings: string[] = [];
    const snapshots = openSqliteDecisionStateSnapshots(path, createLog('warn', (line) => warnings.push(line)));
    try {
      expect(await snapshots.latest('project-1')).to.equal(null);
      await snapshots.save(snapshotAt('project-1', 1_000));
      expect((await snapshots.latest('project-1'))!.version).to.equal(1_000);
      expect(warnings.join('\n')).to.match(/states\.sqlite is not a readable database/);
    } finally {
      await snapshots.close();
    }
  });

  it('makes the file again when a read finds it corrupt while it is open', async () => {
    const path = join(dir, 'states.sqlite');
    const warnings: string[] = [];
    const snapshots = openSqliteDecisionStateSnapshots(path, createLog('warn', (line) => warnings.push(line)));
    try {
      // More than the connection's page cache holds, in bodies that do not deflate and span several
      // overflow pages, so that the read goes to the file and meets a page it cannot follow.
      const wide = (stream: string): DecisionStateSnapshot => ({ ...snapshotAt(stream, 1_000), docs: { story: [{ id: 1, name: randomBytes(12_000).toString('base64') }] } });
      for (let n = 0; n < 500; n++) await snapshots.save(wide(`project-${n}`));
      writeFileSync(path, Buffer.alloc(statSync(path).size + 40_960, 7));
      writeFileSync(`${path}-wal`, Buffer.alloc(0));
      const failed = await snapshots.latest('project-3').catch((error: unknown) => error);
      expect(failed).to.have.property('code', 'SQLITE_CORRUPT');
      expect(warnings.join('\n')).to.match(/states\.sqlite is corrupt: deleted and created again/);
      expect(await snapshots.latest('project-3'), 'a new, empty file').to.equal(null);
      await snapshots.save(snapshotAt('project-3', 2_000));
      expect((await snapshots.latest('project-3'))!.version).to.equal(2_000);
    } finally {
      await snapshots.close();
    }
  });
});
