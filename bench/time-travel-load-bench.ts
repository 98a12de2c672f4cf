// Cold time travel under load (`npm run bench -- time-travel-load`): a stream of cold `as_of_version`
// requests must not take the server's memory with it nor hold the other requests.
//
// The project of the time-travel benchmark (TIME_TRAVEL_BENCH_EVENTS events, default 100,000: about
// 20,000 stories, written through the command handler; bench/time-travel-bench.ts), with the
// project-snapshots reaction caught up. `storyline serve` runs in a child process (its RSS is the
// server's alone); then 340 `GET /projects/{id}/stories?as_of_version=N&limit=20` over distinct seeded
// versions (TIME_TRAVEL_LOAD_REQUESTS), 4 at a time (TIME_TRAVEL_LOAD_CONCURRENCY), each version asked
// once (every answer a cold fold), each request on a connection of its own, while `/me` is polled every
// 20 ms. Reported per server: RSS before, after and at its peak (sampled every 100 ms), `/me` p99 and
// max, the cold GETs' p50 and p99, and how many were refused (503) or failed otherwise.
//
// TIME_TRAVEL_LOAD_BASELINE=<a built checkout> (e.g. a worktree of main after `npm run build`) runs the
// same load against that checkout's server first, on the same data directory, for ratios in one run.
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStoryline } from '../src/infra/composition.js';
import { configFromEnv } from '../src/infra/config.js';
import { PROJECT_SNAPSHOTS } from '../src/reactions/project-snapshots.js';
import { seededRandom } from '../test/support/seeded-random.js';
import { rssMb } from './disk-bench.js';
import { freePort, stopChild, waitUntilServing } from './http-bench.js';
import { percentile } from './stats.js';
import { historyLog } from './time-travel-bench.js';

const EVENTS = Number(process.env['TIME_TRAVEL_BENCH_EVENTS'] ?? 100_000);
const REQUESTS = Number(process.env['TIME_TRAVEL_LOAD_REQUESTS'] ?? 340);
const CONCURRENCY = Number(process.env['TIME_TRAVEL_LOAD_CONCURRENCY'] ?? 4);
const BASELINE = process.env['TIME_TRAVEL_LOAD_BASELINE'];
const PREFIX = '/services/v5';
const ME_EVERY_MS = 20;
const RSS_EVERY_MS = 100;

interface LoadFigures {
  rssBeforeMb: number;
  rssAfterMb: number;
  rssPeakMb: number;
  meP99: number;
  meMax: number;
  meAnswers: number;
  coldP50: number;
  coldP99: number;
  answered: number;
  refused: number;
  other: number;
  seconds: number;
}

