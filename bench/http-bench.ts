// HTTP throughput of the story family, end to end through the real server (`storyline serve` in a child
// process, SQLite event log and read models on disk), with autocannon in this
// process so the load generator never shares the server's event loop.
//
// Reads (50 connections, 5 s each, after a 1 s warm-up, in 3 rounds with the servers interleaved; each
// ratio is the median over rounds of the ratio within a round), on a project of 5,000 stories:
//   GET /services/v5/projects/:id/stories?limit=100   and   GET /services/v5/projects/:id/stories/:id
// each beside (a) a bare express 5 app and (b) a plain node:http server, both in child processes,
// answering the identical bytes and headers captured from Storyline first. Targets: ours >= 70% of (a)'s
// requests/s, p99 < 20 ms. Our figure includes what a real request costs: token authentication, the
// project access check and the version-keyed byte cache (the designed fast path: a response for
// (project, version, query, role) is rendered once and then served as bytes).
//
// The same reads from a second Storyline serving the same log with STORYLINE_READ_STORE=memory (the
// read models in memory, as before readmodels.sqlite): target ours >= 0.90 of it.
//
// Writes (16 connections over 16 projects): POST story and PUT story, each 5 s of warm-up then 10 s
// measured, every 2xx a durable append acknowledged after the read models applied it. Target: >= 1,000
// writes/s. The warm-up's rate is printed too: a freshly started server's first seconds run cold code.
//
// `HTTP_BENCH_ONLY=reads` or `=writes` runs one half; `HTTP_BENCH_ROUNDS=n` sets the read rounds;
// `HTTP_BENCH_BASELINE=<a built checkout>` puts that tree's server (on a copy of the same log) beside ours
// in the write loads, alternated within `HTTP_BENCH_WRITE_ROUNDS` rounds, and prints the median ratios
// of writes/s and of CPU per write (the server's, and its event loop's);
// `HTTP_BENCH_CPU_PROFILE=<dir>` profiles the Storyline children.
//
// Seeding: the 5,000 story creates are decided in a loop over a locally folded project state and
// appended in one `eventStore.append` call (the same decider the API uses, so the events are the ones
// the API would have written).
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonResult } from 'autocannon';
import { configFromEnv } from '../src/infra/config.js';
import { openStoryline, type Storyline } from '../src/infra/composition.js';
import type { CapturedResponse } from './http-bench-baseline.js';
import { appendStoryCreates } from './story-seeding.js';
import { median } from './stats.js';

const STORIES = 5_000;
const WRITE_PROJECTS = 16;
const READ_CONNECTIONS = 50;
const WRITE_CONNECTIONS = 16;
const DURATION_S = 5;
/** Write loads: a warm-up, not counted, then the measured part (longer than a read's: writes vary more second to second). */
const WRITE_WARM_UP_S = 5;
const WRITE_DURATION_S = 10;
/** A built checkout (its dist/) whose server also takes the write loads, for same-run ratios (`HTTP_BENCH_BASELINE`). */
const BASELINE = process.env['HTTP_BENCH_BASELINE'];
/** Rounds of the write loads, servers alternated (`HTTP_BENCH_WRITE_ROUNDS`; 3 with a baseline, else 1). */
const WRITE_ROUNDS = Math.max(1, Number(process.env['HTTP_BENCH_WRITE_ROUNDS'] ?? (BASELINE ? 3 : 1)));
/** Rounds of read measurements; `HTTP_BENCH_ROUNDS` overrides. */
const READ_ROUNDS = Math.max(1, Number(process.env['HTTP_BENCH_ROUNDS'] ?? 3));
const WARM_UP_S = 1;
const PREFIX = '/services/v5';

