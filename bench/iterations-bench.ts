// Latency of the iteration queries on a big project: five years of weekly iterations (260 done) and
// 20,000 stories (18,000 accepted across the years, 1,500 in the Backlog, 20 in progress, the rest in
// the Icebox), in the in-memory read store, filled through the real projections. Measures the query
// functions the HTTP routes call (no HTTP, no serialization): `scope=current`, the last done page
// (`scope=done&offset=-10`) and one iteration by number; p50 / p99 one at a time, then p99 with 10
// queries in flight. Target (issue 15): p99 < 50 ms. Then the same through the real server over HTTP
// (bench/iterations-http-bench.ts).
// Then the offline rebuild of the iteration and analytics projections over the replay benchmark's log
// (REPLAY_BENCH_EVENTS events, default 1,000,000), against the raw read + JSON.parse rate of the
// same log measured in the same run. Target (issue 15): >= 50% of raw.
import { EVENT_SCHEMA, type RecordedEvent, type ResourceChange } from '../src/domain/events.js';
import { guardOp } from '../src/infra/projector/replay-guard.js';
import { createMemoryReadStore } from '../src/infra/read-store/memory-read-store.js';
import type { ReadStore } from '../src/ports/read-store.js';
import { resourcesProjection } from '../src/projections/resources/resources-projection.js';
import { iterationStoriesProjection } from '../src/projections/iterations/iteration-stories-projection.js';
import { listIterations, getIteration } from '../src/queries/iterations/iterations-query.js';
import type { IterationReads } from '../src/queries/iterations/iteration-timeline.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storyTransitionsProjection } from '../src/projections/analytics/story-transitions-projection.js';
import { seededRandom } from '../test/support/seeded-random.js';
import { buildFixture, rawReadAndParse, replayProjections } from './replay-bench.js';
import { runIterationsHttp } from './iterations-http-bench.js';
import { typedReadModels } from '../src/projections/documents.js';

const PROJECT_ID = 1;
const WEEKS = 260;
const ACCEPTED = 18_000;
const BACKLOG = 1_500;
const STARTED = 20;
const ICEBOX = 20_000 - ACCEPTED - BACKLOG - STARTED;
const WEEK = 7 * 86_400_000;
const START = Date.UTC(2020, 0, 6); // a Monday
const NOW = START + WEEKS * WEEK + 2 * 86_400_000;
const RUNS = 200;
const IN_FLIGHT = 10;

function storyChange(id: number, rank: string, values: Record<string, unknown>): ResourceChange {
  return {
    kind: 'story',
    change_type: 'create',
    id,
    rank,
    new_values: { id, name: `Story ${id}`, story_type: 'feature', owner_ids: [], label_ids: [], follower_ids: [], requested_by_id: 1, story_priority: 'p3', created_at: START, updated_at: START, ...values },
  };
}

async function fill(store: ReadStore): Promise<void> {
  const random = seededRandom(2026);
  const changes: ResourceChange[] = [
    {
      kind: 'project',
      change_type: 'create',
      id: PROJECT_ID,
      new_values: { id: PROJECT_ID, name: 'Big', start_date: '2020-01-06', week_start_day: 'Monday', iteration_length: 1, time_zone: { kind: 'time_zone', olson_name: 'America/Los_Angeles', offset: '-08:00' }, velocity_averaged_over: 3, initial_velocity: 10, automatic_planning: true, created_at: START },
    },
  ];
  let id = 1;
  const pad = (n: number) => String(n).padStart(6, '0');
  for (let i = 0; i < ACCEPTED; i++, id++) {
    const acceptedAt = START + 86_400_000 + Math.floor(((i + random()) / ACCEPTED) * (WEEKS * WEEK - 86_400_000));
    changes.push(storyChange(id, `S0${pad(i)}`, { current_state: 'accepted', estimate: Math.floor(random() * 4), accepted_at: Math.floor(acceptedAt / 1000) * 1000 }));
  }
  for (let i = 0; i < STARTED; i++, id++) changes.push(storyChange(id, `S1${pad(i)}`, { current_state: 'started', estimate: 1 + Math.floor(random() * 3) }));
  for (let i = 0; i < BACKLOG; i++, id++) changes.push(storyChange(id, `S2${pad(i)}`, { current_state: 'unstarted', estimate: Math.floor(random() * 4) }));
  for (let i = 0; i < ICEBOX; i++, id++) changes.push(storyChange(id, `U${pad(i)}`, { current_state: 'unscheduled' }));
  let position = 0;
  for (const change of changes) {
    position++;
    const event: RecordedEvent = {
      type: 'story_create',
      data: { changes: [change], primary_resources: [] },
      meta: { schema: EVENT_SCHEMA, occurred_at: START, performed_by: 1, command_id: `c${position}` },
      id: `e${position}`,
      stream: `project-${PROJECT_ID}`,
      version: position,
      position,
    };
    for (const projection of [resourcesProjection, iterationStoriesProjection]) {
      for (const { collection, ops } of projection.apply(event)) await store.collection(collection).write(ops.map((op) => guardOp(op, position)));
    }
  }
  for (const projection of [resourcesProjection, iterationStoriesProjection]) {
    for (const { name, indexes } of projection.collections) await store.collection(name).ensureIndexes(indexes);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(name: string, query: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 20; i++) await query();
  const alone: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await query();
    alone.push(performance.now() - started);
  }
  alone.sort((a, b) => a - b);
  const together: number[] = [];
  for (let round = 0; round < RUNS / IN_FLIGHT; round++) {
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        const started = performance.now();
        await query();
        together.push(performance.now() - started);
      }),
    );
  }
  together.sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  process.stdout.write(
    `${name.padEnd(34)} p50 ${ms(percentile(alone, 50))}, p99 ${ms(percentile(alone, 99))}; ${IN_FLIGHT} in flight: p99 ${ms(percentile(together, 99))}\n`,
  );
}

