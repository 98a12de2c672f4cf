// Operations over HTTP on the real composition: /health without credentials, the index page for a
// browser and for a program, one JSON access-log line per request without the token; and the command
// line's --help (overall and per command) and --version as child processes.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createLog } from '../../src/infra/log.js';
import { cliCommands } from '../../src/infra/cli/commands.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const bin = fileURLToPath(new URL('../../../bin/storyline.js', import.meta.url));
const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
const run = promisify(execFile);

describe('API: operations', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let project: number;
  const logLines: Record<string, unknown>[] = [];
  const requestLines = () => logLines.filter((line) => line['message'] === 'request');

  before(async () => {
    app = await storylineApp({ log: createLog('info', (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>)) });
    owner = await app.person('Olivia Owner');
    project = (await app.api('POST', '/projects', { as: owner, body: { name: 'Ops', new_account_name: 'Ops Inc' } })).json.id;
  });
  after(() => app.close());

  it('answers /health without credentials with the log head and every projection checkpoint', async () => {
    const res = await app.server.request('GET', '/health');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    const head = await app.storyline.eventStore.headPosition();
    expect(res.json).to.deep.include({ status: 'ok', version: packageJson.version, log: { head_position: head } });
    const names = res.json.projections.map((p: { name: string }) => p.name);
    expect(names).to.include('resources');
    for (const projection of res.json.projections) expect(projection).to.include({ position: head, behind: 0 });
  });

  it('answers / with JSON for a program and HTML for a browser, both pointing at the API prefix and the docs', async () => {
    const asJson = await app.server.request('GET', '/');
    expect(asJson.status).to.equal(200);
    expect(asJson.json).to.include({ name: 'Storyline', api: '/services/v5', health: '/health' });
    expect(asJson.json.docs).to.have.property('readme');
    expect(asJson.json.reference).to.deep.equal({ page: '/docs', openapi: '/services/v5/openapi.json' });
    const asHtml = await app.server.request('GET', '/', { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(asHtml.status).to.equal(200);
    expect(asHtml.headers['content-type']).to.match(/^text\/html/);
    expect(asHtml.text).to.contain('href="/services/v5"').and.to.contain('href="/health"').and.to.contain('README.md');
    expect(asHtml.text).to.contain('href="/docs"').and.to.contain('href="/services/v5/openapi.json"');
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

describe('CLI: --help and --version', () => {
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

  it("prints package.json's version", async () => {
    expect((await run(process.execPath, [bin, '--version'])).stdout.trim()).to.equal(packageJson.version);
  });
});
