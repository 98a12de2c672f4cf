// Replay rate of the read models against the raw rate of reading the same log.
//
// Builds a log of 1,000,000 realistic events (story creates and updates across 200 projects, shaped
// like src/domain/events.ts and encoded by the event codec) in a temporary SQLite file, written with raw
// inserts in one transaction (not measured). Then measures, in one run on one disk:
//   (a) raw read + parse: the log's rows read with better-sqlite3 in batches of the runner's size, and
//       JSON.parse of data and meta - the floor any replay pays;
//   (b) replay: a ProjectorRunner catching the resources projection up from position 0 into an empty
//       memory read store, through the SQLite event store adapter.
// Targets: (b) >= 100,000 events/s and >= 50% of (a).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { EVENT_SCHEMA } from '../src/domain/events.js';
import type { EventType, NewEvent, ResourceChange, Values } from '../src/domain/events.js';
import { encodeEvent } from '../src/infra/event-codec.js';
import { eventId } from '../src/ports/event-store.js';
import { openSqliteEventStore } from '../src/infra/event-store/sqlite-event-store.js';
import { ProjectorRunner } from '../src/infra/projector/projector-runner.js';
import { createMemoryReadStore } from '../src/infra/read-store/memory-read-store.js';
import type { Projection } from '../src/projections/projection.js';
import { resourcesProjection } from '../src/projections/resources/resources-projection.js';
import { seededRandom as random } from '../test/support/seeded-random.js';

const EVENTS = Number(process.env.REPLAY_BENCH_EVENTS ?? 1_000_000);
const PROJECTS = 200;
const BATCH = Number(process.env.REPLAY_BENCH_BATCH ?? 1000); // the runner's default
const EPOCH = Date.UTC(2024, 0, 1);
const STATES = ['unscheduled', 'unstarted', 'started', 'finished', 'delivered', 'accepted'] as const;
const TYPES = ['feature', 'bug', 'chore'] as const;
const WORDS = ['export', 'report', 'login', 'billing', 'search', 'iteration', 'csv', 'mobile', 'sync', 'invite', 'dashboard', 'webhook'];


interface StoryShape {
  id: number;
  name: string;
  story_type: string;
  current_state: string;
  estimate: number | null;
  owner_ids: number[];
}

interface ProjectShape {
  id: number;
  version: number;
  stories: StoryShape[];
}

