// The operator's audit tools as child processes on files: `storyline verify` summarises the chains of a
// log built over HTTP and names an event edited with sqlite3; `storyline export` then `storyline import`
// into an empty directory recreate a state whose every GET answers as before; import refuses a non-empty
// directory (untouched), a file whose chain breaks (naming the line, leaving the directory empty) and one
// without its trailer or that does not match it (cut short, lines dropped or moved, a re-hashed edit),
// naming what differs; `verify --expect` compares a log's heads with a summary kept elsewhere.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { SqliteCredentialStore } from '../../src/infra/credentials/sqlite-credential-store.js';
import { GENESIS_HASH, chainHash } from '../../src/infra/event-codec.js';
import { LogSummaryBuilder } from '../../src/infra/event-store/log-summary.js';
import { exportLine, trailerLine } from '../../src/infra/export/ndjson-log.js';
import { storylineApp, type PersonHandle, type StorylineApp } from '../api/support/storyline-app.js';
import { seededRandom } from '../support/seeded-random.js';

const bin = fileURLToPath(new URL('../../../bin/storyline.js', import.meta.url));
const START = Date.UTC(2024, 0, 10, 12);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function storyline(dataDir: string, ...args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, STORYLINE_DATA: dataDir } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

interface Line {
  stream: string;
  version: number;
  type: string;
  data: unknown;
  meta: unknown;
  hash: string;
}

/** An export's event lines (without the trailer) and its trailer. */
function exportParts(file: string): { events: string[]; trailer: string } {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  return { events: lines.slice(0, -1), trailer: lines.at(-1)! };
}

/** Event lines followed by the trailer a true export of them would end with. */
function withOwnTrailer(events: readonly string[]): string {
  const summary = new LogSummaryBuilder();
  for (const line of events) {
    // cut out, not parsed: some tests' lines carry data that is no JSON
    const [, stream, version] = /^\{"stream":"([^"]+)","version":(\d+),/.exec(line)!;
    summary.add(stream!, Number(version), /"hash":"([0-9a-f]+)"\}$/.exec(line)![1]!);
  }
  return `${[...events, trailerLine(summary.summary())].join('\n')}\n`;
}

/** The event lines with `edit` applied to the event at `index` and every later event of its stream hashed again. */
function rehashedEdit(events: readonly string[], index: number, edit: (line: Line) => Line): string[] {
  const edited = [...events];
  const target = JSON.parse(events[index]!) as Line;
  let previous = '';
  for (let at = 0; at < events.length; at++) {
    const line = JSON.parse(events[at]!) as Line;
    if (line.stream !== target.stream) continue;
    if (at < index) {
      previous = line.hash;
      continue;
    }
    const changed = at === index ? edit(line) : line;
    const encoded = { type: changed.type, data: JSON.stringify(changed.data), meta: JSON.stringify(changed.meta) };
    previous = chainHash(previous, changed.stream, changed.version, encoded);
    edited[at] = exportLine({ position: at + 1, stream: changed.stream, version: changed.version, ...encoded, hash: previous });
  }
  return edited;
}

