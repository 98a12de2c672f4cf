// What a costly search does to the server (issue 30, item 2), end to end over HTTP through `storyline
// serve` (default embedded stores: SQLite log and read models). A project of 20,000 stories (names and
// descriptions of the search bench's Zipf vocabulary, labels, owners among 8 members, requesters,
// states, types, estimates), created by the decider the API uses and appended in one batch.
//
// For each class of query, 4 clients (SEARCH_COST_BENCH_CLIENTS) send 200-term queries for SECONDS seconds, every query a fresh
// one of its class (seeded), so the byte cache never answers; half through `GET /search?query=`, half
// through `GET /stories?filter=&limit=100`. Meanwhile a fifth connection polls `GET /me` every 10 ms.
// Classes: 200 distinct words of the vocabulary; one word 200 times; 200 long words (a 13,000-character
// query); a mix of label:, owner:, state:, free words, phrases, `-` negations, OR and parentheses; and
// for comparison ordinary short queries. Each server is measured once it is idle (its reactions caught
// up with the log) and after one first search of many words, which builds what the search worker keeps
// of the project (printed apart: once per project and process). Printed per class: the server's event-loop CPU per search (Linux), and per endpoint
// answers by status, p50 / p99 of the searches (status 0: the connection was reset); and p50 / p99 /
// max of /me. Targets: 200-term queries p99 < 300 ms, /me p99 < 50 ms.
//
// `SEARCH_COST_BENCH_BASELINE=DIR` also measures the server built in checkout DIR (its dist/) on the same
// log, first, so one run prints before and after (each server on its own copy of the log, building its
// read models at start). `SEARCH_COST_BENCH_DATA=DIR` keeps the seeded data
// directory and serves it again next time; `SEARCH_COST_BENCH_SECONDS` (default 10) sets each line's
// duration; `SEARCH_COST_BENCH_CLASSES=mixed,ordinary` runs the classes whose names hold one of those;
// `SEARCH_COST_BENCH_WRITE_EVERY_MS=500` has a writer rename a story of the project that often meanwhile;
// `SEARCH_COST_BENCH_CLIENTS=1` sends one search at a time (what one search costs, without a queue);
// `HTTP_BENCH_CPU_PROFILE=DIR` profiles the servers (the search worker's profile is a file of its own).
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFromEnv } from '../src/infra/config.js';
import { seededRandom } from '../test/support/seeded-random.js';
import { PREFIX, withBenchOwner } from './bench-owner.js';
import { freePort, mainThreadCpuMs, startChild, stopChild, waitUntilIdle, waitUntilServing } from './http-bench.js';
import { VOCABULARY } from './search-bench.js';
import { zipfWords } from './search-http-bench.js';
import { appendStoryCreates } from './story-seeding.js';
import { percentile } from './stats.js';

const STORIES = 20_000;
const CLIENTS = Number(process.env['SEARCH_COST_BENCH_CLIENTS'] ?? 4);
const TERMS = 200;
const SECONDS = Number(process.env['SEARCH_COST_BENCH_SECONDS'] ?? 10);
const ME_EVERY_MS = 10;
const WRITE_EVERY_MS = Number(process.env['SEARCH_COST_BENCH_WRITE_EVERY_MS'] ?? 0);
const LABELS = ['backend', 'frontend', 'ops', 'design', 'bug bash', 'mobile', 'api', 'billing', 'infra', 'docs', 'security', 'growth'];
const MEMBERS = ['Ada Lovelace', 'Brian Kernighan', 'Carol Shaw', 'Dennis Ritchie', 'Edsger Dijkstra', 'Frances Allen', 'Grace Hopper'];
const STATES = ['unscheduled', 'unstarted', 'started', 'finished', 'delivered', 'accepted', 'rejected'] as const;
const TYPES = ['feature', 'feature', 'feature', 'bug', 'chore'] as const;

interface Seeded {
  token: string;
  projectId: number;
  /** Initials of the members, owners of the stories. */
  initials: string[];
}

