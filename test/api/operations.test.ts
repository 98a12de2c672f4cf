// Operations over HTTP on the real composition: /health without credentials (a failing reaction turns it
// `degraded` with the reason, as the API reference states it, and `ok` again once the reaction recovers
// by itself), the JSON index for a program, one JSON access-log line per request without the token; and
// the command line's --help (overall and per command) and --version as child processes.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { createLog } from '../../src/infra/log.js';
import { cliCommands } from '../../src/infra/cli/commands.js';
import type { Reaction } from '../../src/reactions/reaction.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const bin = fileURLToPath(new URL('../../../bin/storyline.js', import.meta.url));
const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
const run = promisify(execFile);
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

describe('API: operations', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let project: number;
  const logLines: Record<string, unknown>[] = [];
  const requestLines = () => logLines.filter((line) => line['message'] === 'request');
  /** A reaction whose handle throws while `failing` is set (as a full disk would make it). */
  const flaky = { failing: false, handled: 0 };
  const flakyReaction: Reaction = {
    name: 'flaky',
    async handle(events) {
      if (flaky.failing) throw new Error('database or disk is full');
      flaky.handled += events.length;
    },
  };

  before(async () => {
    app = await storylineApp({
      log: createLog('info', (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>)),
      reactions: [flakyReaction],
    });
    owner = await app.person('Olivia Owner');
    project = (await app.api('POST', '/projects', { as: owner, body: { name: 'Ops', new_account_name: 'Ops Inc' } })).json.id;
  });
  after(() => app.close());

  it('answers /health without credentials with the log head and every projection checkpoint', async () => {
    const res = await app.server.request('GET', '/health');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    const head = await app.storyline.eventStore.headPosition();
    await app.storyline.reactions.waitFor(head);
    expect(res.json).to.deep.include({ status: 'ok', version: packageJson.version, log: { head_position: head, integrity_check: { state: 'not_run' } }, storage_faults: [] });
    const names = res.json.projections.map((p: { name: string }) => p.name);
    expect(names).to.include('resources');
    for (const projection of res.json.projections) expect(projection).to.include({ position: head, behind: 0 });
    expect(res.json.reactions.map((r: { name: string }) => r.name)).to.deep.equal(['flaky', 'notifications', 'project-snapshots', 'thumbnails', 'webhooks']);
    for (const reaction of res.json.reactions) expect(reaction).to.include({ failing: null });
  });

  it("shows a failing reaction in /health (degraded, its step, error and since), then ok once it resumed by itself", async () => {
    flaky.failing = true;
    await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'not handled yet' } });
    const head = await app.storyline.eventStore.headPosition();
    let health = (await app.server.request('GET', '/health')).json;
    for (let polls = 0; polls < 200 && health.status !== 'degraded'; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      health = (await app.server.request('GET', '/health')).json;
    }
    expect(health.status).to.equal('degraded');
    const reaction = health.reactions.find((r: { name: string }) => r.name === 'flaky');
    expect(reaction.position).to.be.below(head);
    expect(reaction.behind).to.equal(head - reaction.position);
    expect(reaction.failing).to.include({ step: 'handle', error: 'database or disk is full' });
    expect(Date.parse(reaction.failing.since)).to.be.a('number').and.not.NaN;
    expect(health.reasons).to.deep.equal([`reaction flaky fails to handle since ${reaction.failing.since} (${reaction.failing.attempts} attempts): database or disk is full`]);
    // The API reference states this answer too, not only a healthy one.
    const reference = (await app.api('GET', '/openapi.json')).json;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const stated = ajv.compile(reference.paths['/health'].get.responses['200'].content['application/json'].schema);
    expect(stated(health), ajv.errorsText(stated.errors)).to.equal(true);

    flaky.failing = false;
    await app.storyline.reactions.waitFor(head, 'flaky');
    health = (await app.server.request('GET', '/health')).json;
    expect(health.status).to.equal('ok');
    expect(health).to.not.have.property('reasons');
    expect(health.reactions.find((r: { name: string }) => r.name === 'flaky')).to.deep.equal({ name: 'flaky', position: head, behind: 0, failing: null });
    expect(flaky.handled).to.equal(head);
  });

  it('answers / with a JSON index for a program (a browser gets the board: board-pages.test.ts)', async () => {
    for (const accept of [undefined, 'application/json', 'application/json, text/html']) {
      const asJson = await app.server.request('GET', '/', accept ? { headers: { Accept: accept } } : {});
      expect(asJson.status).to.equal(200);
      expect(asJson.headers['content-type']).to.match(/^application\/json/);
      expect(asJson.json).to.include({ name: 'Storyline', api: '/services/v5', health: '/health' });
      expect(asJson.json.docs).to.have.property('readme');
      expect(asJson.json.reference).to.deep.equal({ page: '/docs', openapi: '/services/v5/openapi.json' });
    }
  });

  it('logs one JSON line per request: method, path without the token, status, duration, project version', async () => {
    logLines.splice(0);
    await app.server.request('GET', `/services/v5/projects/${project}?token=${owner.token}&fields=name`);
    await app.server.request('GET', `/services/v5/projects/999999?token=${owner.token}`);
    await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'logged' } });
    const version = (await app.api('GET', `/projects/${project}`, { as: owner })).json.version as number;
    const lines = requestLines();
    expect(lines).to.have.length(4);
    expect(lines.map(({ method, path, status, project_version }) => ({ method, path, status, project_version }))).to.deep.equal([
      { method: 'GET', path: `/services/v5/projects/${project}?fields=name`, status: 200, project_version: version - 1 },
      { method: 'GET', path: '/services/v5/projects/999999', status: 404, project_version: null },
      { method: 'POST', path: `/services/v5/projects/${project}/stories`, status: 200, project_version: version },
      { method: 'GET', path: `/services/v5/projects/${project}`, status: 200, project_version: version },
    ]);
    for (const line of lines) expect(line['duration_ms']).to.be.a('number').and.at.least(0);
    expect(JSON.stringify(logLines)).not.to.contain(owner.token);
  });
});