/** A scripted, seeded history over HTTP: an account and project, members, labels, stories, tasks, edits. */
async function scriptedHistory(app: StorylineApp): Promise<{ owner: PersonHandle; projects: number[] }> {
  const random = seededRandom(16);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const owner = await app.person('Olivia Owner');
  const bob = await app.person('Bob Member');
  const projects: number[] = [];
  for (const name of ['Audit One', 'Audit Two']) {
    const body = projects.length === 0 ? { name, new_account_name: 'Audit Inc' } : { name, account_id: (await app.api('GET', `/projects/${projects[0]}`, { as: owner })).json.account_id };
    projects.push((await app.api('POST', '/projects', { as: owner, body })).json.id);
    await app.api('POST', `/projects/${projects.at(-1)}/memberships`, { as: owner, body: { person_id: bob.id, role: 'member' } });
  }
  const stories: [number, number][] = [];
  for (let step = 0; step < 40; step++) {
    app.clock.now += 1000 * (1 + Math.floor(random() * 600));
    const project = pick(projects);
    const own = stories.filter(([p]) => p === project);
    const as = pick([owner, bob]);
    const choice = own.length === 0 ? 0 : Math.floor(random() * 7);
    if (choice <= 2) {
      const body = { name: `Story ${step}`, story_type: pick(['feature', 'bug', 'chore']), labels: [pick(['api', 'ui', 'docs'])] };
      const res = await app.api('POST', `/projects/${project}/stories`, { as, body });
      expect(res.status, res.text).to.equal(200);
      stories.push([project, res.json.id]);
    } else if (choice === 3) {
      const [, story] = pick(own);
      await app.api('POST', `/projects/${project}/stories/${story}/tasks`, { as, body: { description: `task ${step}`, complete: random() < 0.5 } });
    } else if (choice === 4) {
      const [, story] = pick(own);
      await app.api('PUT', `/projects/${project}/stories/${story}`, { as, body: { description: `edited at ${step}`, owner_ids: [bob.id] } });
    } else if (choice === 5) {
      await app.api('POST', `/projects/${project}/labels`, { as, body: { name: `label ${step}` } });
    } else {
      const index = stories.findIndex(([p]) => p === project);
      const [[, story]] = stories.splice(index, 1);
      await app.api('DELETE', `/projects/${project}/stories/${story}`, { as });
    }
  }
  return { owner, projects };
}

/** Every GET a client of these projects makes, answered as text with status and version header. */
async function everyGet(app: StorylineApp, as: PersonHandle, projects: number[]): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  const get = async (path: string) => {
    const res = await app.api('GET', path, { as });
    answers[path] = { status: res.status, version: res.headers['x-tracker-project-version'], body: res.json };
    return res.json;
  };
  const me = await get('/me');
  delete (me as Record<string, unknown>)['api_token'];
  // Views (membership `last_viewed_at`) are kept beside the log, like credentials, and not exported.
  for (const summary of (me as { projects: Record<string, unknown>[] }).projects) delete summary['last_viewed_at'];
  answers['/me'] = { ...(answers['/me'] as object), body: me };
  await get('/accounts');
  await get('/my/people');
  await get('/projects');
  for (const project of projects) {
    await get(`/projects/${project}`);
    await get(`/projects/${project}/memberships`);
    await get(`/projects/${project}/labels`);
    await get(`/projects/${project}/activity?limit=500`);
    for (const story of (await get(`/projects/${project}/stories?limit=500`)) as { id: number }[]) {
      await get(`/projects/${project}/stories/${story.id}`);
      await get(`/projects/${project}/stories/${story.id}/tasks`);
      await get(`/projects/${project}/stories/${story.id}/activity`);
    }
  }
  return answers;
}