export async function run(): Promise<void> {
  const log = await historyLog(EVENTS);
  const env = { STORYLINE_DATA: log.dir, PORT: '0' };

  // The read models, the reactions (snapshots every K versions) and the stream-state snapshots caught up
  // once, so that neither server below spends its first minutes on them.
  const storyline = await openStoryline(configFromEnv(env));
  storyline.reactions.start();
  const head = await storyline.eventStore.headPosition();
  await storyline.reactions.waitFor(head, PROJECT_SNAPSHOTS);
  await storyline.reactions.waitFor(head, 'notifications');
  await storyline.buildStateSnapshots();
  await storyline.close();

  const random = seededRandom(340);
  const versions = new Set<number>();
  while (versions.size < Math.min(REQUESTS, log.version)) versions.add(1 + Math.floor(random() * log.version));
  process.stdout.write(`  ${versions.size} cold GET /projects/{id}/stories?as_of_version=N&limit=20 over distinct versions of ${log.version.toLocaleString('en')}, ${CONCURRENCY} at a time, /me polled every ${ME_EVERY_MS} ms from another connection\n`);

  const servers: Array<[string, string]> = [];
  if (BASELINE) servers.push([`baseline (${BASELINE})`, join(BASELINE, 'dist/src/infra/cli/main.js')]);
  servers.push(['this checkout', fileURLToPath(new URL('../src/infra/cli/main.js', import.meta.url))]);
  const figures: LoadFigures[] = [];
  for (const [name, cli] of servers) {
    const measured = await measureLoad(cli, log.dir, log.token, log.projectId, [...versions]);
    figures.push(measured);
    const f = measured;
    process.stdout.write(
      `  ${name}: RSS ${f.rssBeforeMb} MB before, ${f.rssAfterMb} MB after, peak ${f.rssPeakMb} MB; /me p99 ${f.meP99.toFixed(0)} ms, max ${f.meMax.toFixed(0)} ms (${f.meAnswers} answers); ` +
        `cold GET p50 ${f.coldP50.toFixed(0)} ms, p99 ${f.coldP99.toFixed(0)} ms; ${f.answered} answered, ${f.refused} refused (503), ${f.other} other; ${f.seconds.toFixed(0)} s in all\n`,
    );
  }
  if (figures.length === 2) {
    const [before, after] = figures as [LoadFigures, LoadFigures];
    const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : (a / b).toFixed(2));
    process.stdout.write(
      `  this checkout / baseline: RSS growth (peak - before) ${ratio(after.rssPeakMb - after.rssBeforeMb, before.rssPeakMb - before.rssBeforeMb)}, ` +
        `/me p99 ${ratio(after.meP99, before.meP99)}, /me max ${ratio(after.meMax, before.meMax)}, cold p50 ${ratio(after.coldP50, before.coldP50)}, cold p99 ${ratio(after.coldP99, before.coldP99)}\n`,
    );
  }
}

/** One server from `cli` on `dir` under the load; stopped afterwards. */
async function measureLoad(cli: string, dir: string, token: string, projectId: number, versions: number[]): Promise<LoadFigures> {
  const port = await freePort();
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { ...process.env, STORYLINE_DATA: dir, PORT: String(port), HOST: '127.0.0.1', STORYLINE_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[serve] ${chunk}`));
  try {
    const headers = { 'X-TrackerToken': token };
    await waitUntilServing(port, `${PREFIX}/me`, headers);
    // Warm: the code paths of /me and of the live list run once before RSS is read.
    for (let i = 0; i < 20; i++) {
      await get(port, `${PREFIX}/me`, token);
      await get(port, `${PREFIX}/projects/${projectId}/stories?limit=20`, token);
    }
    const rssBeforeMb = rssMb(child);
    let rssPeakMb = rssBeforeMb;
    const sampler = setInterval(() => (rssPeakMb = Math.max(rssPeakMb, rssMb(child))), RSS_EVERY_MS);

    let loading = true;
    const meMs: number[] = [];
    const polling = (async () => {
      while (loading) {
        const started = performance.now();
        await get(port, `${PREFIX}/me`, token);
        meMs.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, ME_EVERY_MS));
      }
    })();

    const started = performance.now();
    const coldMs: number[] = [];
    let refused = 0;
    let other = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < versions.length) {
          const version = versions[next++]!;
          const t = performance.now();
          const status = await get(port, `${PREFIX}/projects/${projectId}/stories?as_of_version=${version}&limit=20`, token);
          if (status === 200) coldMs.push(performance.now() - t);
          else if (status === 503) refused++;
          else other++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    loading = false;
    await polling;
    clearInterval(sampler);
    rssPeakMb = Math.max(rssPeakMb, rssMb(child));
    const rssAfterMb = rssMb(child);
    const sortedMe = [...meMs].sort((a, b) => a - b);
    const sortedCold = [...coldMs].sort((a, b) => a - b);
    return {
      rssBeforeMb,
      rssAfterMb,
      rssPeakMb,
      meP99: percentile(sortedMe, 99),
      meMax: sortedMe.at(-1) ?? Number.NaN,
      meAnswers: meMs.length,
      coldP50: percentile(sortedCold, 50),
      coldP99: percentile(sortedCold, 99),
      answered: coldMs.length,
      refused,
      other,
      seconds,
    };
  } finally {
    await stopChild(child);
  }
}

/** The status of one GET on a connection of its own (0: the connection failed), its body read to the end. */
function get(port: number, path: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false, headers: { 'X-TrackerToken': token } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}