/** The events of the fixture, in log order: each project's create, then story creates and updates. */
function* fixtureEvents(count: number): Generator<{ stream: string; version: number; event: NewEvent }> {
  const next = random(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const projects: ProjectShape[] = [];
  let storyIds = 1000;
  let commands = 0;
  const meta = (at: number) => ({ schema: EVENT_SCHEMA, occurred_at: at, performed_by: 100 + Math.floor(next() * 40), command_id: `bench-${++commands}` });

  for (let produced = 0; produced < count; produced++) {
    const at = EPOCH + produced * 1000;
    if (projects.length < PROJECTS && (projects.length === 0 || next() < 0.01)) {
      const project: ProjectShape = { id: 500 + projects.length, version: 1, stories: [] };
      projects.push(project);
      const values: Values = { id: project.id, name: `Project ${project.id}`, week_start_day: 'Monday', point_scale: '0,1,2,3', iteration_length: 1, public: false, created_at: at, updated_at: at };
      const change: ResourceChange = { kind: 'project', change_type: 'create', id: project.id, name: values.name as string, new_values: values };
      yield { stream: `project-${project.id}`, version: 1, event: { type: 'project_create', data: { changes: [change], primary_resources: [{ kind: 'project', id: project.id, name: values.name as string }] }, meta: meta(at) } };
      continue;
    }
    const project = pick(projects);
    project.version += 1;
    const creating = project.stories.length === 0 || next() < 0.15;
    let change: ResourceChange;
    let story: StoryShape;
    let type: EventType;
    if (creating) {
      story = { id: storyIds++, name: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} ${storyIds}`, story_type: pick(TYPES), current_state: 'unscheduled', estimate: next() < 0.5 ? 1 : null, owner_ids: [] };
      project.stories.push(story);
      type = 'story_create';
      change = {
        kind: 'story',
        change_type: 'create',
        id: story.id,
        name: story.name,
        story_type: story.story_type,
        story_priority: 'p3',
        rank: `a${project.stories.length.toString(36)}`,
        new_values: {
          id: story.id, project_id: project.id, name: story.name, story_type: story.story_type, current_state: story.current_state,
          estimate: story.estimate, story_priority: 'p3', requested_by_id: 101, owner_ids: [], label_ids: [], labels: [],
          description: next() < 0.3 ? `As a user I want ${pick(WORDS)} so that ${pick(WORDS)}` : null, created_at: at, updated_at: at,
        },
      };
    } else {
      story = pick(project.stories);
      type = 'story_update';
      const original: Values = { updated_at: at - 1000 };
      const changed: Values = { updated_at: at };
      const what = next();
      if (what < 0.5) {
        original.current_state = story.current_state;
        story.current_state = pick(STATES);
        changed.current_state = story.current_state;
        if (story.current_state === 'accepted') changed.accepted_at = at;
      } else if (what < 0.7) {
        original.estimate = story.estimate;
        story.estimate = Math.floor(next() * 4);
        changed.estimate = story.estimate;
      } else if (what < 0.85) {
        original.owner_ids = story.owner_ids;
        story.owner_ids = [...story.owner_ids.slice(-1), 100 + Math.floor(next() * 40)];
        changed.owner_ids = story.owner_ids;
      } else {
        original.name = story.name;
        story.name = `${story.name} (${pick(WORDS)})`;
        changed.name = story.name;
      }
      change = {
        kind: 'story', change_type: 'update', id: story.id, name: story.name, story_type: story.story_type, story_priority: 'p3',
        original_values: original, new_values: changed, ...(what > 0.97 ? { rank: `b${Math.floor(next() * 1e6).toString(36)}` } : {}),
      };
    }
    const primary = { kind: 'story', id: story.id, name: story.name, story_type: story.story_type, story_priority: 'p3' };
    yield { stream: `project-${project.id}`, version: project.version, event: { type, data: { changes: [change], primary_resources: [primary] }, meta: meta(at) } };
  }
}

export async function buildFixture(path: string): Promise<void> {
  await (await openSqliteEventStore({ path })).close(); // creates the schema exactly as the adapter does
  const db = new Database(path);
  db.pragma('synchronous = OFF');
  const insert = db.prepare('INSERT INTO events (position, id, stream, version, type, data, meta) VALUES (?, ?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    let position = 0;
    for (const { stream, version, event } of fixtureEvents(EVENTS)) {
      const encoded = encodeEvent(event);
      position += 1;
      insert.run(position, eventId(event.meta.command_id, 0), stream, version, encoded.type, encoded.data, encoded.meta);
    }
  })();
  db.close();
}

/**
 * (a) The floor: the same rows and batches, read the fastest way better-sqlite3 offers (raw arrays, no
 * row objects), JSON.parse of data and meta, nothing else.
 */
export function rawReadAndParse(path: string): { events: number; ms: number } {
  const db = new Database(path, { readonly: true });
  const select = db
    .prepare<[number, number], [number, string, string, number, string, string, string]>(
      'SELECT position, id, stream, version, type, data, meta FROM events WHERE position > ? ORDER BY position ASC LIMIT ?',
    )
    .raw(true);
  const started = performance.now();
  let events = 0;
  let after = 0;
  let checksum = 0;
  for (;;) {
    const rows = select.all(after, BATCH);
    if (rows.length === 0) break;
    for (const row of rows) {
      const data = JSON.parse(row[5]) as { changes: unknown[] };
      const meta = JSON.parse(row[6]) as { occurred_at: number };
      checksum += data.changes.length + (meta.occurred_at & 1);
    }
    events += rows.length;
    after = rows[rows.length - 1]![0];
  }
  const ms = performance.now() - started;
  db.close();
  if (checksum === 0) throw new Error('nothing was parsed');
  return { events, ms };
}

/** (b) Rebuilding the read models from the log through the projector runner. */
export async function replay(path: string): Promise<{ events: number; ms: number; stories: number }> {
  const replayed = await replayProjections(path, [resourcesProjection], 'stories');
  return { events: replayed.events, ms: replayed.ms, stories: replayed.documents };
}

/** Catching `projections` up from position 0 into an empty memory read store; counts `collection`. */
export async function replayProjections(path: string, projections: Projection[], collection: string): Promise<{ events: number; ms: number; documents: number }> {
  const eventStore = await openSqliteEventStore({ path });
  const readStore = createMemoryReadStore();
  const runner = new ProjectorRunner({ eventStore, readStore, projections, batchSize: BATCH });
  const started = performance.now();
  const report = await runner.start();
  const ms = performance.now() - started;
  const documents = await runner.collection(collection).count({});
  await runner.stop();
  await eventStore.close();
  return { events: report.eventsRead, ms, documents };
}

const rate = (events: number, ms: number) => Math.round((events * 1000) / ms);

/** REPLAY_BENCH_FIXTURE=<file> keeps the fixture there (built when missing), for profiling runs. */
export async function run(): Promise<void> {
  const kept = process.env.REPLAY_BENCH_FIXTURE;
  const dir = kept ? null : mkdtempSync(join(tmpdir(), 'storyline-replay-'));
  try {
    const path = kept ?? join(dir!, 'events.sqlite');
    if (!kept || !existsSync(kept)) {
      const built = performance.now();
      await buildFixture(path);
      console.log(`replay bench: ${EVENTS.toLocaleString('en')} events across ${PROJECTS} projects written in ${((performance.now() - built) / 1000).toFixed(1)} s (not measured)`);
    }

    rawReadAndParse(path); // warm the page cache and the JIT alike for both measurements
    const raw = rawReadAndParse(path);
    const replayed = await replay(path);
    const rawRate = rate(raw.events, raw.ms);
    const replayRate = rate(replayed.events, replayed.ms);
    console.log(`  (a) raw read + JSON.parse : ${rawRate.toLocaleString('en').padStart(9)} events/s (${raw.events} events in ${raw.ms.toFixed(0)} ms)`);
    console.log(`  (b) replay (resources)   : ${replayRate.toLocaleString('en').padStart(9)} events/s (${replayed.events} events in ${replayed.ms.toFixed(0)} ms, ${replayed.stories} stories)`);
    console.log(`  replay / raw             : ${((100 * replayRate) / rawRate).toFixed(0)}% (targets: >= 100,000 events/s and >= 50%)`);
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