describe('CLI: verify, export and import', function () {
  this.timeout(60_000);
  let root: string;
  let source: string;
  let exportFile: string;
  let answersBefore: Record<string, unknown>;
  let owner: PersonHandle;
  let projects: number[];
  let clockAtEnd: number;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'storyline-audit-'));
    source = join(root, 'source');
    exportFile = join(root, 'export.ndjson');
    const app = await storylineApp({ start: START, dataDir: source });
    try {
      ({ owner, projects } = await scriptedHistory(app));
      clockAtEnd = app.clock.now;
      answersBefore = await everyGet(app, owner, projects);
      const statuses = Object.values(answersBefore).map((answer) => (answer as { status: number }).status);
      expect(statuses.length).to.be.greaterThan(30);
      expect(statuses.every((status) => status === 200)).to.equal(true);
    } finally {
      await app.close();
    }
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('verify prints each stream head hash and exits 0 on an untouched log', async () => {
    const ran = await storyline(source, 'verify');
    expect(ran.code, ran.stderr).to.equal(0);
    const summary = JSON.parse(ran.stdout) as { ok: boolean; events: number; streams: { stream: string; head_hash: string }[] };
    expect(summary.ok).to.equal(true);
    expect(summary.events).to.be.greaterThan(40);
    expect(summary.streams.map((s) => s.stream)).to.include.members(projects.map((p) => `project-${p}`));
    for (const stream of summary.streams) expect(stream.head_hash).to.match(/^[0-9a-f]{64}$/);
  });

  it('export then import into an empty directory answers every GET as before', async () => {
    const exported = await storyline(source, 'export', '--out', exportFile);
    expect(exported.code, exported.stderr).to.equal(0);
    const { events: lines, trailer } = exportParts(exportFile);
    expect(Object.keys(JSON.parse(lines[0]!))).to.deep.equal(['stream', 'version', 'type', 'data', 'meta', 'hash']);
    // the file ends with the summary verify prints of the same log, which export prints too
    const verified = JSON.parse((await storyline(source, 'verify')).stdout) as Record<string, unknown>;
    const summary = { events: lines.length, sequence_hash: verified['sequence_hash'], streams: verified['streams'] };
    expect(verified['events']).to.equal(lines.length);
    expect(JSON.parse(trailer)).to.deep.equal({ trailer: true, ...summary });
    expect(JSON.parse(exported.stdout)).to.include({ exported: exportFile }).and.deep.include(summary);

    const target = join(root, 'imported');
    const imported = await storyline(target, 'import', exportFile);
    expect(imported.code, imported.stderr).to.equal(0);
    // the heads it imported, as verify prints them
    expect(JSON.parse(imported.stdout)).to.include({ imported: exportFile }).and.deep.include(summary);
    // the credentials file is the new installation's own: it holds nobody's secrets
    const credentials = new SqliteCredentialStore({ path: join(target, 'credentials.sqlite') });
    expect(await credentials.get(owner.id)).to.equal(null);
    await credentials.close();

    const app = await storylineApp({ start: clockAtEnd, dataDir: target });
    try {
      // Credentials are not exported: the owner signs in again with a new token (what `person reset-token` gives).
      const token = await app.storyline.deps.secrets.rotateToken(owner.id);
      expect(await everyGet(app, { ...owner, token }, projects)).to.deep.equal(answersBefore);
    } finally {
      await app.close();
    }
    const reexported = join(root, 'again.ndjson');
    expect((await storyline(target, 'export', '--out', reexported)).code).to.equal(0);
    expect(readFileSync(reexported, 'utf8')).to.equal(readFileSync(exportFile, 'utf8'));
  });

  it('import takes a file another tool re-serialised (spaces, keys reordered) and stores the log as it was', async () => {
    const lines = readFileSync(exportFile, 'utf8').trimEnd().split('\n');
    const rewritten = lines.map((line, index) => {
      if (index === lines.length - 1) return JSON.stringify(JSON.parse(line), null, 1).replaceAll('\n', ' ');
      if (index % 3 === 1) return line.replace('"data":{', '"data":{ ').replace('"meta":{', '"meta":  {');
      if (index % 3 === 2) {
        const { hash, meta, data, type, version, stream } = JSON.parse(line) as Record<string, unknown>;
        return JSON.stringify({ hash, meta, data, type, version, stream }, null, 1).replaceAll('\n', ' ');
      }
      return line;
    });
    const file = join(root, 'rewritten.ndjson');
    writeFileSync(file, `${rewritten.join('\r\n')}\r\n`);
    const target = join(root, 'from-rewritten');
    const imported = await storyline(target, 'import', file);
    expect(imported.code, imported.stderr).to.equal(0);
    const again = join(root, 'from-rewritten.ndjson');
    expect((await storyline(target, 'export', '--out', again)).code).to.equal(0);
    expect(readFileSync(again, 'utf8')).to.equal(readFileSync(exportFile, 'utf8'));
  });

  it('a directory an import did not finish is refused by every command until it is emptied', async () => {
    const target = join(root, 'interrupted');
    expect((await storyline(target, 'import', exportFile)).code).to.equal(0);
    expect(readdirSync(target)).to.not.include('import-unfinished');
    // what a crash mid-import leaves: the mark written before the first event, never removed
    writeFileSync(join(target, 'import-unfinished'), '');
    for (const args of [['verify'], ['export', '--out', join(root, 'never.ndjson')], ['serve']]) {
      const ran = await storyline(target, ...args);
      expect(ran.code, args[0]).to.equal(1);
      expect(ran.stderr, args[0]).to.match(/import that did not finish/);
    }
    const again = await storyline(target, 'import', exportFile);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/not empty/);
  });

  it('import refuses a non-empty directory and leaves it untouched', async () => {
    const target = join(root, 'occupied');
    mkdirSync(target);
    writeFileSync(join(target, 'notes.txt'), 'keep me');
    const ran = await storyline(target, 'import', exportFile);
    expect(ran.code).to.equal(1);
    expect(ran.stderr).to.match(/not empty/);
    expect(readdirSync(target)).to.deep.equal(['notes.txt']);
  });

  it('import refuses a file whose chain breaks, naming the line, and leaves the directory as it was', async () => {
    const lines = readFileSync(exportFile, 'utf8').trimEnd().split('\n');
    lines[6] = lines[6]!.replace('"meta":{', '"meta":{"tampered":true,');
    const tampered = join(root, 'tampered.ndjson');
    writeFileSync(tampered, `${lines.join('\n')}\n`);
    const target = join(root, 'refused');
    mkdirSync(target);
    const ran = await storyline(target, 'import', tampered);
    expect(ran.code).to.equal(1);
    expect(ran.stderr).to.match(/line 7 \(.+ version \d+\): its hash does not match/);
    expect(readdirSync(target)).to.deep.equal([]);
    const missing = join(root, 'never-created');
    expect((await storyline(missing, 'import', tampered)).code).to.equal(1);
    expect(existsSync(missing)).to.equal(false);
  });

  it('import refuses a file giving two events the same id, naming the id and both events, and leaves no directory', async () => {
    const first = JSON.parse(readFileSync(exportFile, 'utf8').split('\n')[0]!) as { stream: string; type: string; data: object; meta: object };
    // the first event again, chained in a stream of its own: the same command_id, so the same event id
    const stream = `${first.stream}-twin`;
    const encoded = { type: first.type, data: JSON.stringify(first.data), meta: JSON.stringify(first.meta) };
    const twin = exportLine({ position: 2, stream, version: 1, ...encoded, hash: chainHash(GENESIS_HASH, stream, 1, encoded) });
    const file = join(root, 'twins.ndjson');
    writeFileSync(file, withOwnTrailer([readFileSync(exportFile, 'utf8').split('\n')[0]!, twin]));
    const target = join(root, 'twins');
    const ran = await storyline(target, 'import', file);
    expect(ran.code).to.equal(1);
    expect(ran.stderr).to.match(new RegExp(`two events have the same id \\([0-9a-f-]{36}\\): ${first.stream} version 1 and ${stream} version 1; nothing was imported`));
    expect(existsSync(target)).to.equal(false);
  });

  it('import refuses an event whose data is no JSON object though its hash verifies, naming the line, and leaves no directory', async () => {
    const exported = exportParts(exportFile).events;
    const first = JSON.parse(exported[0]!) as { stream: string; type: string; meta: object };
    for (const [data, problem] of [['{"changes":}', '"data" is not JSON'], ['"text"', '"data" must be an object']] as const) {
      // chained correctly in a stream of its own: only the data check can refuse it
      const stream = `${first.stream}-malformed`;
      const encoded = { type: first.type, data, meta: JSON.stringify({ ...first.meta, command_id: 'malformed-data' }) };
      const malformed = exportLine({ position: 2, stream, version: 1, ...encoded, hash: chainHash(GENESIS_HASH, stream, 1, encoded) });
      const file = join(root, 'malformed.ndjson');
      writeFileSync(file, withOwnTrailer([...exported.slice(0, 3), malformed, ...exported.slice(3)]));
      const target = join(root, 'malformed');
      const ran = await storyline(target, 'import', file);
      expect(ran.code).to.equal(1);
      expect(ran.stderr).to.include(`line 4: ${problem}`);
      expect(existsSync(target)).to.equal(false);
    }
  });

  /** Imports `text` into a fresh directory; the refusal must leave no directory behind. */
  async function refusedImport(name: string, text: string): Promise<string> {
    const file = join(root, `${name}.ndjson`);
    writeFileSync(file, text);
    const target = join(root, name);
    const ran = await storyline(target, 'import', file);
    expect(ran.code, ran.stdout).to.equal(1);
    expect(ran.stderr.trim().split('\n'), ran.stderr).to.have.length(1);
    expect(ran.stderr).to.match(/nothing was imported\n$/);
    expect(existsSync(target)).to.equal(false);
    return ran.stderr;
  }

  it('import refuses a file cut short at a line boundary, or missing only its trailer', async () => {
    const { events } = exportParts(exportFile);
    const half = Math.floor(events.length / 2);
    expect(await refusedImport('cut', `${events.slice(0, half).join('\n')}\n`)).to.include(
      `the file ends at line ${half} without the export's trailer line: it was cut short`,
    );
    expect(await refusedImport('no-trailer', `${events.join('\n')}\n`)).to.include(`the file ends at line ${events.length} without the export's trailer line`);
    const { trailer } = exportParts(exportFile);
    expect(await refusedImport('after-trailer', `${[...events, trailer, events[0]].join('\n')}\n`)).to.include(
      `line ${events.length + 2} follows the trailer (line ${events.length + 1})`,
    );
  });

  it('import refuses swapped lines: of one stream by its chain, of two streams by the trailer (order across streams)', async () => {
    const { events, trailer } = exportParts(exportFile);
    const streamOf = (line: string) => (JSON.parse(line) as Line).stream;
    const swapped = (at: number) => [...events.slice(0, at), events[at + 1]!, events[at]!, ...events.slice(at + 2), trailer].join('\n');
    const sameStream = events.findIndex((line, at) => at > 0 && streamOf(line) === streamOf(events[at + 1] ?? ''));
    expect(await refusedImport('swapped-in-stream', swapped(sameStream))).to.match(new RegExp(`line ${sameStream + 1} \\(.+\\): expected version \\d+ of .+ next`));
    const twoStreams = events.findIndex((line, at) => at > 0 && at + 1 < events.length && streamOf(line) !== streamOf(events[at + 1]!));
    expect(await refusedImport('swapped-streams', swapped(twoStreams))).to.include('the file does not match its trailer').and.include('the order of events across streams differs');
  });

  it("import refuses a file whose count and a head disagree with the trailer (a stream's last event dropped), naming both", async () => {
    const { events, trailer } = exportParts(exportFile);
    // the last event of a stream of several: dropping it leaves every chain whole
    const last = events.findIndex((line, at) => {
      const { stream, version } = JSON.parse(line) as Line;
      return version > 1 && events.slice(at + 1).every((later) => (JSON.parse(later) as Line).stream !== stream);
    });
    const { stream, version } = JSON.parse(events[last]!) as Line;
    const refusal = await refusedImport('dropped', [...events.slice(0, last), ...events.slice(last + 1), trailer].join('\n'));
    expect(refusal).to.include(`${events.length - 1} events in the file, ${events.length} in the trailer`);
    expect(refusal).to.include(`${stream}: version ${version - 1} in the file, ${version} in the trailer`);
  });

  it('a re-hashed edit: refused against the trailer it kept; with the trailer rewritten, imported, and verify --expect names the stream', async () => {
    const { events, trailer } = exportParts(exportFile);
    const storyCreate = events.findIndex((line) => (JSON.parse(line) as Line).type === 'story_create');
    const { stream, version } = JSON.parse(events[storyCreate]!) as Line;
    const edited = rehashedEdit(events, storyCreate, (line) => ({ ...line, data: JSON.parse(JSON.stringify(line.data).replace('"Story ', '"Edited story ')) }));
    expect(edited[storyCreate]).to.include('Edited story');
    const streamHead = (JSON.parse(trailer) as { streams: { stream: string; version: number }[] }).streams.find((head) => head.stream === stream)!;
    expect(await refusedImport('rehashed', [...edited, trailer].join('\n'))).to.match(
      new RegExp(`the file does not match its trailer \\(line ${events.length + 1}\\): ${stream}: version ${streamHead.version} has hash \\w+… in the file, \\w+… in the trailer`),
    );
    expect(version).to.be.at.most(streamHead.version);

    // everything rewritten consistently: only a summary kept elsewhere tells
    const file = join(root, 'rehashed-whole.ndjson');
    writeFileSync(file, withOwnTrailer(edited));
    const target = join(root, 'rehashed-whole');
    const imported = await storyline(target, 'import', file);
    expect(imported.code, imported.stderr).to.equal(0);
    const kept = join(root, 'kept-heads.json');
    writeFileSync(kept, (await storyline(source, 'verify')).stdout);
    const compared = await storyline(target, 'verify', '--expect', kept);
    expect(compared.code).to.equal(1);
    const headHash = (summary: string) => (JSON.parse(summary) as { streams: { stream: string; head_hash: string }[] }).streams.find((head) => head.stream === stream)!.head_hash;
    const problem = `version ${streamHead.version} has hash ${headHash(imported.stdout).slice(0, 12)}… in the log, ${headHash(trailer).slice(0, 12)}… in ${kept}`;
    expect(compared.stderr.trim().split('\n')).to.deep.equal([`storyline verify: ${stream}: ${problem}`]);
    expect(JSON.parse(compared.stdout)).to.include({ ok: false }).and.have.deep.property('differences', [{ stream, problem }]);
  });

  it('verify --expect exits 0 on the heads import printed, and 1 naming each stream missing, at another version or with another hash', async () => {
    const target = join(root, 'expect');
    const imported = await storyline(target, 'import', exportFile);
    expect(imported.code, imported.stderr).to.equal(0);
    const printed = join(root, 'imported-heads.json');
    writeFileSync(printed, imported.stdout);
    const same = await storyline(target, 'verify', '--expect', printed);
    expect(same.code, same.stderr).to.equal(0);
    expect(JSON.parse(same.stdout)).to.include({ ok: true });
    // an export's own trailer line is such a summary too
    const trailerFile = join(root, 'trailer.json');
    writeFileSync(trailerFile, exportParts(exportFile).trailer);
    expect((await storyline(source, 'verify', '--expect', trailerFile)).code).to.equal(0);

    const summary = JSON.parse(imported.stdout) as { streams: { stream: string; version: number; head_hash: string }[] };
    const [first, second, third, ...rest] = summary.streams;
    const altered = {
      ...summary,
      streams: [{ ...first!, version: first!.version + 1 }, { ...second!, head_hash: 'f'.repeat(64) }, { stream: 'project-999999', version: 4, head_hash: 'a'.repeat(64) }, ...rest],
    };
    const alteredFile = join(root, 'altered-heads.json');
    writeFileSync(alteredFile, JSON.stringify(altered));
    const ran = await storyline(target, 'verify', '--expect', alteredFile);
    expect(ran.code).to.equal(1);
    expect(ran.stderr.trim().split('\n')).to.deep.equal([
      `storyline verify: ${first!.stream}: version ${first!.version} in the log, ${first!.version + 1} in ${alteredFile}`,
      `storyline verify: ${second!.stream}: version ${second!.version} has hash ${second!.head_hash.slice(0, 12)}… in the log, ffffffffffff… in ${alteredFile}`,
      `storyline verify: project-999999: missing from the log (${alteredFile} has it at version 4)`,
      `storyline verify: ${third!.stream}: not in ${alteredFile} (the log has it at version ${third!.version})`,
    ]);

    const notSummary = join(root, 'not-heads.json');
    writeFileSync(notSummary, '{"ok":true}');
    const refused = await storyline(target, 'verify', '--expect', notSummary);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(`${notSummary} is not a summary of a log: no "streams" list`);
  });

  it('verify exits non-zero naming the stream and version of an event edited with sqlite3', async () => {
    const db = join(source, 'events.sqlite');
    const row = await new Promise<string>((resolve, reject) =>
      execFile('sqlite3', [db, "SELECT stream || ' ' || version FROM events WHERE position = 9"], (error, out) => (error ? reject(error) : resolve(out.trim()))),
    );
    await new Promise<void>((resolve, reject) =>
      execFile('sqlite3', [db, "UPDATE events SET data = replace(data, '\"kind\"', '\"kind\" ') WHERE position = 9"], (error) => (error ? reject(error) : resolve())),
    );
    const ran = await storyline(source, 'verify');
    expect(ran.code).to.equal(1);
    const [stream, version] = row.split(' ');
    expect(JSON.parse(ran.stdout)).to.include({ ok: false, stream, version: Number(version), position: 9 });
    expect(ran.stderr).to.include(`${stream} version ${version}`);
  });
});
