// Start-up as an unlucky operator meets it: every refusal is a non-zero exit within seconds with one
// line saying what is wrong, never a hang and never a demo seeded over lost data; one server per data
// directory; the CLI finds the data directory as the server does and refuses one without data; the
// data directory and the credentials are private to their owner; a stop signal during a long catch-up
// of the read models ends the start at once.
import { createServer, type Server } from 'node:net';
import { chmodSync, chownSync, mkdtempSync, rmSync, statSync, writeFileSync, readdirSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { mountSmallVolume } from '../crash/small-volume.js';
import { spawn } from 'node:child_process';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { storyWritesOf } from '../contract/event-store.fixtures.js';
import { bin, reachableCopy, runToExit, serve, stop, stopAll, type RunAs } from './storyline-process.js';

/**
 * As root, file modes do not bind: the server then runs as `nobody` on files it owns, from a copy of
 * the package under `installDir` (the checkout may sit where nobody cannot enter); the reason instead
 * when `installDir` itself is out of nobody's reach.
 */
const NOBODY = 65534;
function unprivileged(dir: string, installDir: string): RunAs | { reason: string } {
  if (process.getuid?.() !== 0) return {};
  const installed = reachableCopy(installDir);
  if ('reason' in installed) return installed;
  chownSync(dir, NOBODY, NOBODY);
  for (const file of readdirSync(dir)) chownSync(`${dir}/${file}`, NOBODY, NOBODY);
  return { uid: NOBODY, gid: NOBODY, bin: installed.bin };
}

function occupiedPort(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const oneLine = (stderr: string) => stderr.trim().split('\n');

describe('storyline start-up refusals', function () {
  this.timeout(30_000);
  let root: string;
  let dataDir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'storyline-startup-'));
    dataDir = join(root, 'data');
  });
  afterEach(async () => {
    await stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  it('exits 1 with one line when the port is taken, and seeds nothing before it could listen', async () => {
    const taken = await occupiedPort();
    try {
      const port = String((taken.address() as { port: number }).port);
      const refused = await runToExit(['serve'], { STORYLINE_DATA: dataDir, PORT: port });
      expect(refused.code).to.equal(1);
      expect(oneLine(refused.stderr).at(-1)).to.match(new RegExp(`^storyline: port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(refused.stdout).not.to.contain('demo account');
    } finally {
      taken.close();
    }
    const later = await serve({ STORYLINE_DATA: dataDir });
    try {
      expect(later.stdout.join('\n')).to.contain('created a demo account');
    } finally {
      await stop(later);
    }
  });

  it('lets one server per data directory run: a second serve names the holder; a killed holder is taken over', async () => {
    const first = await serve({ STORYLINE_DATA: dataDir });
    const second = await runToExit(['serve'], { STORYLINE_DATA: dataDir });
    expect(second.code).to.equal(1);
    expect(second.stderr).to.contain(`pid ${first.child.pid}`).and.contain(dataDir);
    const added = await runToExit(['person', 'add', '--email', 'beside@example.com', '--name', 'Beside', '--password', 'long-enough-pw'], { STORYLINE_DATA: dataDir });
    expect(added.code, added.stderr).to.equal(0);

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const third = await serve({ STORYLINE_DATA: dataDir });
    try {
      expect(third.logs.find((entry) => entry['message'] === 'took over a stale data-directory lock')).to.include({ stalePid: first.child.pid });
    } finally {
      expect(await stop(third)).to.equal(0);
    }
    expect(readdirSync(dataDir)).not.to.include('storyline.lock');
  });

  it('refuses an emptied events.sqlite beside existing credentials, and a missing credentials.sqlite', async () => {
    await stop(await serve({ STORYLINE_DATA: dataDir }));
    const events = join(dataDir, 'events.sqlite');
    expect(statSync(join(dataDir, 'credentials.sqlite')).size).to.be.greaterThan(0);
    unlinkSync(join(dataDir, 'credentials.sqlite'));
    const noCredentials = await runToExit(['serve'], { STORYLINE_DATA: dataDir });
    expect(noCredentials.code).to.equal(1);
    expect(oneLine(noCredentials.stderr)).to.have.length(1);
    expect(noCredentials.stderr).to.contain('credentials.sqlite is missing or empty').and.contain('Restore credentials.sqlite');
    expect(noCredentials.stdout).not.to.contain('demo account');

    rmSync(dataDir, { recursive: true });
    await stop(await serve({ STORYLINE_DATA: dataDir }));
    for (const file of readdirSync(dataDir)) if (file.startsWith('events.sqlite-')) unlinkSync(join(dataDir, file));
    writeFileSync(events, '');
    const emptied = await runToExit(['serve'], { STORYLINE_DATA: dataDir });
    expect(emptied.code).to.equal(1);
    expect(oneLine(emptied.stderr)).to.have.length(1);
    expect(emptied.stderr).to.contain('events.sqlite is missing or empty').and.contain('Restore events.sqlite');
    expect(statSync(events).size).to.equal(0);
  });

  it('exits within seconds on a malformed database instead of staying alive', async () => {
    await stop(await serve({ STORYLINE_DATA: dataDir }));
    for (const file of readdirSync(dataDir)) if (file.startsWith('events.sqlite')) unlinkSync(join(dataDir, file));
    writeFileSync(join(dataDir, 'events.sqlite'), 'SQLite format 2? no: these bytes are not a database at all, only text.'.repeat(20));
    const malformed = await runToExit(['serve'], { STORYLINE_DATA: dataDir }, 5_000);
    expect(malformed.code).to.equal(1);
    expect(oneLine(malformed.stderr)).to.have.length(1);
    expect(malformed.stderr).to.contain('is not a readable Storyline events.sqlite');
  });

  it('serves reads from a read-only events.sqlite, warns at start, and answers writes 503 component_unavailable', async function () {
    const first = await serve({ STORYLINE_DATA: dataDir, STORYLINE_DEMO_PASSWORD: 'long-enough-pw' });
    const token = first.stdout.find((line) => line.includes('API token:'))!.split(': ')[1]!;
    await stop(first);
    chmodSync(root, 0o755);
    chmodSync(join(dataDir, 'events.sqlite'), 0o444);
    const runAs = unprivileged(dataDir, join(root, 'package'));
    if ('reason' in runAs) {
      this.test!.title += ` (skipped: the server cannot run as nobody here, ${runAs.reason})`;
      this.skip();
    }
    const readOnly = await serve({ STORYLINE_DATA: dataDir }, runAs as RunAs);
    try {
      expect(readOnly.logs.find((entry) => entry['level'] === 'warn')?.['message']).to.contain('events.sqlite is read-only');
      const headers = { 'X-TrackerToken': token, 'Content-Type': 'application/json' };
      const projects = await fetch(`http://127.0.0.1:${readOnly.port}/services/v5/projects`, { headers });
      expect(projects.status).to.equal(200);
      const [project] = (await projects.json()) as { id: number }[];
      const write = await fetch(`http://127.0.0.1:${readOnly.port}/services/v5/projects/${project!.id}/stories`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'cannot be stored' }),
      });
      expect(write.status).to.equal(503);
      const refusal = (await write.json()) as { general_problem: string };
      expect(refusal).to.include({ kind: 'error', code: 'component_unavailable' });
      expect(refusal.general_problem).to.contain('data files are read-only');
    } finally {
      expect(await stop(readOnly)).to.equal(0);
    }
  });

  it('exits 1 with one line on a data directory whose volume is read-only', async function () {
    const mounted = mountSmallVolume(16 * 1024 * 1024);
    if ('reason' in mounted) this.skip();
    const { volume } = mounted as Exclude<typeof mounted, { reason: string }>;
    try {
      const onVolume = join(volume.path, 'data');
      await stop(await serve({ STORYLINE_DATA: onVolume }));
      volume.setReadOnly(true);
      const refused = await runToExit(['serve'], { STORYLINE_DATA: onVolume }, 5_000);
      expect(refused.code).to.equal(1);
      expect(oneLine(refused.stderr)).to.have.length(1);
      expect(refused.stderr).to.contain(`cannot use ${onVolume} as the data directory`).and.contain('read-only file system');
    } finally {
      volume.unmount();
    }
  });

  it('creates the data directory 0700 and the credentials (with their -wal and -shm) 0600', async () => {
    const served = await serve({ STORYLINE_DATA: dataDir });
    try {
      expect(statSync(dataDir).mode & 0o777).to.equal(0o700);
      const credentialFiles = readdirSync(dataDir).filter((file) => file.startsWith('credentials.sqlite'));
      expect(credentialFiles).to.include.members(['credentials.sqlite', 'credentials.sqlite-wal']);
      for (const file of credentialFiles) expect(statSync(join(dataDir, file)).mode & 0o777, file).to.equal(0o600);
    } finally {
      await stop(served);
    }
  });

  it('CLI: --data DIR is the data directory; a command on a directory without data refuses, naming it', async () => {
    await stop(await serve({ STORYLINE_DATA: join(root, 'elsewhere') }));
    const empty = join(root, 'empty');
    const refused = await runToExit(['person', 'add', '--email', 'x@example.com', '--name', 'X', '--password', 'long-enough-pw'], { STORYLINE_DATA: empty });
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain(`${empty} holds no Storyline data`);
    expect(() => statSync(empty)).to.throw(); // nothing created there

    const viaOption = await runToExit(['--data', join(root, 'elsewhere'), 'person', 'add', '--email', 'x@example.com', '--name', 'X', '--password', 'long-enough-pw'], {
      STORYLINE_DATA: empty,
    });
    expect(viaOption.code, viaOption.stderr).to.equal(0);
    expect(JSON.parse(viaOption.stdout)).to.have.property('api_token');
  });

  it('ends at SIGTERM while the read models catch up with a long log, and the next start goes on from there', async function () {
    this.timeout(120_000);
    await stop(await serve({ STORYLINE_DATA: dataDir }));
    const store = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite') });
    for (let i = 0; i < 60; i++) await store.append(`project-${900 + (i % 4)}`, 'any', storyWritesOf(`catch-up-${i}`, 500));
    const head = await store.headPosition();
    await store.close();
    for (const file of readdirSync(dataDir)) if (file.startsWith('readmodels.sqlite')) unlinkSync(join(dataDir, file));

    const child = spawn(process.execPath, [bin, 'serve'], { env: { ...process.env, PORT: '0', HOST: '127.0.0.1', STORYLINE_DATA: dataDir }, stdio: ['ignore', 'ignore', 'pipe'] });
    const messages: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter((text) => text.startsWith('{'))) {
        const message = String((JSON.parse(line) as Record<string, unknown>)['message']);
        messages.push(message);
        // Logged when the read models file was found missing, just before the catch-up of the whole log.
        if (message === 'read models file created; building it from the log') child.kill('SIGTERM');
      }
    });
    expect(await exited).to.equal(0);
    expect(messages, messages.join(' | ')).to.include("stopped while catching up the read models; the next start goes on from there");
    expect(messages).not.to.include('listening');

    const again = await serve({ STORYLINE_DATA: dataDir });
    const caughtUp = again.logs.find((entry) => entry['message'] === 'projections caught up');
    expect(caughtUp?.['position']).to.equal(head);
    expect(await stop(again)).to.equal(0);
  });
});
