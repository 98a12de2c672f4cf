// `storyline import` through the event store port (what it does with STORYLINE_KURRENT_URL), run here
// against the embedded store behind the same port: an export appended command by command gives back
// every event's id, version, global position, stored text and chain hash, so the store exports the very
// same file; the first pass refuses, writing nothing, a file whose event the port would store as other
// text (and so with another hash).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { GENESIS_HASH, chainHash } from '../../src/infra/event-codec.js';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { LogSummaryBuilder } from '../../src/infra/event-store/log-summary.js';
import { portImportCheck, portImportTarget } from '../../src/infra/export/event-store-import.js';
import { exportLog } from '../../src/infra/export/log-export.js';
import { ImportRefused, importLog } from '../../src/infra/export/log-import.js';
import { exportLine, trailerLine } from '../../src/infra/export/ndjson-log.js';
import { storylineApp } from '../api/support/storyline-app.js';
import { appendOf } from './event-store.fixtures.js';

describe('import through the event store port', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-port-import-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('appends every command as it was first appended: the store exports the same file, ids included', async () => {
    const app = await storylineApp();
    const owner = await app.person('Owner');
    const project = (await app.api('POST', '/projects', { as: owner, body: { name: 'Imported', new_account_name: 'Acme' } })).json.id as number;
    // several streams interleaved
    await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'With parts', tasks: [{ description: 'one' }, { description: 'two' }], labels: ['a', 'b'] } });
    for (let i = 0; i < 5; i++) await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: `story ${i}` } });
    await app.api('PUT', '/me', { as: owner, body: { name: 'Owner Renamed' } });
    const original = join(dir, 'original.ndjson');
    await exportLog(app.storyline.eventStore, original);
    const originalIds = (await app.storyline.eventStore.readAll()).map((event) => event.id);
    await app.close();

    const target = await openSqliteEventStore({ path: ':memory:' });
    try {
      await importLog(portImportCheck(), original);
      expect(await target.headPosition(), 'the check writes nothing').to.equal(0);
      await importLog(portImportTarget(target), original);
      const again = join(dir, 'again.ndjson');
      await exportLog(target, again);
      expect(readFileSync(again, 'utf8')).to.equal(readFileSync(original, 'utf8'));
      expect((await target.readAll()).map((event) => event.id)).to.deep.equal(originalIds);
    } finally {
      await target.close();
    }
  });

  it('appends a command of several events in one append, so their ids stay those of one command', async () => {
    const source = await openSqliteEventStore({ path: ':memory:' });
    const target = await openSqliteEventStore({ path: ':memory:' });
    try {
      await source.append('project-1', 0, appendOf('c1', 3));
      await source.append('project-2', 0, appendOf('c2'));
      await source.append('project-1', 3, appendOf('c3', 2, 3));
      const file = join(dir, 'runs.ndjson');
      await exportLog(source, file);
      await importLog(portImportTarget(target), file);
      expect((await target.readAll()).map((recorded) => recorded.id)).to.deep.equal((await source.readAll()).map((recorded) => recorded.id));
      expect(await target.readChain()).to.deep.equal(await source.readChain());
    } finally {
      await source.close();
      await target.close();
    }
  });

  it('refuses, before anything is written, an event whose stored text the port would write otherwise', async () => {
    const stream = 'person-1';
    const events = [
      { type: 'person_create', data: '{"id":1,"name":"Ada"}', meta: '{"command_id":"c1","occurred_at":1}' },
      { type: 'person_update', data: '{"id":1, "name":"Ada L"}', meta: '{"command_id":"c2","occurred_at":2}' },
    ];
    const summary = new LogSummaryBuilder();
    let previous = GENESIS_HASH;
    const lines = events.map((event, index) => {
      previous = chainHash(previous, stream, index + 1, event);
      summary.add(stream, index + 1, previous);
      return exportLine({ position: index + 1, stream, version: index + 1, ...event, hash: previous });
    });
    const file = join(dir, 'spaced.ndjson');
    writeFileSync(file, `${[...lines, trailerLine(summary.summary())].join('\n')}\n`);

    const refused = await importLog(portImportCheck(), file).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(ImportRefused);
    expect((refused as Error).message).to.contain('line 2: its data is not stored as JSON.stringify writes it');
  });
});
