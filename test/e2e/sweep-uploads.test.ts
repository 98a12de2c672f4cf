// The operator's sweep of upload bytes, as a child process over a data directory: blobs that a recorded
// file attachment names stay, others go once older than the grace period.
import { emptyState } from '../../src/domain/decision-states.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { decideUploadFile } from '../../src/domain/file-attachment/upload-file.js';
import { EVENT_SCHEMA, streams } from '../../src/domain/events.js';
import type { NewEvent } from '../../src/domain/events.js';
import { openFileBlobStore } from '../../src/infra/blob-store/file-blob-store.js';
import { openDataDirectory } from '../../src/infra/data-directory.js';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { chunked, seededBytes } from '../contract/blob-store.contract.js';

const bin = fileURLToPath(new URL('../../../bin/storyline.js', import.meta.url));
const run = promisify(execFile);

describe('storyline sweep-uploads', function () {
  this.timeout(60_000);
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'storyline-sweep-e2e-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('removes only unreferenced blobs older than the grace period', async () => {
    const blobs = await openFileBlobStore(join(dataDir, 'uploads'));
    const kept = await blobs.put(chunked(seededBytes(1, 500)), { maxBytes: 1000 });
    const orphan = await blobs.put(chunked(seededBytes(2, 500)), { maxBytes: 1000 });
    await blobs.close();

    // a project and the upload of `kept`, recorded on its stream as the upload endpoint records them
    const stream = streams.project(1);
    const meta = (commandId: string) => ({ schema: EVENT_SCHEMA, occurred_at: Date.now(), performed_by: 5, command_id: commandId });
    const projectCreate: NewEvent = {
      type: 'project_create',
      data: { changes: [{ kind: 'project', change_type: 'create', id: 1, new_values: { name: 'P' } }], primary_resources: [] },
      meta: meta('c1'),
    };
    const state = emptyState(stream).evolve({ ...projectCreate, id: 'e1', stream, version: 1, position: 1 });
    const command = { filename: 'kept.bin', content_type: 'application/octet-stream', size: 500, content_hash: kept.key };
    const upload = decideUploadFile(command, state, { now: Date.now(), actorId: 5, nextId: () => 1 });
    openDataDirectory(dataDir, { embeddedEventLog: true }); // as `serve` would have made it
    const events = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite') });
    await events.append(stream, 0, [projectCreate]);
    await events.append(stream, 1, [{ ...upload, meta: meta('c2') }]);
    await events.close();

    const env = { ...process.env, STORYLINE_DATA: dataDir };
    const withinGrace = await run(process.execPath, [bin, 'sweep-uploads'], { env });
    expect(JSON.parse(withinGrace.stdout)).to.deep.equal({ removed: 0 });
    const swept = await run(process.execPath, [bin, 'sweep-uploads', '--grace-hours', '0'], { env });
    expect(JSON.parse(swept.stdout)).to.deep.equal({ removed: 1 });

    const after = await openFileBlobStore(join(dataDir, 'uploads'));
    expect(await after.exists(kept.key)).to.equal(true);
    expect(await after.exists(orphan.key)).to.equal(false);
  });

  it('refuses a negative grace period with exit code 2', async () => {
    openDataDirectory(dataDir, { embeddedEventLog: true }); // an installation, so only the option is wrong
    await (await openSqliteEventStore({ path: join(dataDir, 'events.sqlite') })).close();
    const error = await run(process.execPath, [bin, 'sweep-uploads', '--grace-hours', '-1'], {
      env: { ...process.env, STORYLINE_DATA: dataDir },
    }).catch((caught: { code: number }) => caught);
    expect((error as { code: number }).code).to.equal(2);
  });
});
