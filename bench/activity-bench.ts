// Latency of page 1 of a project's activity feed (GET /projects/:id/activity, default limit 100) with
// 1,000 and with 1,000,000 events in the project. The feed reads the project stream backwards from the
// project version, so both should cost about the same: target ratio (1M / 1k) at most 1.5.
//
// Events are generated straight into a temporary SQLite event store (large appends), and the route
// handler is called directly with the read models it needs (project, account, people), so the figure is
// the feed's own work: reading the page, rendering every activity, and nothing of HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { activityResources } from '../src/api/resources/activity.js';
import { activityFeeds } from '../src/queries/activity-feeds.js';
import type { ApiRequest, RouteDefinition } from '../src/api/route-table.js';
import { EVENT_SCHEMA, streams, type NewEvent } from '../src/domain/events.js';
import { openSqliteEventStore, type SqliteEventStore } from '../src/infra/event-store/sqlite-event-store.js';
import { createMemoryReadStore } from '../src/infra/read-store/memory-read-store.js';
import { typedReadModels } from '../src/projections/documents.js';

const PROJECT_ID = 1;
const STORY_COUNT = 500;
const PEOPLE = [
  { id: 1, name: 'Alice Adams', initials: 'AA' },
  { id: 2, name: 'Bob Brown', initials: 'BB' },
];
const APPEND_BATCH = 10_000;
const WARM_UP = 100;
const RUNS = 300;

/** A realistic story update: state or estimate change with original and new values. */
function storyEvent(version: number, occurredAt: number, commandId: string): NewEvent {
  const storyId = 1000 + (version % STORY_COUNT);
  const states = ['unstarted', 'started', 'finished', 'delivered', 'accepted'];
  const state = states[version % states.length]!;
  const previous = states[(version + states.length - 1) % states.length]!;
  return {
    type: 'story_update',
    data: {
      changes: [
        {
          kind: 'story',
          change_type: 'update',
          id: storyId,
          name: `Story ${storyId}`,
          story_type: 'feature',
          original_values: { current_state: previous, updated_at: occurredAt - 1000 },
          new_values: { current_state: state, updated_at: occurredAt },
          rank: `r${storyId}`,
        },
      ],
      primary_resources: [{ kind: 'story', id: storyId, name: `Story ${storyId}`, story_type: 'feature' }],
    },
    meta: { schema: EVENT_SCHEMA, occurred_at: occurredAt, performed_by: PEOPLE[version % 2]!.id, command_id: commandId },
  };
}

async function fill(store: SqliteEventStore, count: number, now: number): Promise<void> {
  const stream = streams.project(PROJECT_ID);
  for (let first = 1; first <= count; first += APPEND_BATCH) {
    const last = Math.min(count, first + APPEND_BATCH - 1);
    const events: NewEvent[] = [];
    // One second apart, the newest a minute ago: every event is inside the six-month window. The events
    // of one append share its command id (the store derives each event's id from it and its index).
    const commandId = `bench-${first}`;
    for (let version = first; version <= last; version++) {
      events.push(storyEvent(version, now - 60_000 - (count - version) * 1000, commandId));
    }
    await store.append(stream, first - 1, events);
  }
}

interface Feed {
  events: number;
  /** One page-1 request, checked. */
  pageOne(): Promise<void>;
  close(): Promise<void>;
}

