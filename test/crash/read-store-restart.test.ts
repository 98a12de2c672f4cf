// The read-models file is written without syncs (src/infra/read-store/unsynced-writes.ts). A process
// that dies loses nothing of it; a file that was open when the system went down (another boot id than
// the one that opened it) is deleted at the next open and built again from the log; a file closed
// cleanly is kept whatever the boot.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { openSqliteReadStore } from '../../src/infra/read-store/sqlite-read-store.js';

const writerChild = fileURLToPath(new URL('./read-store-writer-child.js', import.meta.url));

function runWriter(path: string, bootId: string, end: 'close' | 'kill'): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writerChild, JSON.stringify({ path, bootId, documents: 20, end })], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code, signal) => {
      if ((end === 'close' && code === 0) || (end === 'kill' && signal === 'SIGKILL')) resolve();
      else reject(new Error(`writer child ended with ${code ?? signal}: ${stderr}`));
    });
  });
}

async function storiesAfterOpening(path: string, bootId: string): Promise<{ opened: string; stories: number }> {
  const store = openSqliteReadStore({ path, bootId });
  try {
    return { opened: store.opened, stories: (await store.collection('stories').all()).length };
  } finally {
    await store.close();
  }
}

describe('SQLite read store written without syncs: after a crash or a restart of the system', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-restart-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps everything a killed process committed, when opened in the same boot', async () => {
    const path = join(dir, 'readmodels.sqlite');
    await runWriter(path, 'boot-a', 'kill');
    expect(await storiesAfterOpening(path, 'boot-a')).to.deep.equal({ opened: 'opened', stories: 20 });
    // Its mark was removed with the dead process's: a later boot finds the file closed cleanly.
    expect(await storiesAfterOpening(path, 'boot-b')).to.deep.equal({ opened: 'opened', stories: 20 });
  });

  it('builds the file again when it was open while the system went down', async () => {
    const path = join(dir, 'readmodels.sqlite');
    await runWriter(path, 'boot-a', 'kill');
    expect(await storiesAfterOpening(path, 'boot-b')).to.deep.equal({ opened: 'created', stories: 0 });
  });

  it('keeps a file closed cleanly across a restart of the system', async () => {
    const path = join(dir, 'readmodels.sqlite');
    await runWriter(path, 'boot-a', 'close');
    expect(await storiesAfterOpening(path, 'boot-b')).to.deep.equal({ opened: 'opened', stories: 20 });
  });

  it('builds the file again when it cannot be read at all', async () => {
    const path = join(dir, 'readmodels.sqlite');
    await runWriter(path, 'boot-a', 'close');
    writeFileSync(path, 'not a database');
    expect(await storiesAfterOpening(path, 'boot-a')).to.deep.equal({ opened: 'created', stories: 0 });
  });
});
