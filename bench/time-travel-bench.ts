// Time travel on a project with 100,000 events: `GET /projects/:id/stories/:id?as_of_version=N` cold
// must stay within 2 s, warm it should cost what the same GET costs without `as_of_version`.
//
// "Cold" is a server that never folded the project: a fresh Storyline opened on the data directory
// (default stores: readmodels.sqlite, snapshots.sqlite) answering its first request, so no fold is in
// memory; with the project-snapshots reaction caught up, that fold starts from the snapshot at or below
// N. Reported, in one run:
//   1. cold without snapshots (snapshots.sqlite deleted, reactions not started) at N = the last version
//      and half of it: the fold from the first event, and its cost per event;
//   2. the time the project-snapshots reaction takes to snapshot the whole log, and the file's size;
//   3. cold with snapshots over seeded random versions, the last version and the worst case of the
//      interval (a version just below a snapshot): each, p50 and max;
//   4. warm p50 as of N vs the same GET live, alternated (ratio).
//
// The log is written by the real write path (deciders through the command handler) into one project:
// 20% story creates, 55% story updates, 25% task creates; the project and its owner are created over
// HTTP first. Cached under bench/.data/time-travel-<events>/ (gitignored).
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommandHandler } from '../src/commands/command-handler.js';
import { CachedStreamStates } from '../src/infra/stream-states/cached-stream-states.js';
import { streams } from '../src/domain/events.js';
import { decideCreateStory } from '../src/domain/story/create-story.js';
import { decideUpdateStory } from '../src/domain/story/update-story.js';
import { decideCreateTask } from '../src/domain/task/create-task.js';
import { openStoryline, type Storyline } from '../src/infra/composition.js';
import { configFromEnv } from '../src/infra/config.js';
import { SNAPSHOTS_FILE } from '../src/infra/data-directory.js';
import { openSqliteEventStore } from '../src/infra/event-store/sqlite-event-store.js';
import { IdAllocator } from '../src/infra/id-allocator.js';
import { PROJECT_SNAPSHOTS } from '../src/reactions/project-snapshots.js';
import { seededRandom } from '../test/support/seeded-random.js';

/** TIME_TRAVEL_BENCH_EVENTS sets the size (default 100,000). */
const EVENTS = Number(process.env['TIME_TRAVEL_BENCH_EVENTS'] ?? 100_000);
/** TIME_TRAVEL_BENCH_COLD sets how many seeded random versions are asked cold (default 8). */
const COLD_RANDOM = Number(process.env['TIME_TRAVEL_BENCH_COLD'] ?? 8);
const PREFIX = '/services/v5';
const WARM_RUNS = 300;
const TARGET_MS = 2000;

interface HistoryLog {
  dir: string;
  token: string;
  projectId: number;
  storyId: number;
  version: number;
}

