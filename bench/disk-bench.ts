// The read models on disk at scale, on the realistic log of realistic-log.ts (DISK_BENCH_EVENTS, default
// 1,000,000; generated once and cached under bench/.data/). Everything through the real `storyline`
// command in child processes; in one run:
//   (a) raw read + JSON.parse of the log (the floor of any rebuild) vs `storyline rebuild-projections`
//       (every projection from one read of the log per worker thread): target rebuild >= 50% of raw;
//       and what writing the rebuilt read models alone costs (the floor of any rebuild of this layout);
//   (b) start-up to the first 200 on /me after a clean stop: target <= 3 s; RSS when ready: <= 400 MB;
//   (c) an uncached stories page of 100 (a different project and offset every request): p50 <= 50 ms;
//   (d) 90 s of mixed load (reads of pages and stories, PUT story writes over 16 projects): RSS after
//       it <= 400 MB; the server is then SIGKILLed under that load;
//   (e) start-up to /me after the SIGKILL: <= 3 s;
//   (f) the activity page (GET /projects/:id/activity, 100 activities): uncached, the first request of
//       each project's page (p50), then hot beside a bare express app serving the same bytes, 3 rounds
//       interleaved, 10 connections: target ours >= 0.7 of express;
//   (g) the first writes to 8 projects at once after a start, with their state snapshots deleted (each
//       folds its project's whole history) and again after a restart (from the snapshots), /me polled.
// DISK_BENCH_SKIP_REBUILD=1 leaves (a) out; DISK_BENCH_REBUILD_ONLY=1 runs (a) alone.
// DISK_BENCH_PARTS=letters runs only those of (b)-(g) (e.g. `f`, `dg`): a server is still started as (b)
// does; without (e), (f) runs on that server.
//
// DISK_BENCH_COLD=1: a server whose files are not in the OS page cache (a machine with less memory or
// other services, a start after a reboot). Before each of (b)-(g) the OS caches are dropped (`sync`, then
// 3 into /proc/sys/vm/drop_caches: root only; otherwise the bench says so and runs warm), and during the
// mixed load (d) again every DISK_BENCH_COLD_DROP_SECONDS (default 5), as a kernel that reclaims the page
// cache proactively does: a machine with memory to spare would otherwise cache the files again within
// seconds. (a) stays warm: it compares a rebuild with a raw read of the same cached log.
// Every part prints the load average beside its figures, and the run starts with the CPU model: the
// machine may be shared, so compare figures of one run.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Histogram } from 'autocannon';
import Database from 'better-sqlite3';
import { streams } from '../src/domain/events.js';
import { openSqliteEventStore } from '../src/infra/event-store/sqlite-event-store.js';
import { projections } from '../src/projections/registry.js';
import { capture, freePort, measureReadRounds, medianRatio, startChild, stopChild, waitUntilServing } from './http-bench.js';
import { rawReadAndParse } from './replay-bench.js';
import { realisticLog, type RealisticLog } from './realistic-log.js';
import { median, percentile } from './stats.js';

const EVENTS = Number(process.env['DISK_BENCH_EVENTS'] ?? 1_000_000);
const MIXED_LOAD_S = Number(process.env['DISK_BENCH_LOAD_SECONDS'] ?? 90);
const COLD = process.env['DISK_BENCH_COLD'] === '1';
/** How often the caches are dropped during the mixed load (d) of a cold run. */
const COLD_DROP_EVERY_S = Number(process.env['DISK_BENCH_COLD_DROP_SECONDS'] ?? 5);
/** The parts of (b)-(g) to run (DISK_BENCH_PARTS; all when unset). */
const PARTS = new Set((process.env['DISK_BENCH_PARTS'] ?? 'bcdefg').toLowerCase());
const PREFIX = '/services/v5';
const cli = fileURLToPath(new URL('../src/infra/cli/main.js', import.meta.url));
const say = (line: string) => process.stdout.write(`${line}\n`);

