// The operator's view: `storyline serve` on an empty data directory creates the demo account, `storyline
// person add` run beside the running server adds a person the server recognises within a second,
// SIGTERM stops the server cleanly, and a restart resumes the read models on disk from their checkpoint.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { bin, getMe, serve, stop, stopAll } from './storyline-process.js';

const run = promisify(execFile);

async function eventually<T>(check: () => Promise<T | null>, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`not true within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('storyline command line', function () {
  this.timeout(30_000);
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'storyline-cli-'));
  });
  after(async () => {
    await stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves, adds a person from a second process, stops on SIGTERM and restarts from the read models on disk', async () => {
    const env = { STORYLINE_DATA: dataDir, STORYLINE_DEMO_EMAIL: 'owner@example.com', STORYLINE_DEMO_PASSWORD: 'demo-password' };
    const first = await serve(env);
    const tokenLine = first.stdout.find((line) => line.includes('API token:'));
    expect(tokenLine, first.stdout.join('\n')).to.match(/API token: [0-9a-f]{32}$/);
    const demoToken = tokenLine!.split(': ')[1]!;
    expect((await getMe(first.port, demoToken)).body).to.include({ email: 'owner@example.com' });

    const { stdout } = await run(process.execPath, [bin, 'person', 'add', '--email', 'new@example.com', '--name', 'New Person', '--password', 'a-long-password'], {
      env: { ...process.env, STORYLINE_DATA: dataDir },
    });
    const added = JSON.parse(stdout.trim()) as { id: number; api_token: string };
    expect(added.api_token).to.match(/^[0-9a-f]{32}$/);
    const me = await eventually(async () => {
      const answer = await getMe(first.port, added.api_token);
      return answer.status === 200 ? answer.body : null;
    }, 1_000);
    expect(me).to.include({ id: added.id, name: 'New Person', email: 'new@example.com' });

    expect(await stop(first)).to.equal(0);
    expect(first.logs.map((entry) => entry['message'])).to.include('stopped');
    expect(JSON.stringify(first.logs)).not.to.contain(added.api_token).and.not.to.contain(demoToken);

    const second = await serve(env);
    try {
      const caughtUp = second.logs.find((entry) => entry['message'] === 'projections caught up')!;
      expect(caughtUp['eventsRead']).to.equal(0); // every event was applied and checkpointed before the stop
      expect(caughtUp['ms']).to.be.a('number');
      expect(second.stdout.some((line) => line.includes('API token'))).to.equal(false);
      expect((await getMe(second.port, added.api_token)).body).to.include({ id: added.id });
    } finally {
      expect(await stop(second)).to.equal(0);
    }
  });

  it('resets a token beside the running server: the old one is refused at once, the new one works', async () => {
    const served = await serve({ STORYLINE_DATA: dataDir });
    try {
      const env = { ...process.env, STORYLINE_DATA: dataDir };
      const { stdout } = await run(process.execPath, [bin, 'person', 'add', '--email', 'reset@example.com', '--name', 'Reset Me', '--password', 'a-long-password'], { env });
      const added = JSON.parse(stdout) as { id: number; api_token: string };
      const seen = await eventually(async () => ((await getMe(served.port, added.api_token)).status === 200 ? true : null), 1_000);
      expect(seen).to.equal(true); // the server now remembers the token
      const reset = await run(process.execPath, [bin, 'person', 'reset-token', '--email', 'reset@example.com'], { env });
      const renewed = JSON.parse(reset.stdout) as { id: number; api_token: string };
      expect(renewed.id).to.equal(added.id);
      expect(renewed.api_token).to.match(/^[0-9a-f]{32}$/).and.not.equal(added.api_token);
      expect((await getMe(served.port, added.api_token)).status).to.be.oneOf([401, 403]);
      expect((await getMe(served.port, renewed.api_token)).body).to.include({ id: added.id });
      const unknown = await run(process.execPath, [bin, 'person', 'reset-token', '--email', 'nobody@example.com'], { env }).catch((error: { code: number; stderr: string }) => error);
      expect(unknown).to.include({ code: 1 });
      expect((unknown as { stderr: string }).stderr).to.contain('nobody with the email nobody@example.com');
    } finally {
      expect(await stop(served)).to.equal(0);
    }
  });

  it('rebuilds every projection offline and reports what it read', async () => {
    const { stdout } = await run(process.execPath, [bin, 'rebuild-projections'], { env: { ...process.env, STORYLINE_DATA: dataDir } });
    const reports = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(reports.map((report) => report['projection'])).to.include('resources');
    for (const report of reports) expect(report['eventsRead']).to.be.greaterThan(5);
  });

  it('lists the projections and rebuilds only the ones named, with progress as JSON lines off a terminal', async () => {
    const env = { ...process.env, STORYLINE_DATA: dataDir };
    const listed = await run(process.execPath, [bin, 'rebuild-projections', '--list'], { env });
    const names = listed.stdout.trim().split('\n');
    expect(names).to.include.members(['resources', 'performer_activity', 'subject_activity']);
    const only = await run(process.execPath, [bin, 'rebuild-projections', '--only', 'subject_activity', '--only', 'performer_activity'], { env });
    const reports = only.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(reports.map((report) => report['projection'])).to.deep.equal(['subject_activity', 'performer_activity']);
    const progress = only.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['message'] === 'rebuild progress');
    expect(progress.at(-1)).to.include({ eventsRead: reports[0]!['eventsRead'], total: reports[0]!['position'] });
    const wrong = await run(process.execPath, [bin, 'rebuild-projections', '--only', 'nonsense'], { env }).catch((error: { code: number; stderr: string }) => error);
    expect(wrong).to.include({ code: 2 });
    expect((wrong as { stderr: string }).stderr).to.contain('unknown projection nonsense');
  });

  it('rejects unknown commands and incomplete person add with exit code 2', async () => {
    const unknown = await run(process.execPath, [bin, 'frobnicate']).catch((error: { code: number; stderr: string }) => error);
    expect(unknown).to.include({ code: 2 });
    const incomplete = await run(process.execPath, [bin, 'person', 'add', '--email', 'x@example.com'], {
      env: { ...process.env, STORYLINE_DATA: dataDir },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(incomplete).to.include({ code: 2 });
  });
});