export async function run(): Promise<void> {
  const log = await historyLog(EVENTS);
  const env = { STORYLINE_DATA: log.dir, PORT: '0' };
  const open = () => openStoryline(configFromEnv(env));
  const path = `/projects/${log.projectId}/stories/${log.storyId}`;
  const every = configFromEnv(env).timeTravelSnapshotEvery;

  // The read models and the notifications reaction caught up once (a first run builds readmodels.sqlite).
  let started = performance.now();
  let storyline = await open();
  storyline.reactions.start();
  await storyline.reactions.waitFor(await storyline.eventStore.headPosition(), 'notifications');
  await storyline.close();
  process.stdout.write(`  read models and notifications caught up over ${log.version.toLocaleString('en')} project events in ${Math.round(performance.now() - started)} ms\n`);

  // 1. Cold without snapshots.
  removeSnapshots(log.dir);
  storyline = await open();
  let foldMsPerEvent = 0;
  for (const version of [log.version, Math.floor(log.version / 2)]) {
    const ms = await firstAnswer(storyline, log, `${path}?as_of_version=${version}`, version);
    if (version === log.version) foldMsPerEvent = ms / version;
    process.stdout.write(`  cold without snapshots, as_of_version=${version.toLocaleString('en')}: ${Math.round(ms)} ms (${(ms * 1000 / version).toFixed(1)} us per event folded)\n`);
    await storyline.close();
    storyline = await open();
  }

  // 2. The reaction snapshots the whole log.
  started = performance.now();
  storyline.reactions.start();
  await storyline.reactions.waitFor(await storyline.eventStore.headPosition(), PROJECT_SNAPSHOTS);
  const reactionMs = performance.now() - started;
  await storyline.close();
  const bytes = snapshotFileBytes(log.dir);
  process.stdout.write(`  the ${PROJECT_SNAPSHOTS} reaction snapshotted the log (every ${every.toLocaleString('en')} versions: ${Math.floor(log.version / every)} snapshots per projection) in ${Math.round(reactionMs)} ms; ${SNAPSHOTS_FILE} ${(bytes / 1e6).toFixed(1)} MB\n`);

  // 3. Cold with snapshots: a fresh Storyline per version, its first request.
  const random = seededRandom(2016);
  const lastSnapshot = log.version - (log.version % every);
  const worst = lastSnapshot - 1; // every - 1 events after the snapshot below it
  const versions = [...new Set([log.version, lastSnapshot, worst, ...Array.from({ length: COLD_RANDOM }, () => 1 + Math.floor(random() * log.version))])];
  const colds: number[] = [];
  for (const version of versions) {
    storyline = await open();
    const ms = await firstAnswer(storyline, log, `${path}?as_of_version=${version}`, version);
    await storyline.close();
    colds.push(ms);
    const folded = version % every;
    process.stdout.write(`  cold with snapshots, as_of_version=${version.toLocaleString('en')} (${folded.toLocaleString('en')} events after the snapshot): ${Math.round(ms)} ms\n`);
  }
  const sorted = [...colds].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)]!;
  const max = sorted.at(-1)!;
  process.stdout.write(`  cold with snapshots over ${colds.length} versions: p50 ${Math.round(p50)} ms, max ${Math.round(max)} ms (target: within ${TARGET_MS} ms); the fold from the first event costs ${Math.round(foldMsPerEvent * log.version)} ms at ${log.version.toLocaleString('en')}\n`);

  // 4. Warm: the fold cached, as of N against the same GET live.
  storyline = await open();
  const { server, get } = await serve(storyline, log.token);
  try {
    const live = () => get(path);
    const past = () => get(`${path}?as_of_version=${log.version}`);
    for (let i = 0; i < 50; i++) {
      await live();
      await past();
    }
    const timings = { live: [] as number[], past: [] as number[] };
    for (let i = 0; i < WARM_RUNS; i++) {
      for (const [name, request] of [['live', live], ['past', past]] as const) {
        const t = performance.now();
        await request();
        timings[name].push(performance.now() - t);
      }
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const [liveMs, pastMs] = [median(timings.live), median(timings.past)];
    process.stdout.write(`  warm p50: live ${liveMs.toFixed(2)} ms, as_of_version ${pastMs.toFixed(2)} ms, ratio ${(pastMs / liveMs).toFixed(2)} (target: about 1)\n`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storyline.close();
  }
}

/** Milliseconds from sending `path` to a fresh `storyline` to its whole answer (checked: 200 at `version`). */
async function firstAnswer(storyline: Storyline, log: HistoryLog, path: string, version: number): Promise<number> {
  const { server, get } = await serve(storyline, log.token);
  try {
    const started = performance.now();
    const answer = await get(path);
    const ms = performance.now() - started;
    if (answer.status !== 200 || answer.version !== String(version)) throw new Error(`${path}: ${answer.status} ${answer.version}`);
    return ms;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function removeSnapshots(dir: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir, `${SNAPSHOTS_FILE}${suffix}`), { force: true });
}

function snapshotFileBytes(dir: string): number {
  return ['', '-wal'].reduce((sum, suffix) => {
    const file = join(dir, `${SNAPSHOTS_FILE}${suffix}`);
    return sum + (existsSync(file) ? statSync(file).size : 0);
  }, 0);
}

async function serve(storyline: Storyline, token: string): Promise<{ server: Server; get(path: string): Promise<{ status: number; version: string | null }> }> {
  const server = createServer(storyline.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    async get(path) {
      const res = await fetch(`http://127.0.0.1:${port}${PREFIX}${path}`, { headers: { 'X-TrackerToken': token } });
      await res.arrayBuffer();
      return { status: res.status, version: res.headers.get('x-tracker-project-version') };
    },
  };
}

/** The cached one-project log of `events` events, written when missing (time-travel-load-bench.ts shares it). */
export async function historyLog(events: number): Promise<HistoryLog> {
  const dir = fileURLToPath(new URL(`../../bench/.data/time-travel-${events}`, import.meta.url));
  const described = join(dir, 'log.json');
  if (existsSync(described)) return JSON.parse(readFileSync(described, 'utf8')) as HistoryLog;
  // An interrupted generation resumes: the project and its owner are kept in setup.json.
  const setupFile = join(dir, 'setup.json');
  if (!existsSync(setupFile)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(setupFile, JSON.stringify(await createProject(dir)));
  }
  const started = performance.now();
  const { token, personId, projectId } = JSON.parse(readFileSync(setupFile, 'utf8')) as { token: string; personId: number; projectId: number };
  // Bench data, not a client's: unsynced commits (bulkLoad) make the generation several times faster.
  const eventStore = await openSqliteEventStore({ path: join(dir, 'events.sqlite'), bulkLoad: true });
  const ids = new IdAllocator(eventStore, { blockSize: 5000 });
  const commands = new CommandHandler({ eventStore, states: new CachedStreamStates({ eventStore }), ids, projections: { waitFor: async () => undefined } });
  const random = seededRandom(1616);
  const stream = streams.project(projectId);
  const stories: number[] = [];
  let command = await eventStore.headPosition(); // command ids stay fresh across a resumed generation
  const meta = () => ({ commandId: `time-travel-bench-${++command}`, actorId: personId, now: Math.floor(Date.now() / 1000) * 1000 });
  let version = await eventStore.streamVersion(stream);
  while (version < events) {
    const roll = random();
    const story = stories[Math.floor(random() * stories.length)];
    if (story === undefined || roll < 0.2) {
      const outcome = await commands.execute(stream, (state, context) =>
        decideCreateStory({ name: `story ${stories.length + 1}`, description: `told at ${version}`, story_type: 'feature', current_state: 'unstarted', estimate: 1, labels: [`label ${stories.length % 20}`] }, state, context), meta());
      stories.push(outcome.subject.id);
    } else if (roll < 0.75) {
      await commands.execute(stream, (state, context) => decideUpdateStory({ story_id: story, name: `story ${story} at ${version}` }, state, context), meta());
    } else {
      await commands.execute(stream, (state, context) => decideCreateTask({ story_id: story, description: `task at ${version}` }, state, context), meta());
    }
    version = await eventStore.streamVersion(stream);
    if (version % 10_000 === 0) process.stdout.write(`  generating: ${version.toLocaleString('en')} / ${events.toLocaleString('en')} events\n`);
  }
  await eventStore.close();
  const log: HistoryLog = { dir, token, projectId, storyId: stories[0]!, version };
  writeFileSync(described, JSON.stringify(log));
  process.stdout.write(`  generated ${version.toLocaleString('en')} project events in ${Math.round((performance.now() - started) / 1000)} s\n`);
  return log;
}

async function createProject(dir: string): Promise<{ token: string; personId: number; projectId: number }> {
  const storyline = await openStoryline(configFromEnv({ STORYLINE_DATA: dir, STORYLINE_READ_STORE: 'memory', PORT: '0' }));
  const person = await storyline.addPerson({ email: 'history@example.com', name: 'History Bench', password: 'history-password', username: 'history' });
  const { server } = await serve(storyline, person.api_token);
  const port = (server.address() as AddressInfo).port;
  try {
    const res = await fetch(`http://127.0.0.1:${port}${PREFIX}/projects`, {
      method: 'POST',
      headers: { 'X-TrackerToken': person.api_token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'History', new_account_name: 'History company' }),
    });
    const project = (await res.json()) as { id: number };
    if (res.status !== 200) throw new Error(`POST /projects: ${res.status}`);
    return { token: person.api_token, personId: person.id, projectId: project.id };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storyline.close();
  }
}