export async function run(): Promise<void> {
  say(`disk bench on ${cpus()[0]?.model ?? 'an unknown CPU'} (${availableParallelism()} cores), load average ${load()}`);
  const cold = COLD ? coldCaches() : null;
  const log = await realisticLog(EVENTS, say);
  say(`disk bench: ${log.events.toLocaleString('en')} events, ${(log.logBytes / 1024 ** 3).toFixed(2)} GiB log, ${log.projectIds.length} projects`);
  const env = { STORYLINE_DATA: log.dir, STORYLINE_LOG_LEVEL: 'warn', HOST: '127.0.0.1' };

  // A first start builds readmodels.sqlite when it is missing (not a target: done once per log).
  if (!existsSync(join(log.dir, 'readmodels.sqlite'))) {
    const first = await startServer(env, log.token);
    say(`  first start (readmodels.sqlite built from the log): ${(first.readyMs / 1000).toFixed(1)} s`);
    await stopServer(first.child, 'SIGTERM');
  }

  // (a) (DISK_BENCH_SKIP_REBUILD=1 skips it: minutes at 1M events)
  if (process.env['DISK_BENCH_SKIP_REBUILD'] !== '1') await measureRebuild(log, env);
  else say('  (a) skipped (DISK_BENCH_SKIP_REBUILD=1)');
  if (process.env['DISK_BENCH_REBUILD_ONLY'] === '1') return;

  // (b)
  await cold?.drop();
  const clean = await startServer(env, log.token);
  if (PARTS.has('b')) say(`  (b) start-up to /me after a clean stop: ${(clean.readyMs / 1000).toFixed(2)} s (target <= 3 s); RSS when ready ${rssMb(clean.child)} MB (target <= 400); load average ${load()}`);

  // (c)
  if (PARTS.has('c')) {
    await cold?.drop();
    const page = await uncachedPages(clean.port, log, 300);
    say(`  (c) uncached stories page of 100: p50 ${page.p50.toFixed(1)} ms, p90 ${page.p90.toFixed(1)} ms over ${page.count} distinct pages (target p50 <= 50 ms); load average ${load()}`);
  }

  // (d)
  if (PARTS.has('d')) await measureMixedLoad(clean, log, cold);

  // (e) SIGKILL under write load, then restart
  let serving = clean;
  if (PARTS.has('e')) {
    // The load fails when the server dies under it: that failure is expected, and handled from the start
    // (a rejection with no handler yet during the wait below ended the bench).
    const killLoad = mixedLoad(clean.port, log, 3).done.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await stopServer(clean.child, 'SIGKILL');
    await killLoad;
    await cold?.drop();
    serving = await startServer(env, log.token);
    say(`  (e) start-up to /me after SIGKILL under load: ${(serving.readyMs / 1000).toFixed(2)} s (target <= 3 s); RSS when ready ${rssMb(serving.child)} MB; load average ${load()}`);
  }

  // (f)
  try {
    if (PARTS.has('f')) await measureActivityPages(serving.port, serving.child, log, cold);
  } finally {
    await stopServer(serving.child, 'SIGTERM');
  }

  // (g)
  if (PARTS.has('g')) await measureFirstWrites(log, env, cold);
}

/** (d): the mixed load on a started server, its RSS sampled every second. */
async function measureMixedLoad(server: { port: number; child: ChildProcess }, log: RealisticLog, cold: ColdCaches | null): Promise<void> {
  await cold?.drop();
  const dropping = cold?.dropEvery(COLD_DROP_EVERY_S);
  const mixed = mixedLoad(server.port, log, MIXED_LOAD_S);
  const sampled: number[] = [];
  const sampler = setInterval(() => sampled.push(rssMb(server.child)), 1000);
  const result = await mixed.done;
  clearInterval(sampler);
  await dropping?.stop();
  const afterLoad = rssMb(server.child);
  say(
    `  (d) ${MIXED_LOAD_S} s mixed load${dropping ? ` (OS caches dropped every ${COLD_DROP_EVERY_S} s: ${dropping.count()} times)` : ''}: ` +
      `${fmt(result.reads / MIXED_LOAD_S)} reads/s (p50 ${result.readLatency.p50} ms, p99 ${result.readLatency.p99} ms), ` +
      `${fmt(result.writes / MIXED_LOAD_S)} writes/s (p50 ${result.writeLatency.p50} ms, p99 ${result.writeLatency.p99} ms, max ${result.writeLatency.max} ms; target p99 < 2,000), ` +
      `${result.failed} failed${result.failed > 0 ? ` (${result.failures})` : ''} (target 0); ` +
      `RSS after ${afterLoad} MB, peak ${Math.max(...sampled, afterLoad)} MB (target <= 400); load average ${load()}`,
  );
}