/** A temporary store holding `count` events of one project, and the feed's route over it. */
async function feedOver(count: number): Promise<Feed> {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-activity-bench-'));
  const store = await openSqliteEventStore({ path: join(dir, 'events.db') });
  const now = Date.now();
  const filling = performance.now();
  await fill(store, count, now);
  process.stdout.write(`  generated ${count.toLocaleString('en-US')} events in ${Math.round(performance.now() - filling)} ms\n`);

  const readStore = createMemoryReadStore();
  const project = { id: PROJECT_ID, name: 'Bench', account_id: 1, version: count };
  await readStore.collection('projects').write([{ op: 'insert', doc: project }]);
  await readStore.collection('accounts').write([{ op: 'insert', doc: { id: 1, name: 'Bench', plan: 'free' } }]);
  await readStore.collection('people').write(PEOPLE.map((doc) => ({ op: 'insert' as const, doc })));
  const unchanging = { stamp: () => 0, stampOf: () => 0 };
  const activity = activityFeeds({
    read: typedReadModels((name) => readStore.collection(name)),
    readModelChanges: unchanging,
    eventStore: store,
    settings: { activityWindowMonths: 6, enterpriseActivityWindowMonths: 25 },
    storyUrl: (id) => `http://bench.test/story/show/${id}`,
    epicUrl: (id) => `http://bench.test/epic/show/${id}`,
  });
  // The route's handler is called directly (no response cache): a read-model change stamp that never moves.
  const { routes } = activityResources({ queries: { activity }, readModelChanges: unchanging });
  const route = routes.find((r) => r.path === '/projects/:project_id/activity')!;
  const request = pageOneRequest(route, project, now);
  return {
    events: count,
    pageOne: () => handle(route, request, count),
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Measured {
  events: number;
  p50: number;
  p90: number;
}

/** Warms both feeds, then times them alternately so that both see the same JIT and GC conditions. */
async function measureAlternately(feeds: readonly Feed[]): Promise<Measured[]> {
  for (let i = 0; i < WARM_UP; i++) for (const feed of feeds) await feed.pageOne();
  const timings = feeds.map((): number[] => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [index, feed] of feeds.entries()) {
      const started = performance.now();
      await feed.pageOne();
      timings[index]!.push(performance.now() - started);
    }
  }
  return feeds.map((feed, index) => {
    const sorted = timings[index]!.sort((a, b) => a - b);
    return { events: feed.events, p50: sorted[Math.floor(RUNS * 0.5)]!, p90: sorted[Math.floor(RUNS * 0.9)]! };
  });
}

function pageOneRequest(route: RouteDefinition, project: { id: number; name: string; account_id: number; version: number }, now: number): ApiRequest {
  return {
    route,
    versionPrefix: '/services/v5',
    method: 'GET',
    params: { project_id: String(project.id) },
    query: {},
    body: {},
    rawBody: null,
    header: () => undefined,
    actor: null,
    project: { id: project.id, project, role: 'owner', public: false },
    accessTo: () => Promise.reject(new Error('not used by the project feed')),
    confirmPassword: () => Promise.reject(new Error('not used by the project feed')),
    clientAddress: '127.0.0.1',
    credentialsStillValid: async () => true,
    commandId: 'bench',
    now,
  };
}

/** One page-1 request; checks it returned the 100 newest activities so a broken feed cannot look fast. */
async function handle(route: RouteDefinition, request: ApiRequest, head: number): Promise<void> {
  const result = await route.handle(request);
  if (result.kind !== 'resource' || !Array.isArray(result.value) || result.value.length !== 100) {
    throw new Error('page 1 did not return 100 activities');
  }
  if (result.value[0]!['project_version'] !== head || result.pagination?.total !== head) {
    throw new Error('page 1 does not start at the project version');
  }
}

export async function run(): Promise<void> {
  const feeds = [await feedOver(1_000), await feedOver(1_000_000)];
  try {
    const [small, large] = await measureAlternately(feeds);
    const line = (m: Measured) =>
      `  page 1 of project activity, ${m.events.toLocaleString('en-US').padStart(9)} events: p50 ${m.p50.toFixed(2)} ms, p90 ${m.p90.toFixed(2)} ms\n`;
    process.stdout.write(line(small!));
    process.stdout.write(line(large!));
    const ratio = large!.p50 / small!.p50;
    process.stdout.write(`  ratio 1M / 1k (p50): ${ratio.toFixed(2)} (target <= 1.5) ${ratio <= 1.5 ? 'OK' : 'ABOVE TARGET'}\n`);
  } finally {
    for (const feed of feeds) await feed.close();
  }
}