export async function run(): Promise<void> {
  const store = createMemoryReadStore();
  const filling = performance.now();
  await fill(store);
  const read = typedReadModels((name) => store.collection(name));
  const reads: IterationReads = {
    projects: read('projects'),
    stories: read('stories'),
    iterationOverrides: read('iteration_overrides'),
    iterationStories: read('iteration_stories'),
    labels: read('labels'),
  };
  const current = await listIterations(reads, { projectId: PROJECT_ID, scope: 'current', offset: 0, limit: 10, now: NOW });
  const backlog = await listIterations(reads, { projectId: PROJECT_ID, scope: 'backlog', offset: 0, limit: 1, now: NOW });
  process.stdout.write(
    `project: ${WEEKS} done iterations, 20,000 stories (filled in ${Math.round(performance.now() - filling)} ms); current iteration ${current.iterations[0]!.number} ` +
      `with ${current.iterations[0]!.stories.length} stories, velocity ${current.iterations[0]!.velocity}, ${backlog.total} backlog iterations\n`,
  );
  await measure('scope=current', () => listIterations(reads, { projectId: PROJECT_ID, scope: 'current', offset: 0, limit: 10, now: NOW }));
  await measure('scope=done&offset=-10 (10 done)', () => listIterations(reads, { projectId: PROJECT_ID, scope: 'done', offset: -10, limit: 10, now: NOW }));
  await measure('iterations/{n} (a done one)', () => getIteration(reads, { projectId: PROJECT_ID, number: 130, now: NOW }));
  await measure('scope=current_backlog (limit 10)', () => listIterations(reads, { projectId: PROJECT_ID, scope: 'current_backlog', offset: 0, limit: 10, now: NOW }));
  await runIterationsHttp();
  await rebuildRate();
}

/** The analytics and iteration projections rebuilt from a log, as a share of the raw read rate. */
async function rebuildRate(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-iterations-'));
  try {
    const path = join(dir, 'events.sqlite');
    await buildFixture(path);
    rawReadAndParse(path); // warm the page cache and the JIT
    const raw = rawReadAndParse(path);
    const rate = (events: number, ms: number) => Math.round((events * 1000) / ms);
    const rawRate = rate(raw.events, raw.ms);
    process.stdout.write(`raw read + JSON.parse          ${rawRate.toLocaleString('en').padStart(9)} events/s (${raw.events} events)\n`);
    for (const [name, projection, collection] of [
      ['analytics (story_transitions)', storyTransitionsProjection, 'story_transitions'],
      ['iterations (iteration_stories)', iterationStoriesProjection, 'iteration_stories'],
    ] as const) {
      const rebuilt = await replayProjections(path, [projection], collection);
      const rebuiltRate = rate(rebuilt.events, rebuilt.ms);
      process.stdout.write(
        `rebuild ${name.padEnd(30)} ${rebuiltRate.toLocaleString('en').padStart(9)} events/s = ${((100 * rebuiltRate) / rawRate).toFixed(0)}% of raw (${rebuilt.documents} documents)\n`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
