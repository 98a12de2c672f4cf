// The import's writer: a log bulk-loaded without its UNIQUE indexes ends with exactly the schema of a
// store created by openSqliteEventStore (and that schema's guarantees: no second id, no second version
// of a stream), refuses a batch that does not continue its streams, and names two events sharing an id.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { GENESIS_HASH, chainHash } from '../../../src/infra/event-codec.js';
import { openSqliteBulkLoad, type EncodedStreamEvent } from '../../../src/infra/event-store/sqlite-bulk-load.js';
import { openSqliteEventStore } from '../../../src/infra/event-store/sqlite-event-store.js';
import { eventId } from '../../../src/ports/event-store.js';
import { seededRandom } from '../../support/seeded-random.js';

/** `count` events over three interleaved streams, chained, each appended by its own command. */
function events(count: number, seed: number): EncodedStreamEvent[] {
  const random = seededRandom(seed);
  const heads = new Map<string, { version: number; hash: string }>();
  return Array.from({ length: count }, (_, n) => {
    const stream = `project-${1 + Math.floor(random() * 3)}`;
    const head = heads.get(stream) ?? { version: 0, hash: GENESIS_HASH };
    const encoded = { type: 'story_update', data: JSON.stringify({ n, note: 'é ✓' }), meta: JSON.stringify({ schema: 1, command_id: `command-${n}` }) };
    const version = head.version + 1;
    const hash = chainHash(head.hash, stream, version, encoded);
    heads.set(stream, { version, hash });
    return { ...encoded, id: eventId(`command-${n}`, 0), stream, version, hash };
  });
}

const schemaOf = (db: Database.Database) => ({
  rows: db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid').all(),
  indexes: db.pragma('index_list(events)'),
  keys: ['sqlite_autoindex_events_1', 'sqlite_autoindex_events_2'].map((index) => db.pragma(`index_xinfo(${index})`)),
});

describe('the bulk load of an import', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'storyline-bulk-load-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('ends with the schema of a store created by openSqliteEventStore, every row in place, in WAL', async () => {
    const storePath = join(dir, 'store.sqlite');
    await (await openSqliteEventStore({ path: storePath })).close();
    const loaded = events(2_500, 7);
    const load = openSqliteBulkLoad(join(dir, 'loaded.sqlite'));
    load.append(loaded.slice(0, 1_000));
    load.append(loaded.slice(1_000));
    expect(load.finish()).to.equal(null);
    load.close();

    const store = new Database(storePath, { readonly: true });
    const db = new Database(join(dir, 'loaded.sqlite'));
    try {
      expect(schemaOf(db)).to.deep.equal(schemaOf(store));
      expect(db.pragma('integrity_check', { simple: true })).to.equal('ok');
      expect(db.pragma('journal_mode', { simple: true })).to.equal('wal');
      const rows = db.prepare('SELECT position, id, stream, version, type, data, meta, hash FROM events ORDER BY position').all();
      expect(rows).to.deep.equal(loaded.map((event, index) => ({ position: index + 1, ...event })));
      // the store's guarantees hold on the loaded log: no second id, no second version of a stream
      const insert = db.prepare('INSERT INTO events (id, stream, version, type, data, meta, hash) VALUES (?, ?, ?, ?, ?, ?, ?)');
      const first = loaded[0]!;
      expect(() => insert.run(first.id, 'project-9', 1, 'x', '{}', '{}', '')).to.throw(/UNIQUE constraint failed: events.id/);
      expect(() => insert.run('another-id', first.stream, first.version, 'x', '{}', '{}', '')).to.throw(/UNIQUE constraint failed: events.stream, events.version/);
    } finally {
      db.close();
      store.close();
    }
    // and the store opens it and reads it as its own
    const reopened = await openSqliteEventStore({ path: join(dir, 'loaded.sqlite') });
    expect(await reopened.headPosition()).to.equal(loaded.length);
    expect(await reopened.streamVersion(loaded.at(-1)!.stream)).to.equal(loaded.at(-1)!.version);
    await reopened.close();
  });

  it('refuses a batch whose event does not continue its stream, writing nothing of that batch', () => {
    const loaded = events(20, 3);
    const load = openSqliteBulkLoad(':memory:');
    try {
      load.append(loaded.slice(0, 10));
      const rest = loaded.slice(10);
      // an event with a later one of its stream in the batch: without it, that later one skips a version
      const gap = rest.find((event, index) => rest.slice(index + 1).some((later) => later.stream === event.stream))!;
      const skipping = rest.filter((event) => event !== gap);
      expect(() => load.append(skipping)).to.throw(/is at version \d+: cannot append version \d+/);
      load.append(loaded.slice(10));
      expect(load.finish()).to.equal(null);
    } finally {
      load.close();
    }
  });

  it('names two events given the same id when it builds the id index', () => {
    const loaded = events(30, 11);
    const twin = loaded.findLast((event) => event.stream !== loaded[0]!.stream)!;
    twin.id = loaded[0]!.id;
    const load = openSqliteBulkLoad(':memory:');
    try {
      load.append(loaded);
      expect(load.finish()).to.equal(
        `two events have the same id (${loaded[0]!.id}): ${loaded[0]!.stream} version 1 and ${twin.stream} version ${twin.version}`,
      );
    } finally {
      load.close();
    }
  });
});