type QueryMaker = (random: () => number) => string;

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function shuffled<T>(random: () => number, list: readonly T[]): T[] {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function longWord(random: () => number): string {
  return Array.from({ length: 64 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
}

/** One term of the mixed class. */
function mixedTerm(random: () => number, initials: readonly string[]): string {
  const word = () => pick(random, VOCABULARY);
  switch (Math.floor(random() * 8)) {
    case 0:
      return `label:"${pick(random, LABELS)}"`;
    case 1:
      return `owner:${pick(random, initials)}`;
    case 2:
      return `state:${pick(random, STATES)}`;
    case 3:
      return `"${word()} ${word()}"`;
    case 4:
      return `-${word()}`;
    case 5:
      return `${word()}*`;
    default:
      return word();
  }
}

/** 200 mixed terms joined by spaces and OR, some groups parenthesised. */
function mixedQuery(random: () => number, initials: readonly string[]): string {
  const parts: string[] = [];
  let terms = 0;
  while (terms < TERMS) {
    const size = Math.min(TERMS - terms, 1 + Math.floor(random() * 4));
    const group = Array.from({ length: size }, () => mixedTerm(random, initials)).join(random() < 0.5 ? ' OR ' : ' ');
    terms += size;
    parts.push(size > 1 && random() < 0.5 ? `(${group})` : group);
  }
  return parts.join(random() < 0.3 ? ' ' : ' OR ');
}

export function classes(initials: readonly string[]): Array<[string, QueryMaker]> {
  return [
    ['200 distinct words', (random) => shuffled(random, VOCABULARY).slice(0, TERMS).join(' ')],
    ['one word 200 times', (random) => Array(TERMS).fill(pick(random, VOCABULARY)).join(' ')],
    ['200 long words', (random) => Array.from({ length: TERMS }, () => longWord(random)).join(' ')],
    ['200 mixed terms', (random) => mixedQuery(random, initials)],
    [
      'ordinary (1-3 terms)',
      (random) => pick(random, [`label:${pick(random, ['ops', 'api', 'docs'])}`, `state:started owner:${pick(random, initials)}`, pick(random, VOCABULARY), `${pick(random, VOCABULARY)} ${pick(random, VOCABULARY)}`]),
    ],
  ];
}

interface Answer {
  status: number;
  ms: number;
}

function get(agent: Agent, port: number, path: string, token: string): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolvePromise) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers: { 'X-TrackerToken': token } }, (res) => {
      res.resume();
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    // A connection reset (a keep-alive connection timed out behind a stalled event loop) counts as status 0.
    req.on('error', () => resolvePromise({ status: 0, ms: performance.now() - started }));
    req.end();
  });
}

function summary(answers: readonly Answer[]): string {
  const statuses = new Map<number, number>();
  for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  const sorted = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  const counts = [...statuses].sort((a, b) => a[0] - b[0]).map(([status, count]) => `${count}x${status}`).join(' ');
  return `${counts.padEnd(14)} p50 ${percentile(sorted, 50).toFixed(0).padStart(6)} ms, p99 ${percentile(sorted, 99).toFixed(0).padStart(6)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(0).padStart(6)} ms`;
}

/** Renames one story of the project every WRITE_EVERY_MS while `going()`; resolves to the writes made. */
async function writeMeanwhile(port: number, seeded: Seeded, going: () => boolean): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = `${PREFIX}/projects/${seeded.projectId}/stories`;
  const story = await new Promise<number>((resolvePromise, reject) => {
    request({ host: '127.0.0.1', port, path: `${base}?limit=1&offset=100&fields=id`, agent, headers: { 'X-TrackerToken': seeded.token } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolvePromise((JSON.parse(body) as Array<{ id: number }>)[0]!.id));
    }).on('error', reject).end();
  });
  let writes = 0;
  while (going()) {
    await new Promise<void>((resolvePromise) => {
      const body = JSON.stringify({ name: `Renamed while searching ${writes}` });
      const req = request({ host: '127.0.0.1', port, method: 'PUT', path: `${base}/${story}`, agent, headers: { 'X-TrackerToken': seeded.token, 'Content-Type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolvePromise());
      });
      req.on('error', () => resolvePromise());
      req.end(body);
    });
    writes++;
    await new Promise((wait) => setTimeout(wait, WRITE_EVERY_MS));
  }
  agent.destroy();
  return writes;
}

/**
 * One class for SECONDS: 4 clients, alternately /search and a filtered stories page; /me polled
 * meanwhile. Printed besides the latencies: the server's event-loop CPU per search answered, which a
 * machine busy with other work distorts less than the latencies.
 */