describe('CLI: --help and --version', function () {
  // One node start per command (~1 s each on a busy machine): past mocha's default timeout with ~20 commands.
  this.timeout(120_000);
  it('prints the usage of every command, and of one command after its name', async () => {
    const all = await run(process.execPath, [bin, '--help']);
    for (const command of cliCommands) expect(all.stdout).to.contain(`storyline ${command.usage}`);
    for (const command of cliCommands) {
      const one = await run(process.execPath, [bin, ...command.words, '--help']);
      expect(one.stdout).to.contain(`storyline ${command.usage}`).and.to.contain(command.summary);
      expect(one.stdout.split('\n').filter((line) => line.startsWith('  storyline '))).to.have.length(1);
    }
  });

  it('prints the usage of a group\'s subcommands after its word (`person --help`), exit 0', async () => {
    const person = cliCommands.filter((command) => command.words[0] === 'person');
    expect(person.map((command) => command.words.join(' '))).to.deep.equal(['person add', 'person reset-token']);
    const group = await run(process.execPath, [bin, 'person', '--help']);
    for (const command of person) expect(group.stdout).to.contain(`storyline ${command.usage}`).and.to.contain(command.summary);
    expect(group.stdout.split('\n').filter((line) => line.startsWith('  storyline '))).to.have.length(person.length);
    const bare = await run(process.execPath, [bin, 'person']).then(() => null, (error: { code: number; stderr: string }) => error);
    expect(bare?.code).to.equal(2);
    expect(bare?.stderr).to.contain('storyline person add').and.not.to.contain('storyline serve');
  });

  it('refuses an option a command does not take, naming the nearest one it takes, exit 2 (every command)', async () => {
    for (const command of cliCommands) {
      const option = /--([a-z-]+)/.exec(command.usage)?.[1] ?? 'help';
      const nearMiss = `--${option.slice(0, -1)}`;
      const refused = await run(process.execPath, [bin, ...command.words, nearMiss, 'x'], { env: { ...process.env, STORYLINE_DATA: ':memory:' } }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(refused?.code, command.words.join(' ')).to.equal(2);
      expect(refused?.stderr, command.words.join(' ')).to.contain(`unknown option '${nearMiss}' (did you mean --${option}?)`).and.to.contain(`usage: storyline ${command.usage}`);
    }
  });

  it('answers an option no command takes without a guess, exit 2', async () => {
    const refused = await run(process.execPath, [bin, 'export', '--verbose'], { env: { ...process.env, STORYLINE_DATA: ':memory:' } }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).to.equal(2);
    expect(refused?.stderr).to.contain("unknown option '--verbose'\n").and.not.to.contain('did you mean');
  });

  it("prints package.json's version", async () => {
    expect((await run(process.execPath, [bin, '--version'])).stdout.trim()).to.equal(packageJson.version);
  });
});