interface Seeded {
  token: string;
  readProject: number;
  oneStory: number;
  writeProjects: number[];
  writeStories: number[];
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-http-bench-'));
  const children: ChildProcess[] = [];
  try {
    const seedStart = performance.now();
    const seeded = await seed(dir);
    process.stdout.write(`seeded ${STORIES} stories + ${WRITE_PROJECTS} write projects in ${((performance.now() - seedStart) / 1000).toFixed(1)} s\n`);

    const oursPort = await freePort();
    const ours = startChild(fileURLToPath(new URL('../src/infra/cli/main.js', import.meta.url)), ['serve'], {
      STORYLINE_DATA: dir,
      PORT: String(oursPort),
      HOST: '127.0.0.1',
      STORYLINE_LOG_LEVEL: 'error',
    });
    children.push(ours);
    const headers = { 'X-TrackerToken': seeded.token };
    await waitUntilServing(oursPort, `${PREFIX}/me`, headers);
    // The same log served with the read models in memory (the embedded default before readmodels.sqlite).
    const memoryDir = join(dir, 'memory');
    mkdirSync(memoryDir);
    for (const file of ['events.sqlite', 'credentials.sqlite']) copyFileSync(join(dir, file), join(memoryDir, file));
    const memoryPort = await freePort();
    const memoryChild = startChild(fileURLToPath(new URL('../src/infra/cli/main.js', import.meta.url)), ['serve'], {
      STORYLINE_DATA: memoryDir,
      STORYLINE_READ_STORE: 'memory',
      PORT: String(memoryPort),
      HOST: '127.0.0.1',
      STORYLINE_LOG_LEVEL: 'error',
    });
    children.push(memoryChild);
    await waitUntilServing(memoryPort, `${PREFIX}/me`, headers);

    const listPath = `${PREFIX}/projects/${seeded.readProject}/stories?limit=100`;
    const storyPath = `${PREFIX}/projects/${seeded.readProject}/stories/${seeded.oneStory}`;
    const captured = [await capture(oursPort, listPath, headers), await capture(oursPort, storyPath, headers)];
    process.stdout.write(`list page: ${captured[0]!.bodyBase64.length * 0.75 / 1024 | 0} KiB, one story: ${Buffer.from(captured[1]!.bodyBase64, 'base64').length} B\n`);
    const capturedFile = join(dir, 'captured.json');
    writeFileSync(capturedFile, JSON.stringify(captured));

    const baselineScript = fileURLToPath(new URL('./http-bench-baseline.js', import.meta.url));
    const expressPort = await freePort();
    const httpPort = await freePort();
    const expressChild = startChild(baselineScript, ['express', capturedFile], { PORT: String(expressPort) });
    const httpChild = startChild(baselineScript, ['http', capturedFile], { PORT: String(httpPort) });
    children.push(expressChild, httpChild);
    await waitUntilServing(expressPort, listPath, {});
    await waitUntilServing(httpPort, listPath, {});

    const targets = [
      { name: 'storyline', port: oursPort, child: ours },
      { name: 'memory store', port: memoryPort, child: memoryChild },
      { name: '(a) express', port: expressPort, child: expressChild },
      { name: '(b) node:http', port: httpPort, child: httpChild },
    ];
    const parts = process.env['HTTP_BENCH_ONLY'] ?? 'reads,writes';
    for (const [label, path] of parts.includes('reads') ? ([['GET stories?limit=100', listPath], ['GET one story', storyPath]] as const) : []) {
      process.stdout.write(`\n${label} (5,000-story project), ${READ_CONNECTIONS} connections, ${READ_ROUNDS} rounds of ${DURATION_S} s per server, servers interleaved\n`);
      const rounds = await measureReadRounds(targets, path, { connections: READ_CONNECTIONS, rounds: READ_ROUNDS, headers });
      const cpu = (round: ReadRound, name: string) => round.get(name)!.cpuPerRequest;
      const ours_ = medianRatio(rounds, 'storyline', '(a) express');
      const b = medianRatio(rounds, 'storyline', '(b) node:http');
      const memory = medianRatio(rounds, 'storyline', 'memory store');
      const p99 = median(rounds.map((round) => round.get('storyline')!.result.latency.p99));
      const cpuRatios = rounds.map((round) => [cpu(round, '(a) express'), cpu(round, 'storyline')]).filter((pair): pair is [number, number] => pair[0] !== null && pair[1] !== null);
      if (cpuRatios.length > 0) {
        process.stdout.write(`  server CPU per request, (a) express / ours = ${median(cpuRatios.map(([express, ours]) => express / ours)).toFixed(2)} (median; the throughput ratio as the CPU sees it, less sensitive to a busy machine)\n`);
      }
      process.stdout.write(`  medians over ${READ_ROUNDS} rounds of the ratios within each round:\n`);
      process.stdout.write(`  ours (readmodels.sqlite) / ours (memory read store) = ${memory.toFixed(2)} (target >= 0.90: ${memory >= 0.9 ? 'met' : 'NOT met'})\n`);
      process.stdout.write(
        `  ours/(a) = ${ours_.toFixed(2)} (target >= 0.70: ${ours_ >= 0.7 ? 'met' : 'NOT met'}), ` +
          `ours/(b) = ${b.toFixed(2)}, our p99 ${p99} ms (target < 20: ${p99 < 20 ? 'met' : 'NOT met'})\n`,
      );
    }

    if (!parts.includes('writes')) return;
    const writeTargets = [{ name: 'storyline', port: oursPort, child: ours }, { name: 'memory store', port: memoryPort, child: memoryChild }];
    if (BASELINE) {
      const baselineDir = join(dir, 'baseline');
      mkdirSync(baselineDir);
      for (const file of ['events.sqlite', 'credentials.sqlite']) copyFileSync(join(dir, file), join(baselineDir, file));
      const port = await freePort();
      const child = startChild(join(BASELINE, 'dist/src/infra/cli/main.js'), ['serve'], { STORYLINE_DATA: baselineDir, PORT: String(port), HOST: '127.0.0.1', STORYLINE_LOG_LEVEL: 'error' });
      children.push(child);
      await waitUntilServing(port, `${PREFIX}/me`, headers);
      writeTargets.push({ name: 'baseline', port, child });
    }
    for (const { child } of writeTargets) await waitUntilIdle(child);
    process.stdout.write(
      `\nwrites, ${WRITE_CONNECTIONS} connections over ${WRITE_PROJECTS} projects, ${WRITE_WARM_UP_S} s warm-up then ${WRITE_DURATION_S} s measured ` +
        `(durable: acknowledged after the SQLite commit), ${WRITE_ROUNDS} round(s), servers alternated\n`,
    );
    const loads = writeLoads(seeded);
    for (const [label, requestFor] of loads) {
      const rounds: Array<Map<string, WriteMeasure>> = [];
      for (let round = 0; round < WRITE_ROUNDS; round++) {
        const measured = new Map<string, WriteMeasure>();
        for (const { name, port, child } of round % 2 === 0 ? writeTargets : [...writeTargets].reverse()) {
          const measure = await measureWrites(port, child, headers, requestFor);
          measured.set(name, measure);
          process.stdout.write(
            `  ${`round ${round + 1}`.padEnd(8)} ${name.padEnd(12)} ${label} ${line(measure.result)}  => ${writesPerSecond(measure.result).toFixed(0)} durable writes/s` +
              `${name === 'storyline' ? verdict(measure.result) : ''}${cpuText(measure)}; warm-up ${measure.warmUpPerSecond.toFixed(0)}/s\n`,
          );
        }
        rounds.push(measured);
      }
      if (BASELINE) process.stdout.write(`  ${label} ${baselineRatios(rounds)}\n`);
    }
  } finally {
    await Promise.all(children.map(stopChild));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One round of read measurements: per server, autocannon's result and the server's CPU per request. */
export type ReadRound = Map<string, { result: AutocannonResult; cpuPerRequest: number | null }>;

/**
 * GETs `path` from each target in turn (a 1 s warm-up, then DURATION_S), `rounds` times, printing each
 * measurement: the servers of one round are measured back to back, so ratios are taken within a round.
 */
export async function measureReadRounds(
  targets: ReadonlyArray<{ name: string; port: number; child: ChildProcess }>,
  path: string,
  options: { connections: number; rounds: number; headers: Record<string, string> },
): Promise<ReadRound[]> {
  const rounds: ReadRound[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const measured: ReadRound = new Map();
    for (const target of targets) {
      const url = `http://127.0.0.1:${target.port}${path}`;
      await autocannon({ url, connections: options.connections, duration: WARM_UP_S, headers: options.headers });
      const cpuBefore = cpuMs(target.child);
      const result = await autocannon({ url, connections: options.connections, duration: DURATION_S, headers: options.headers });
      const cpuAfter = cpuMs(target.child);
      const cpuPerRequest = cpuBefore !== null && cpuAfter !== null && result['2xx'] > 0 ? (cpuAfter - cpuBefore) / result['2xx'] : null;
      measured.set(target.name, { result, cpuPerRequest });
      process.stdout.write(`  ${`round ${round + 1}`.padEnd(8)} ${target.name.padEnd(14)} ${line(result)}${cpuPerRequest === null ? '' : `  server CPU ${(cpuPerRequest * 1000).toFixed(0)} us per request`}\n`);
    }
    rounds.push(measured);
  }
  return rounds;
}

/**
 * The median over rounds of `a`'s requests/s over `b`'s within each round: a machine that slows down
 * for a few seconds moves one round, not the figure.
 */
export function medianRatio(rounds: readonly ReadRound[], a: string, b: string): number {
  return median(rounds.map((round) => round.get(a)!.result.requests.mean / round.get(b)!.result.requests.mean));
}

export function line(result: AutocannonResult): string {
  const failures = result.errors + result.timeouts + result.non2xx;
  return (
    `${result.requests.mean.toFixed(0).padStart(7)} req/s  p50 ${String(result.latency.p50).padStart(3)} ms  ` +
    `p99 ${String(result.latency.p99).padStart(3)} ms${failures > 0 ? `  (${failures} failed)` : ''}`
  );
}

/** The CPU model, cores and load average over 1, 5 and 15 minutes: the machine a figure was measured on. */
export function machine(): string {
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}`;
}

/**
 * CPU time (user + system) the child process has used, from /proc (Linux); null elsewhere. Beside the
 * writes/s it tells what a write costs the server, which a machine busy with other work distorts less.
 */
export function cpuMs(child: ChildProcess): number | null {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * CPU time the child's main thread (the event loop) has run, in ms, from its scheduler statistics
 * (Linux); null elsewhere. What the event loop spent, whatever the worker threads did and however
 * long the thread waited for a CPU on a busy machine.
 */
export function mainThreadCpuMs(child: ChildProcess): number | null {
  try {
    return Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

/**
 * Waits until the child uses less than 5% of a CPU over a second (its reactions and workers have
 * caught up after a start), at most `timeoutMs`; the seconds waited, or null where its CPU cannot be
 * read (not Linux).
 */
export async function waitUntilIdle(child: ChildProcess, timeoutMs = 600_000): Promise<number | null> {
  const started = performance.now();
  let before = cpuMs(child);
  if (before === null) return null;
  while (performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = cpuMs(child);
    if (after === null) return null;
    if (after - before < 50) break;
    before = after;
  }
  return (performance.now() - started) / 1000;
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's utime and stime. */
export const CLOCK_TICKS_PER_SECOND = 100;

function cpuText(measure: WriteMeasure): string {
  return measure.cpuMsPerWrite === null ? '' : `, server CPU ${measure.cpuMsPerWrite.toFixed(2)} ms per write (event loop ${measure.mainThreadCpuMsPerWrite?.toFixed(2)})`;
}

function writesPerSecond(result: AutocannonResult): number {
  return result['2xx'] / WRITE_DURATION_S;
}

function verdict(result: AutocannonResult): string {
  return writesPerSecond(result) >= 1000 ? ' (target >= 1000: met)' : ' (target >= 1000: NOT met)';
}

/** storyline / baseline: medians over rounds of the ratios within each round (rate, CPU per write, the event loop's CPU per write). */
function baselineRatios(rounds: ReadonlyArray<Map<string, WriteMeasure>>): string {
  const ratio = (pick: (m: WriteMeasure) => number | null) => {
    const values = rounds.flatMap((round) => {
      const ours = pick(round.get('storyline')!);
      const before = pick(round.get('baseline')!);
      return ours !== null && before !== null && before > 0 ? [ours / before] : [];
    });
    return values.length === 0 ? 'n/a' : `${median(values).toFixed(2)} [${values.map((v) => v.toFixed(2)).join(' ')}]`;
  };
  return (
    `storyline / baseline: writes/s ${ratio((m) => writesPerSecond(m.result))}, server CPU per write ${ratio((m) => m.cpuMsPerWrite)}, ` +
    `event loop CPU per write ${ratio((m) => m.mainThreadCpuMsPerWrite)}`
  );
}

/** The next write request of a load: each call gives a fresh one (a new name, the next project). */
type RequestFor = () => { method: 'POST' | 'PUT'; path: string; body: string };

/** One measured write load: autocannon's result, the warm-up's rate, the server's CPU per write (ms; null where unreadable). */
interface WriteMeasure {
  result: AutocannonResult;
  warmUpPerSecond: number;
  cpuMsPerWrite: number | null;
  mainThreadCpuMsPerWrite: number | null;
}

/**
 * One write load on `port`: WRITE_WARM_UP_S of it (a server just started runs its first seconds of
 * writes in unoptimised code, well below its later rate), then WRITE_DURATION_S measured, with the
 * server's CPU per write over the measured part.
 */
async function measureWrites(port: number, child: ChildProcess, headers: Record<string, string>, requestFor: RequestFor): Promise<WriteMeasure> {
  const load = (duration: number) =>
    autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: WRITE_CONNECTIONS,
      duration,
      requests: [{ setupRequest: (req) => ({ ...req, ...requestFor(), headers: { ...headers, 'Content-Type': 'application/json' } }) }],
    });
  const warmUp = await load(WRITE_WARM_UP_S);
  const before = cpuMs(child);
  const mainBefore = mainThreadCpuMs(child);
  const result = await load(WRITE_DURATION_S);
  const perWrite = (from: number | null, to: number | null) => (from === null || to === null || result['2xx'] === 0 ? null : (to - from) / result['2xx']);
  return {
    result,
    warmUpPerSecond: warmUp['2xx'] / WRITE_WARM_UP_S,
    cpuMsPerWrite: perWrite(before, cpuMs(child)),
    mainThreadCpuMsPerWrite: perWrite(mainBefore, mainThreadCpuMs(child)),
  };
}

/** The two write loads: POST a new story, PUT an edit of one story, each spread over the write projects. */
function writeLoads(seeded: Seeded): Array<[string, RequestFor]> {
  let created = 0;
  const post: RequestFor = () => {
    const n = created++;
    return {
      method: 'POST',
      path: `${PREFIX}/projects/${seeded.writeProjects[n % WRITE_PROJECTS]}/stories`,
      body: JSON.stringify({ name: `Bench story ${n}`, story_type: 'feature', current_state: 'unstarted', estimate: 1 }),
    };
  };
  let edited = 0;
  const put: RequestFor = () => {
    const n = edited++;
    const slot = n % WRITE_PROJECTS;
    return {
      method: 'PUT',
      path: `${PREFIX}/projects/${seeded.writeProjects[slot]}/stories/${seeded.writeStories[slot]}`,
      body: JSON.stringify({ name: `Edited ${n}`, story_priority: ['p0', 'p1', 'p2', 'p3'][n % 4] }),
    };
  };
  return [['POST story', post], ['PUT story ', put]];
}

/**
 * Runs `seeding` against a Storyline opened on `dir` and served on an ephemeral port, with a person to act
 * as (the bench runner); closes both afterwards, leaving the data directory for a `serve` child.
 */
export async function seedThroughServer<T>(
  dir: string,
  seeding: (storyline: Storyline, port: number, person: { id: number; api_token: string }) => Promise<T>,
): Promise<T> {
  const storyline = await openStoryline(configFromEnv({ STORYLINE_DATA: dir, PORT: '0' }));
  const server = createServer(storyline.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const person = await storyline.addPerson({ email: 'bench@example.com', name: 'Bench Runner', password: 'bench-password', username: 'bench' });
    return await seeding(storyline, port, person);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storyline.close();
  }
}

/** Creates the data directory's log: a person, 17 projects, 5,000 stories in one, one story in each other. */
function seed(dir: string): Promise<Seeded> {
  return seedThroughServer(dir, async (storyline, port, person) => {
      const headers = { 'X-TrackerToken': person.api_token };
      const call = async (method: string, path: string, body: unknown) => {
        const res = await fetch(`http://127.0.0.1:${port}${PREFIX}${path}`, {
          method,
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        const json = (await res.json()) as Record<string, unknown>;
        if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
        return json;
      };
      const first = await call('POST', '/projects', { name: 'Big project', new_account_name: 'Bench' });
      const readProject = Number(first['id']);
      const labelIds: number[] = [];
      for (const name of ['backend', 'frontend', 'ops', 'design', 'bug bash']) {
        labelIds.push(Number((await call('POST', `/projects/${readProject}/labels`, { name }))['id']));
      }
      await appendStories(storyline, readProject, person.id, labelIds);