async function measureClass(server: ChildProcess, port: number, seeded: Seeded, name: string, make: QueryMaker, seed: number): Promise<{ search: Answer[]; filter: Answer[]; me: Answer[] }> {
  const random = seededRandom(seed);
  const searchAgent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const meAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = `${PREFIX}/projects/${seeded.projectId}`;
  const search: Answer[] = [];
  const filter: Answer[] = [];
  const me: Answer[] = [];
  const cpuBefore = mainThreadCpuMs(server);
  const deadline = performance.now() + SECONDS * 1000;
  let sent = 0;
  let running = true;
  // With SEARCH_COST_BENCH_WRITE_EVERY_MS, a writer renames one story of the project that often meanwhile.
  const writing = WRITE_EVERY_MS > 0 ? writeMeanwhile(port, seeded, () => running) : Promise.resolve(0);
  const polling = (async () => {
    while (running) {
      me.push(await get(meAgent, port, `${PREFIX}/me`, seeded.token));
      await new Promise((wait) => setTimeout(wait, ME_EVERY_MS));
    }
  })();
  const client = async () => {
    while (performance.now() < deadline) {
      const text = encodeURIComponent(make(random));
      const viaSearch = sent++ % 2 === 0;
      const path = viaSearch ? `${base}/search?query=${text}` : `${base}/stories?limit=100&filter=${text}`;
      (viaSearch ? search : filter).push(await get(searchAgent, port, path, seeded.token));
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  running = false;
  await polling;
  const writes = await writing;
  searchAgent.destroy();
  meAgent.destroy();
  const cpuAfter = mainThreadCpuMs(server);
  const cpuPerSearch = cpuBefore === null || cpuAfter === null ? 'n/a' : `${((cpuAfter - cpuBefore) / (search.length + filter.length)).toFixed(0)} ms`;
  const written = WRITE_EVERY_MS > 0 ? `, ${writes} writes meanwhile` : '';
  process.stdout.write(`    ${name} (event-loop CPU per search ${cpuPerSearch}${written})\n      /search   ${summary(search)}\n      filter=   ${summary(filter)}\n      /me       ${summary(me)}\n`);
  return { search, filter, me };
}

/**
 * One server on a copy of the seeded log and credentials (its read models built from the log at start),
 * so that servers of different builds never meet each other's read models.
 */
async function measureServer(label: string, checkout: string, dir: string, seeded: Seeded, env: Record<string, string> = {}): Promise<void> {
  const own = mkdtempSync(join(tmpdir(), 'storyline-search-cost-server-'));
  for (const file of ['events.sqlite', 'credentials.sqlite']) copyFileSync(join(dir, file), join(own, file));
  const port = await freePort();
  const child = startChild(join(checkout, 'dist/src/infra/cli/main.js'), ['serve'], { ...env, STORYLINE_DATA: own, PORT: String(port), HOST: '127.0.0.1', STORYLINE_LOG_LEVEL: 'error' });
  try {
    const starting = performance.now();
    await waitUntilServing(port, `${PREFIX}/projects/${seeded.projectId}/search?query=webhook`, { 'X-TrackerToken': seeded.token }, 900_000);
    const serving = (performance.now() - starting) / 1000;
    // Measured once the reactions have caught up with the log the server started on (they would hold the event loop too).
    const idle = await waitUntilIdle(child);
    process.stdout.write(
      `  ${label} (${checkout}): serving after ${serving.toFixed(1)} s, idle ${idle === null ? '(unknown)' : `${idle.toFixed(0)} s`} later; load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}\n`,
    );
    // The first search of many words builds what the search worker keeps of the project (its text index
    // and stories' rows, then brought up to date after writes): once per project and process, shown
    // apart from the classes' latencies.
    const first = await get(new Agent(), port, `${PREFIX}/projects/${seeded.projectId}/search?query=${encodeURIComponent(classes(seeded.initials)[0]![1](seededRandom(1)))}`, seeded.token);
    process.stdout.write(`    first 200-word search (builds the worker's kept index and rows): ${first.status}, ${first.ms.toFixed(0)} ms\n`);
    let seed = 20261128;
    const slow: string[] = [];
    const only = process.env['SEARCH_COST_BENCH_CLASSES'];
    for (const [name, make] of classes(seeded.initials).filter(([name]) => !only || only.split(',').some((part) => name.includes(part)))) {
      const { search, filter, me } = await measureClass(child, port, seeded, name, make, seed++);
      const p99 = (answers: Answer[]) => percentile(answers.map((answer) => answer.ms).sort((a, b) => a - b), 99);
      if (name.startsWith('200') && Math.max(p99(search), p99(filter)) >= 300) slow.push(`${name}: search p99 >= 300 ms`);
      if (p99(me) >= 50) slow.push(`${name}: /me p99 >= 50 ms`);
    }
    process.stdout.write(`  ${label}: ${slow.length === 0 ? 'targets met (200-term p99 < 300 ms, /me p99 < 50 ms)' : `ABOVE TARGET: ${slow.join('; ')}`}; load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}\n`);
  } finally {
    await stopChild(child);
    rmSync(own, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const kept = process.env['SEARCH_COST_BENCH_DATA'];
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'storyline-search-cost-bench-'));
  try {
    const seedFile = join(dir, 'search-cost-bench-seed.json');
    const known = kept !== undefined && existsSync(seedFile) ? (JSON.parse(readFileSync(seedFile, 'utf8')) as Seeded) : null;
    const seeding = performance.now();
    const seeded = known ?? (await seed(dir));
    if (!known) writeFileSync(seedFile, JSON.stringify(seeded));
    process.stdout.write(
      known
        ? `  serving the ${STORIES.toLocaleString('en-US')} stories seeded before in ${dir}\n`
        : `  seeded ${STORIES.toLocaleString('en-US')} stories in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`,
    );
    process.stdout.write(`  ${CLIENTS} clients, ${SECONDS} s per class, every query fresh (no cache hit); /me every ${ME_EVERY_MS} ms on its own connection\n`);
    const baseline = process.env['SEARCH_COST_BENCH_BASELINE'];
    if (baseline) await measureServer('before (baseline)', resolve(baseline), dir, seeded);
    const here = fileURLToPath(new URL('../..', import.meta.url));
    const workerCounts = process.env['SEARCH_COST_BENCH_WORKERS']?.split(',') ?? [];
    if (workerCounts.length === 0) await measureServer(baseline ? 'after (this checkout)' : 'this checkout', here, dir, seeded);
    for (const workers of workerCounts) {
      await measureServer(`this checkout, ${workers} search worker(s)`, here, dir, seeded, { STORYLINE_SEARCH_WORKERS: workers });
    }
  } finally {
    if (kept === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** The owner, 7 members, 12 labels and 20,000 story creates appended as one batch (story-seeding.ts). */
export async function seed(dir: string): Promise<Seeded> {
  return withBenchOwner(configFromEnv({ STORYLINE_DATA: dir, PORT: '0' }), async ({ storyline, person, post }) => {
    const projectId = Number((await post('/projects', { name: 'Costly searches', new_account_name: 'Bench' }))['id']);
    const memberIds = [person.id];
    const initials = ['BR'];
    for (const name of MEMBERS) {
      const short = name.split(' ').map((part) => part[0]).join('');
      const membership = await post(`/projects/${projectId}/memberships`, { email: `${short.toLowerCase()}@example.com`, name, initials: short, role: 'member' });
      memberIds.push((membership['person'] as { id: number }).id);
      initials.push(short);
    }
    const labelIds: number[] = [];
    for (const name of LABELS) labelIds.push(Number((await post(`/projects/${projectId}/labels`, { name }))['id']));

    const random = seededRandom(20261128);
    const words = zipfWords(random, VOCABULARY);
    await appendStoryCreates(storyline, projectId, person.id, STORIES, () => {
      const currentState = pick(random, STATES);
      const storyType = pick(random, TYPES);
      const name = words(3 + Math.floor(random() * 5));
      return {
        name: name[0]!.toUpperCase() + name.slice(1),
        description: `${words(8 + Math.floor(random() * 33))}.`,
        story_type: storyType,
        current_state: currentState,
        ...(currentState === 'unscheduled' || storyType !== 'feature' ? {} : { estimate: pick(random, [0, 1, 2, 3]) }),
        requested_by_id: pick(random, memberIds),
        owner_ids: currentState === 'unscheduled' || random() < 0.2 ? [] : [pick(random, memberIds)],
        label_ids: [...new Set(Array.from({ length: Math.floor(random() * 3) }, () => pick(random, labelIds)))],
      };
    });
    return { token: person.api_token, projectId, initials };
  });
}
