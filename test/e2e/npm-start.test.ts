// The README's own start command: `npm start` then SIGTERM to npm stops the server (the start script
// execs the server, so npm's forwarded signal reaches it). The build runs in `prestart`, skipped here
// with --ignore-scripts so the test does not rewrite the dist/ it runs from.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const repository = fileURLToPath(new URL('../../../', import.meta.url));

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', function () {
  this.timeout(30_000);
  let dataDir: string;
  before(() => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'storyline-npm-start-')), 'data');
  });
  after(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

  it('stops the server when npm gets SIGTERM', async () => {
    const npm = spawn('npm', ['start', '--ignore-scripts', '--silent'], {
      cwd: repository,
      env: { ...process.env, STORYLINE_DATA: dataDir, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const serverPid = await new Promise<number>((resolve, reject) => {
      let stderr = '';
      npm.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const listening = stderr.split('\n').find((line) => line.includes('"message":"listening"'));
        if (listening) resolve(Number((JSON.parse(listening) as { pid: number }).pid));
      });
      npm.once('exit', (code) => reject(new Error(`npm start ended early (${code}): ${stderr}`)));
    });
    expect(serverPid).to.be.greaterThan(0);
    npm.removeAllListeners('exit');
    const npmExited = new Promise((resolve) => npm.once('exit', resolve));
    npm.kill('SIGTERM');
    await npmExited;
    const deadline = Date.now() + 10_000;
    while (isRunning(serverPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const survived = isRunning(serverPid);
    if (survived) process.kill(serverPid, 'SIGKILL');
    expect(survived, 'the server outlived npm').to.equal(false);
  });
});