/** The load average over 1, 5 and 15 minutes. */
function load(): string {
  return loadavg().map((value) => value.toFixed(2)).join(' ');
}

interface ColdCaches {
  /** Writes what is dirty, then drops the OS page cache, dentries and inodes. */
  drop(): Promise<void>;
  /** Drops them every `seconds` until stopped (a drop is not started while one runs). */
  dropEvery(seconds: number): { stop(): Promise<void>; count(): number };
}

/** Dropping the OS caches (DISK_BENCH_COLD=1), or null, said aloud, where this process may not (not root). */
function coldCaches(): ColdCaches | null {
  if (process.getuid?.() !== 0) {
    say('  DISK_BENCH_COLD=1, but not running as root: the OS caches cannot be dropped, so this run is NOT cold');
    return null;
  }
  say(`  DISK_BENCH_COLD=1: the OS caches are dropped before each of (b)-(g) and every ${COLD_DROP_EVERY_S} s during (d) (DISK_BENCH_COLD_DROP_SECONDS)`);
  const drop = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn('sh', ['-c', 'sync && echo 3 > /proc/sys/vm/drop_caches'], { stdio: 'inherit' });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`dropping the OS caches failed (exit ${code})`))));
    });
  return {
    drop,
    dropEvery(seconds) {
      let count = 0;
      let running: Promise<void> = Promise.resolve();
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        running = drop().then(() => void count++).finally(() => (busy = false));
      }, seconds * 1000);
      return {
        async stop() {
          clearInterval(timer);
          await running;
        },
        count: () => count,
      };
    },
  };
}

/** Projects whose first writes after a start (g) times: none of them written by (d). */
const FIRST_WRITE_PROJECTS = 8;

/**
 * (g): the first write to each of 8 projects at once after a start, while a project written just
 * before (its state loaded) is written one request after another and /me is polled: once with their
 * snapshots deleted from states.sqlite (each project's whole history folded), once more after a restart
 * (from the snapshots the first round stored). The other projects' snapshots stay: (d) of the next run
 * starts from them, as a server does. A cold run drops the OS caches after the start, before the writes.
 */
async function measureFirstWrites(log: RealisticLog, env: Record<string, string>, cold: ColdCaches | null): Promise<void> {
  const projects = log.projectIds.slice(-FIRST_WRITE_PROJECTS);
  const warmProject = log.projectIds[0]!;
  forgetStateSnapshots(join(log.dir, 'states.sqlite'), projects);
  for (const from of ['the whole history (their snapshots deleted)', 'their snapshots, after a restart']) {
    const server = await startServer(env, log.token);
    try {
      const measured = await firstWrites(server.port, log.token, projects, warmProject, cold);
      const sorted = [...measured.writesMs].sort((a, b) => a - b);
      say(
        `  (g) first writes to ${projects.length} projects at once after a start, from ${from}${cold ? ', OS caches dropped' : ''}: ${measured.writesMs.map((ms) => ms.toFixed(0)).join(' ')} ms ` +
          `(p95 ${percentile(sorted, 95).toFixed(0)} ms, target <= 1,000 from the snapshots; all in ${measured.allMs.toFixed(0)} ms); meanwhile ${measured.warmWrites} writes to a loaded project, slowest ${measured.slowestWarmWriteMs.toFixed(0)} ms, ` +
          `and /me ${measured.meAnswers} times, slowest ${measured.slowestMeMs.toFixed(0)} ms; load average ${load()}`,
      );
    } finally {
      await stopServer(server.child, 'SIGTERM');
    }
  }
}

/** Deletes the projects' rows of states.sqlite (src/infra/decision-state-snapshots), if the file has any. */
function forgetStateSnapshots(path: string, projects: readonly number[]): void {
  if (!existsSync(path)) return;
  const db = new Database(path);
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'stream_states'").all();
    if (tables.length === 0) return;
    const forget = db.prepare('DELETE FROM stream_states WHERE stream = ?');
    for (const project of projects) forget.run(streams.project(project));
  } finally {
    db.close();
  }
}