      const writeProjects: number[] = [];
      const writeStories: number[] = [];
      for (let i = 0; i < WRITE_PROJECTS; i++) {
        const project = await call('POST', '/projects', { name: `Write project ${i}`, account_id: first['account_id'] });
        writeProjects.push(Number(project['id']));
        writeStories.push(Number((await call('POST', `/projects/${project['id']}/stories`, { name: 'Edited in place' }))['id']));
      }
      const one = (await fetch(`http://127.0.0.1:${port}${PREFIX}/projects/${readProject}/stories?limit=1&offset=2500&fields=id`, { headers }).then((r) => r.json())) as Array<{ id: number }>;
      return { token: person.api_token, readProject, oneStory: one[0]!.id, writeProjects, writeStories };
  });
}

/** 5,000 creates decided over a locally folded state, appended as one batch to the project stream. */
async function appendStories(storyline: Storyline, projectId: number, personId: number, labelIds: number[]): Promise<void> {
  const states = ['accepted', 'started', 'unstarted', 'unstarted', 'unscheduled'] as const;
  await appendStoryCreates(
    storyline,
    projectId,
    personId,
    STORIES,
    (i) => {
      const currentState = states[i % states.length]!;
      return {
        name: `Story ${i}: make the thing do what it says`,
        description: `Longer text for story ${i}, as real stories carry a description of a sentence or two.`,
        current_state: currentState,
        ...(currentState === 'unscheduled' ? {} : { estimate: (i % 3) + 1 }),
        story_priority: (['p1', 'p2', 'p3'] as const)[i % 3],
        owner_ids: i % 2 === 0 ? [personId] : [],
        label_ids: [labelIds[i % labelIds.length]!],
      };
    },
    Date.UTC(2024, 0, 1),
  );
}

