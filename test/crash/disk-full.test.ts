// Disk full, on a real 4 MiB tmpfs: once the volume is full, writes answer 507 `storage_full` with an
// error hash saying nothing was stored, reads go on, and writes work again by themselves once space
// returns. Skipped, with the reason, where this machine cannot mount a tmpfs.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { openStoryline, type Storyline } from '../../src/infra/composition.js';
import { configFromEnv } from '../../src/infra/config.js';
import { startServer, type TestServer } from '../api/support/http-client.js';
import { mountSmallVolume, type SmallVolume } from './small-volume.js';

/** Fills the volume with one file until the disk refuses more; returns its path. */
function fillVolume(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let written = 0; written < 64 * 1024 * 1024; written += chunk.length) writeSync(fd, chunk);
    throw new Error('the volume never filled up');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return path;
}

describe('disk full', function () {
  this.timeout(30_000);
  let volume: SmallVolume;
  let storyline: Storyline;
  let server: TestServer;

  before(async function () {
    const mounted = mountSmallVolume(4 * 1024 * 1024);
    if ('reason' in mounted) {
      this.skip(); // reason: mounted.reason
      return;
    }
    volume = mounted.volume;
    const config = configFromEnv({ STORYLINE_DATA: join(volume.path, 'data'), STORYLINE_RESPONSE_CACHE_ENTRIES: '0' });
    storyline = await openStoryline(config);
    server = await startServer(storyline.app);
  });
  after(async () => {
    await server?.close();
    await storyline?.close();
    volume?.unmount();
  });

  it('answers writes 507 storage_full, keeps serving reads, and recovers when space returns', async () => {
    const owner = await storyline.addPerson({ email: 'owner@example.com', name: 'Owner', password: 'long-enough-pw' });
    const as = { 'X-TrackerToken': owner.api_token };
    const api = (method: string, path: string, body?: unknown) => server.request(method, `/services/v5${path}`, { headers: as, ...(body ? { body } : {}) });
    const project = await api('POST', '/projects', { name: 'Full', new_account_name: 'Disk' });
    expect(project.status, project.text).to.equal(200);
    const stories = `/projects/${project.json.id}/stories`;
    expect((await api('POST', stories, { name: 'before the disk filled' })).status).to.equal(200);

    const filler = fillVolume(volume.path);
    const description = 'x'.repeat(20_000);
    let refused = await api('POST', stories, { name: 'no room', description });
    for (let attempt = 0; attempt < 20 && refused.status === 200; attempt++) refused = await api('POST', stories, { name: 'no room', description });
    expect(refused.status, refused.text).to.equal(507);
    expect(refused.json).to.include({ kind: 'error', code: 'storage_full' });
    expect(refused.json.general_problem).to.contain('cannot store the change');

    const read = await api('GET', stories);
    expect(read.status).to.equal(200);
    const names = read.json.map((story: { name: string }) => story.name);
    expect(names).to.include('before the disk filled');

    rmSync(filler);
    const after = await api('POST', stories, { name: 'after space returned', description });
    expect(after.status, after.text).to.equal(200);
    const reread = await api('GET', stories);
    expect(reread.json.length).to.equal(names.length + 1);
  });
});