async function firstWrites(
  port: number,
  token: string,
  projects: readonly number[],
  warmProject: number,
  cold: ColdCaches | null,
): Promise<{ writesMs: number[]; allMs: number; slowestMeMs: number; meAnswers: number; slowestWarmWriteMs: number; warmWrites: number }> {
  const base = `http://127.0.0.1:${port}${PREFIX}`;
  const headers = { 'X-TrackerToken': token };
  const firstStory = async (project: number) => {
    const res = await fetch(`${base}/projects/${project}/stories?limit=1&fields=id`, { headers });
    return ((await res.json()) as Array<{ id: number }>)[0]!.id;
  };
  const rename = async (project: number, story: number, name: string) => {
    const res = await fetch(`${base}/projects/${project}/stories/${story}`, {
      method: 'PUT',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`write to project ${project}: ${res.status}`);
  };
  const storyIds = await Promise.all(projects.map(firstStory));
  const warmStory = await firstStory(warmProject);
  await rename(warmProject, warmStory, `Loaded before the first writes ${Date.now()}`);
  await cold?.drop();
  let writing = true;
  const polled = async (work: () => Promise<void>) => {
    let slowest = 0;
    let count = 0;
    while (writing) {
      const started = performance.now();
      await work();
      slowest = Math.max(slowest, performance.now() - started);
      count++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { slowest, count };
  };
  const polling = polled(async () => void (await (await fetch(`${base}/me`, { headers })).arrayBuffer()));
  const warmWriting = polled(() => rename(warmProject, warmStory, `Written beside the first writes ${Date.now()}`));
  const started = performance.now();
  const writesMs = await Promise.all(
    projects.map(async (project, index) => {
      const begun = performance.now();
      await rename(project, storyIds[index]!, `First write after a start ${Date.now()}`);
      return performance.now() - begun;
    }),
  );
  const allMs = performance.now() - started;
  writing = false;
  const [me, warm] = await Promise.all([polling, warmWriting]);
  return { writesMs, allMs, slowestMeMs: me.slowest, meAnswers: me.count, slowestWarmWriteMs: warm.slowest, warmWrites: warm.count };
}

/**
 * (a): raw read + parse of the log against `rebuild-projections`, in one run. Raw is measured before
 * and after the rebuild (the machine is shared: the ratio is taken against their mean), and so is the
 * floor of any rebuild through these projections: the log read through the event store and every
 * projection applied, nothing stored. All on a copy of the data directory: the rebuild writes
 * readmodels.sqlite, and the cached log stays as it was generated.
 */
async function measureRebuild(log: RealisticLog, env: Record<string, string>): Promise<void> {
  const copy = mkdtempSync(join(tmpdir(), 'storyline-disk-bench-rebuild-'));
  try {
    cpSync(log.dir, copy, { recursive: true });
    await measureRebuildIn(copy, { ...env, STORYLINE_DATA: copy });
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

async function measureRebuildIn(dir: string, env: Record<string, string>): Promise<void> {
  const events = join(dir, 'events.sqlite');
  rawReadAndParse(events); // warm the page cache for every measurement
  const before = rawReadAndParse(events);
  const floor = await projectionsAlone(events);
  const rebuild = rebuildAll(env);
  const after = rawReadAndParse(events);
  const store = storeAlone(join(dir, 'readmodels.sqlite'));
  const rawRate = (rateOf(before.events, before.ms) + rateOf(after.events, after.ms)) / 2;
  const floorRate = rateOf(floor.events, floor.ms);
  const rebuildRate = rateOf(rebuild.eventsRead, rebuild.ms);
  say(`  (a) raw read + parse ${fmt(rateOf(before.events, before.ms))} events/s before, ${fmt(rateOf(after.events, after.ms))} after the rebuild`);
  say(`      read + apply of every projection, nothing stored: ${fmt(floorRate)} events/s = ${pct(floorRate / rawRate)} of raw (the ceiling of any rebuild on one thread)`);
  const workers = env['STORYLINE_REBUILD_WORKERS'] ?? process.env['STORYLINE_REBUILD_WORKERS'] ?? String(availableParallelism());
  say(
    `      rebuild-projections (${workers} worker threads) ${fmt(rebuildRate)} events/s (${(rebuild.ms / 1000).toFixed(1)} s, peak RSS ${rebuild.peakMb} MB; working sets: ${fmt(rebuild.streamed)} written-once documents streamed out, ${fmt(rebuild.evicted)} moved out early over the heap budget, ${fmt(rebuild.reloaded)} brought back) = ${pct(rebuildRate / rawRate)} of raw (target >= 50%)`,
  );
  // No rebuild that applies these projections, serialises their documents and writes this layout through
  // one SQLite connection beats the inserts alone, nor the whole of that work spread evenly over the cores.
  const cores = availableParallelism();
  const insertBound = rateOf(rebuild.eventsRead, store.insertMs);
  const coresBound = rateOf(rebuild.eventsRead, Math.max(store.insertMs, (floor.ms + store.serialiseMs + store.insertMs) / cores));
  say(
    `      the store alone: the rebuilt generations' ${fmt(store.documents)} documents and ${fmt(store.entries)} index entries inserted in order into a fresh file (no journal, one connection) ${(store.insertMs / 1000).toFixed(1)} s, their documents serialised ${(store.serialiseMs / 1000).toFixed(1)} s: a rebuild writing this layout reaches at most ${fmt(insertBound)} events/s = ${pct(insertBound / rawRate)} of raw (the inserts alone), ${fmt(coresBound)} events/s = ${pct(coresBound / rawRate)} with the read + apply above, the serialising and the inserts spread over ${cores} cores without any other cost`,
  );
}

/** Rows per INSERT statement of storeAlone, and rows read from the rebuilt file at a time. */
const STORE_ALONE_ROWS = 256;
const STORE_ALONE_CHUNK = 100 * STORE_ALONE_ROWS;

/**
 * The floor of writing a rebuild's result: every table of the generations in `readModelsPath` (just
 * rebuilt: no other generation is left) copied into a fresh file in its key order, as fast as SQLite
 * inserts (no journal, no sync, multi-row statements, one transaction per table), and the cost of
 * serialising its documents (each `doc` parsed, untimed, then stringified, timed). Read a chunk at a
 * time, untimed; nothing is kept.
 */
function storeAlone(readModelsPath: string): { documents: number; entries: number; insertMs: number; serialiseMs: number } {
  const scratch = mkdtempSync(join(tmpdir(), 'storyline-disk-bench-store-'));
  const source = new Database(readModelsPath, { readonly: true });
  const target = new Database(join(scratch, 'store.sqlite'));
  target.pragma('journal_mode = OFF');
  target.pragma('synchronous = OFF');
  const timed = (work: () => void) => {
    const started = performance.now();
    work();
    return performance.now() - started;
  };
  const totals = { documents: 0, entries: 0, insertMs: 0, serialiseMs: 0 };
  try {
    const tables = source.prepare<[], { name: string; sql: string }>(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE '%\\_\\_g%' ESCAPE '\\'`).all();
    for (const { name, sql } of tables) {
      target.exec(sql);
      const columns = (source.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string }>).map((column) => column.name);
      const docColumn = columns.indexOf('doc');
      const row = `(${columns.map(() => '?').join(', ')})`;
      const insertMany = target.prepare(`INSERT INTO "${name}" VALUES ${Array(STORE_ALONE_ROWS).fill(row).join(', ')}`);
      const insertOne = target.prepare(`INSERT INTO "${name}" VALUES ${row}`);
      const insert = (rows: unknown[][]) => {
        let index = 0;
        for (; index + STORE_ALONE_ROWS <= rows.length; index += STORE_ALONE_ROWS) insertMany.run(rows.slice(index, index + STORE_ALONE_ROWS).flat());
        for (; index < rows.length; index++) insertOne.run(rows[index]!);
      };
      totals.insertMs += timed(() => target.exec('BEGIN'));
      let chunk: unknown[][] = [];
      const copyChunk = () => {
        if (docColumn >= 0) {
          const parsed = chunk.map((values) => JSON.parse(values[docColumn] as string) as unknown);
          totals.serialiseMs += timed(() => parsed.forEach((doc, index) => (chunk[index]![docColumn] = JSON.stringify(doc))));
          totals.documents += chunk.length;
        } else totals.entries += chunk.length;
        totals.insertMs += timed(() => insert(chunk));
        chunk = [];
      };
      for (const values of source.prepare(`SELECT * FROM "${name}"`).raw(true).iterate() as Iterable<unknown[]>) {
        chunk.push(values);
        if (chunk.length === STORE_ALONE_CHUNK) copyChunk();
      }
      copyChunk();
      totals.insertMs += timed(() => target.exec('COMMIT'));
    }
  } finally {
    source.close();
    target.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  if (totals.documents === 0) throw new Error('no generation to copy');
  return totals;
}

const rateOf = (events: number, ms: number) => (events * 1000) / ms;

/** The log through the event store's readAll with every projection applied, the writes dropped. */
async function projectionsAlone(path: string): Promise<{ events: number; ms: number }> {
  const store = await openSqliteEventStore({ path });
  const started = performance.now();
  let after = 0;
  let events = 0;
  let ops = 0;
  try {
    for (;;) {
      const batch = await store.readAll({ after, limit: 1000 });
      if (batch.length === 0) break;
      for (const projection of projections) for (const event of batch) for (const write of projection.apply(event)) ops += write.ops.length;
      events += batch.length;
      after = batch[batch.length - 1]!.position;
    }
  } finally {
    await store.close();
  }
  if (ops === 0) throw new Error('no projection wrote anything');
  return { events, ms: performance.now() - started };
}

const fmt = (value: number) => Math.round(value).toLocaleString('en');
const pct = (ratio: number) => `${(ratio * 100).toFixed(0)}%`;

export function rssMb(child: ChildProcess): number {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
  } catch {
    return 0;
  }
}

/** `storyline serve`, timed from spawn to the first 200 on /me. */
async function startServer(env: Record<string, string>, token: string): Promise<{ child: ChildProcess; port: number; readyMs: number }> {
  const port = await freePort();
  const started = performance.now();
  // DISK_BENCH_CPU_PROFILE=DIR: a V8 CPU profile of each server stopped with SIGTERM (a SIGKILLed one writes none).
  const profileDir = process.env['DISK_BENCH_CPU_PROFILE'];
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...flags, cli, 'serve'], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[serve] ${chunk}`));
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}${PREFIX}/me`, { headers: { 'X-TrackerToken': token } }).then((res) => res.status, () => 0);
    if (status === 200) return { child, port, readyMs: performance.now() - started };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not answer /me (exit ${child.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function stopServer(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}

/**
 * `storyline rebuild-projections` (all): events read and ms from its reports, peak RSS from the OS,
 * what its working sets moved out and brought back from their log lines.
 */
function rebuildAll(env: Record<string, string>): { eventsRead: number; ms: number; peakMb: number; evicted: number; reloaded: number; streamed: number } {
  const result = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, cli, 'rebuild-projections'], {
    env: { ...process.env, ...env, STORYLINE_LOG_LEVEL: 'info' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`rebuild-projections failed: ${result.stderr}`);
  // DISK_BENCH_REBUILD_LOG=FILE keeps the rebuild's log lines (progress, the working sets' figures) for a look at its phases.
  const kept = process.env['DISK_BENCH_REBUILD_LOG'];
  if (kept) writeFileSync(kept, result.stderr);
  const reports = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { eventsRead: number; ms: number });
  const lines = result.stderr.trim().split('\n');
  const peakKb = Number(lines.at(-1));
  // The working set's line (one per fold; the figures are summed).
  const workingSets = lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { message?: string; evicted?: number; reloaded?: number; streamed?: number })
    .filter((line) => line.message === 'rebuild working set written');
  const total = (field: 'evicted' | 'reloaded' | 'streamed') => workingSets.reduce((sum, line) => sum + (line[field] ?? 0), 0);
  return { eventsRead: reports[0]!.eventsRead, ms: reports[0]!.ms, peakMb: Math.round(peakKb / 1024), evicted: total('evicted'), reloaded: total('reloaded'), streamed: total('streamed') };
}

/**
 * (f): the first request of 100 projects' activity pages one at a time (nothing cached them), then one
 * project's page hot, beside a bare express app answering its captured bytes.
 */
async function measureActivityPages(port: number, child: ChildProcess, log: RealisticLog, cold: ColdCaches | null): Promise<void> {
  const headers = { 'X-TrackerToken': log.token };
  await cold?.drop();
  const pathOf = (project: number) => `${PREFIX}/projects/${project}/activity?limit=100`;
  const times: number[] = [];
  for (const project of log.projectIds.slice(0, 100)) {
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}${pathOf(project)}`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`activity page of project ${project}: ${res.status}`);
    times.push(performance.now() - started);
  }
  const path = pathOf(log.projectIds[0]!);
  const captured = await capture(port, path, headers);
  const dir = mkdtempSync(join(tmpdir(), 'storyline-disk-bench-activity-'));
  const capturedFile = join(dir, 'captured.json');
  writeFileSync(capturedFile, JSON.stringify([captured]));
  const expressPort = await freePort();
  const express = startChild(fileURLToPath(new URL('./http-bench-baseline.js', import.meta.url)), ['express', capturedFile], { PORT: String(expressPort) });
  try {
    await waitUntilServing(expressPort, path, {});
    await cold?.drop();
    const sorted = [...times].sort((a, b) => a - b);
    say(`  (f) activity page of 100 (${Math.round(Buffer.from(captured.bodyBase64, 'base64').length / 1024)} KiB): uncached p50 ${percentile(sorted, 50).toFixed(1)} ms, p90 ${percentile(sorted, 90).toFixed(1)} ms over ${times.length} projects; hot, 10 connections:`);
    const targets = [
      { name: 'storyline', port, child },
      { name: 'express', port: expressPort, child: express },
    ];
    const rounds = await measureReadRounds(targets, path, { connections: 10, rounds: 3, headers });
    const ratio = medianRatio(rounds, 'storyline', 'express');
    const p50 = median(rounds.map((round) => round.get('storyline')!.result.latency.p50));
    say(`      ours / bare express = ${ratio.toFixed(2)} (median of 3 rounds; target >= 0.7: ${ratio >= 0.7 ? 'met' : 'NOT met'}), our p50 ${p50} ms; load average ${load()}`);
  } finally {
    await stopChild(express);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sequential GETs of stories pages no request has asked for before (the response cache cannot help). */
async function uncachedPages(port: number, log: RealisticLog, count: number): Promise<{ p50: number; p90: number; count: number }> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const project = log.projectIds[(i * 7) % log.projectIds.length]!;
    const offset = 1 + ((i * 37) % 400);
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}${PREFIX}/projects/${project}/stories?limit=100&offset=${offset}`, { headers: { 'X-TrackerToken': log.token } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`stories page: ${res.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p90: percentile(times, 90), count };
}

/** Reads (pages of any project and offset, single stories) on 8 connections and PUT story writes on 16 connections over 16 projects. */
function mixedLoad(
  port: number,
  log: RealisticLog,
  seconds: number,
): { done: Promise<{ reads: number; writes: number; readLatency: Histogram; writeLatency: Histogram; failed: number; failures: string }> } {
  // Each request gets headers of its own: autocannon adds Content-Length to a PUT's headers object, and
  // a shared one made every later GET announce a body it never sent, so reads hung until their timeout
  // (the "reads starve under writes" of earlier runs).
  const readHeaders = () => ({ 'X-TrackerToken': log.token });
  const writeHeaders = () => ({ 'X-TrackerToken': log.token, 'Content-Type': 'application/json' });
  const writeProjects = log.projectIds.slice(0, 16);
  let n = 0;
  const reads = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 8,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          const i = n++;
          const project = log.projectIds[i % log.projectIds.length]!;
          return { ...req, headers: readHeaders(), path: `${PREFIX}/projects/${project}/stories?limit=100&offset=${i % 900}` };
        },
      },
    ],
  });
  let m = 0;
  const storyOf = new Map<number, number>();
  const writes = (async () => {
    for (const project of writeProjects) {
      const res = await fetch(`http://127.0.0.1:${port}${PREFIX}/projects/${project}/stories?limit=1&fields=id`, { headers: readHeaders() });
      const [story] = (await res.json()) as Array<{ id: number }>;
      storyOf.set(project, story!.id);
    }
    return autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: 16,
      duration: seconds,
      requests: [
        {
          method: 'PUT',
          setupRequest: (req) => {
            const i = m++;
            const project = writeProjects[i % writeProjects.length]!;
            return { ...req, headers: writeHeaders(), path: `${PREFIX}/projects/${project}/stories/${storyOf.get(project)}`, body: JSON.stringify({ name: `Edited under load ${i}` }) };
          },
        },
      ],
    });
  })();
  return {
    done: Promise.all([reads, writes]).then(([r, w]) => ({
      reads: r['2xx'],
      writes: w['2xx'],
      readLatency: r.latency,
      writeLatency: w.latency,
      failed: r.errors + r.timeouts + r.non2xx + w.errors + w.timeouts + w.non2xx,
      failures: `reads ${r.errors} errors / ${r.timeouts} timeouts / ${r.non2xx} non-2xx, writes ${w.errors} / ${w.timeouts} / ${w.non2xx}`,
    })),
  };
}
