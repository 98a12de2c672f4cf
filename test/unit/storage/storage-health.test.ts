// The storage health: a store guarded for its file turns a damaged file's failure (thrown or rejected,
// by the store or by a collection it hands out) into 503 `component_unavailable` and records the file
// once, logged once; a full disk stays 507 and is not recorded as damage; other failures pass unchanged.
import { expect } from 'chai';
import { DomainError } from '../../../src/domain/errors.js';
import { createLog } from '../../../src/infra/log.js';
import { StorageHealth, guardedStore } from '../../../src/infra/storage-health.js';

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('storage health', () => {
  const lines: Record<string, unknown>[] = [];
  let health: StorageHealth;
  beforeEach(() => {
    lines.splice(0);
    health = new StorageHealth(createLog('info', (line) => void lines.push(JSON.parse(line) as Record<string, unknown>)), () => 1_000);
  });

  const store = {
    value: 7,
    async read(): Promise<number> {
      throw sqliteError('SQLITE_CORRUPT', 'database disk image is malformed');
    },
    readNow(): number {
      throw sqliteError('SQLITE_IOERR_SHORT_READ', 'disk I/O error');
    },
    async write(): Promise<void> {
      throw sqliteError('SQLITE_FULL', 'database or disk is full');
    },
    async bug(): Promise<void> {
      throw new TypeError('a bug');
    },
    collection(name: string) {
      return { name, find: async () => Promise.reject(sqliteError('SQLITE_CORRUPT_INDEX', 'index corrupted')) };
    },
  };

  it('answers a damaged file 503 component_unavailable, records it once naming the file, and logs it once', async () => {
    const guarded = guardedStore(store, '/data/dir/events.sqlite', health, ['collection']);
    expect(guarded.value).to.equal(7);
    for (let attempt = 0; attempt < 3; attempt++) {
      const failure = await guarded.read().catch((error: unknown) => error);
      expect(failure).to.be.instanceOf(DomainError).and.include({ code: 'component_unavailable' });
    }
    expect(() => guarded.readNow()).to.throw(DomainError, /damaged or its disk is failing/);
    expect(await guarded.collection('stories').find().catch((error: unknown) => (error as DomainError).code)).to.equal('component_unavailable');
    expect(health.faults()).to.deep.equal([{ file: 'events.sqlite', code: 'SQLITE_CORRUPT', problem: 'database disk image is malformed', since: 1_000 }]);
    expect(lines.map((line) => [line['level'], line['file'], line['code']])).to.deep.equal([['error', 'events.sqlite', 'SQLITE_CORRUPT']]);
  });

  it('keeps a full disk 507 and unrecorded, and passes other failures unchanged', async () => {
    const guarded = guardedStore(store, 'readmodels.sqlite', health);
    expect(await guarded.write().catch((error: unknown) => (error as DomainError).code)).to.equal('storage_full');
    expect(await guarded.bug().catch((error: unknown) => error)).to.be.instanceOf(TypeError);
    expect(health.faults()).to.deep.equal([]);
  });

  it('records a fault met outside a guarded store without a file, unless a file is already named', () => {
    expect(health.failure(sqliteError('SQLITE_NOTADB', 'file is not a database'), null)).to.include({ code: 'component_unavailable' });
    expect(health.faults()).to.deep.equal([{ file: null, code: 'SQLITE_NOTADB', problem: 'file is not a database', since: 1_000 }]);
    health.failure(sqliteError('SQLITE_CORRUPT', 'malformed'), 'events.sqlite');
    health.failure(sqliteError('SQLITE_CORRUPT', 'malformed'), null);
    expect(health.faults().map((fault) => fault.file)).to.deep.equal([null, 'events.sqlite']);
  });

  it("keeps what the integrity check found: ok, or the damage (recorded as a fault), or SQLite's own refusal as damage", () => {
    health.integrityCheckStarted();
    expect(health.integrityCheck()).to.deep.equal({ state: 'running', started: 1_000 });
    health.integrityChecked('events.sqlite', 12, { lines: ['ok'] });
    expect(health.integrityCheck()).to.deep.equal({ state: 'ok', ms: 12 });
    expect(health.faults()).to.deep.equal([]);
    health.integrityChecked('events.sqlite', 15, { lines: ['*** in database main ***\nTree 3 page 250 cell 0: Offset 65535 out of range\nPage 247: never used', 'NULL value in events.id'] });
    expect(health.integrityCheck()).to.deep.equal({ state: 'damaged', ms: 15, problem: 'Tree 3 page 250 cell 0: Offset 65535 out of range; Page 247: never used; NULL value in events.id' });
    expect(health.faults()).to.deep.include({ file: 'events.sqlite', code: 'quick_check', problem: 'Tree 3 page 250 cell 0: Offset 65535 out of range; Page 247: never used; NULL value in events.id', since: 1_000 });
    const other = new StorageHealth(createLog('error', () => {}));
    other.integrityChecked('events.sqlite', 9, { error: 'database disk image is malformed', code: 'SQLITE_CORRUPT' });
    expect(other.integrityCheck()).to.deep.equal({ state: 'damaged', ms: 9, problem: 'database disk image is malformed' });
    other.integrityChecked('events.sqlite', 9, { error: 'spawn failed', code: null });
    expect(other.integrityCheck()).to.include({ state: 'failed' });
  });
});