/**
 * `HTTP_BENCH_CPU_PROFILE=<dir>` writes a V8 CPU profile of each Storyline child and of the bare express
 * baseline there (the baseline's, to compare what node and express cost in both).
 */
export function startChild(script: string, args: string[], env: Record<string, string>): ChildProcess {
  const profileDir = args[0] === 'serve' || args[0] === 'express' ? process.env['HTTP_BENCH_CPU_PROFILE'] : undefined;
  // Sampled every 10 ms, not V8's 1 ms: at 1 ms the sampling of a server's threads alone keeps it above
  // the idle threshold of waitUntilIdle, which then waited out its whole timeout before measuring.
  const flags = profileDir ? ['--cpu-prof', '--cpu-prof-interval=10000', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...flags, script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${args[0]}] ${chunk}`));
  return child;
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls until the server answers 200 on `path` (the child is starting and catching up its read models). */
export async function waitUntilServing(port: number, path: string, headers: Record<string, string>, waitMs = 120_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}${path}`, { headers }).then((res) => res.status, () => 0);
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`server on port ${port} did not answer ${path} (last status ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One response's status, headers (minus per-connection ones) and bytes. */
export function capture(port: number, url: string, headers: Record<string, string>): Promise<CapturedResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: url, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const kept: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name) || value === undefined) continue;
          kept[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        if (res.statusCode !== 200) reject(new Error(`GET ${url}: ${res.statusCode}`));
        else resolve({ url, status: 200, headers: kept, bodyBase64: Buffer.concat(chunks).toString('base64') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
