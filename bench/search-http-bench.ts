// /search and `filter=` over HTTP, end to end through the real server (`storyline serve` in a child
// process, SQLite event log and read models on disk: the default STORYLINE_READ_STORE, so the word index
// `story_words` is read from SQLite), with autocannon in this process. A project of 50,000 stories whose
// names and descriptions are drawn from the search bench's Zipf vocabulary (seeded), created by the same
// decider the API uses and appended in one batch; the server builds its read models (text index
// included) on start. `SEARCH_HTTP_BENCH_DATA=DIR` keeps the seeded data directory there and serves it
// again on the next run (seeding and the first start take a few minutes on the 2-core machine).
//
// 10 connections, 5 s each after a 1 s warm-up: GET /search for a label, a state plus an owner and a
// free-text word (target p99 < 50 ms), and a stories page (limit 100) with `filter=` against the same
// page without it (target: ratio of the mean latencies at most 1.5 (whole-millisecond p50s cannot compare pages answered in 1-3 ms); both measured in this run): once with the byte
// cache as configured (every answer after the first of its key is answered from it: the key holds the
// searcher, their day and the current iteration's start besides the version), once with the cache off
// (every answer computed: what a cache miss costs), each time on a freshly started server.
import { emptyState } from '../src/domain/decision-states.js';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonResult } from 'autocannon';
import { streams } from '../src/domain/events.js';
import type { ProjectState } from '../src/domain/project-state.js';
import { decideCreateStory, type CreateStoryInput } from '../src/domain/story/create-story.js';
import { configFromEnv } from '../src/infra/config.js';
import { seededRandom } from '../test/support/seeded-random.js';
import { PREFIX, withBenchOwner } from './bench-owner.js';
import { freePort, line, startChild, stopChild, waitUntilServing } from './http-bench.js';
import { appendStoryCreates } from './story-seeding.js';

const STORIES = 50_000;
const CONNECTIONS = 10;
const DURATION_S = 5;
const WARM_UP_S = 1;
const LABELS = ['backend', 'frontend', 'ops', 'design', 'bug bash', 'mobile', 'api', 'billing'];
const STATES = ['unscheduled', 'unstarted', 'started', 'finished', 'delivered', 'accepted', 'rejected'] as const;

/** Draws `count` words by Zipf's law over `vocabulary` (most frequent first). */
export function zipfWords(random: () => number, vocabulary: readonly string[]): (count: number) => string {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= vocabulary.length; rank++) cumulative.push((total += 1 / rank));
  const word = () => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return vocabulary[low]!;
  };
  return (count) => Array.from({ length: count }, word).join(' ');
}

export async function runOverHttp(vocabulary: readonly string[]): Promise<void> {
  const kept = process.env.SEARCH_HTTP_BENCH_DATA;
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'storyline-search-http-bench-'));
  const children: Array<ReturnType<typeof startChild>> = [];
  try {
    const seeded = kept === undefined ? null : readSeeded(dir);
    const seeding = performance.now();
    const { token, projectId } = seeded ?? (await seed(dir, vocabulary));
    if (kept !== undefined) writeFileSync(join(dir, SEEDED_FILE), JSON.stringify({ token, projectId }));
    process.stdout.write(
      seeded
        ? `  over HTTP: serving the ${STORIES.toLocaleString('en-US')} stories seeded before in ${dir}\n`
        : `  over HTTP: seeded ${STORIES.toLocaleString('en-US')} stories in the log in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`,
    );
    const headers = { 'X-TrackerToken': token };
    const serve = async (extra: Record<string, string>) => {
      const port = await freePort();
      const child = startChild(fileURLToPath(new URL('../src/infra/cli/main.js', import.meta.url)), ['serve'], {
        STORYLINE_DATA: dir, PORT: String(port), HOST: '127.0.0.1', STORYLINE_LOG_LEVEL: 'error', ...extra,
      });
      children.push(child);
      const starting = performance.now();
      await waitUntilServing(port, `${PREFIX}/projects/${projectId}/search?query=webhook`, headers, 900_000);
      process.stdout.write(`  server up (read models built or caught up, text index included) and answering in ${((performance.now() - starting) / 1000).toFixed(1)} s\n`);
      return async (path: string) => {
        const url = `http://127.0.0.1:${port}${PREFIX}/projects/${projectId}${path}`;
        await autocannon({ url, connections: CONNECTIONS, duration: WARM_UP_S, headers });
        return autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
      };
    };
    /**
     * The plain stories page, then the same page with each filter, and the ratio of their mean latencies
     * (autocannon's p50 is whole milliseconds: cached pages answer in 1-3 ms, where it cannot tell 1.2 from 1.9).
     */
    const comparePages = async (measure: (path: string) => Promise<AutocannonResult>) => {
      const plain = await measure('/stories?limit=100');
      process.stdout.write(`  GET /stories?limit=100 (no filter)            ${line(plain)}\n`);
      for (const filter of ['state:started label:ops', 'webhook']) {
        const filtered = await measure(`/stories?limit=100&filter=${encodeURIComponent(filter)}`);
        const ratio = filtered.latency.mean / plain.latency.mean;
        process.stdout.write(
          `  GET /stories?limit=100&filter=${JSON.stringify(filter).padEnd(26)} ${line(filtered)}; mean latency ${filtered.latency.mean.toFixed(2)} vs ${plain.latency.mean.toFixed(2)} ms: ratio to the plain page ${ratio.toFixed(2)} (target <= 1.5) ${ratio <= 1.5 ? 'OK' : 'ABOVE TARGET'}\n`,
        );
      }
    };

    const searches = async (measure: (path: string) => Promise<AutocannonResult>) => {
      for (const query of ['label:ops', 'state:started owner:BR', 'webhook']) {
        const result = await measure(`/search?query=${encodeURIComponent(query)}`);
        process.stdout.write(`  GET /search?query=${JSON.stringify(query).padEnd(24)} ${line(result)}${result.latency.p99 < 50 ? '' : '  ABOVE TARGET'}\n`);
      }
    };

    process.stdout.write(`  ${CONNECTIONS} connections, ${DURATION_S} s each (target p99 < 50 ms for /search), byte cache as configured by default\n`);
    const cached = await serve({});
    await searches(cached);
    await comparePages(cached);
    await stopChild(children.pop()!);
    process.stdout.write('  the same with the byte cache off (STORYLINE_RESPONSE_CACHE_ENTRIES=0): every answer computed, as on a cache miss\n');
    const computed = await serve({ STORYLINE_RESPONSE_CACHE_ENTRIES: '0' });
    await searches(computed);
    await comparePages(computed);
  } finally {
    for (const child of children) await stopChild(child);
    if (kept === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** What a kept data directory was seeded with (SEARCH_HTTP_BENCH_DATA). */
const SEEDED_FILE = 'search-bench-seed.json';

function readSeeded(dir: string): { token: string; projectId: number } | null {
  const file = join(dir, SEEDED_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { token: string; projectId: number }) : null;
}

/** A person (initials BR), a project with labels, and 50,000 story creates appended as one batch. */
async function seed(dir: string, vocabulary: readonly string[]): Promise<{ token: string; projectId: number }> {
  return withBenchOwner(configFromEnv({ STORYLINE_DATA: dir, PORT: '0' }), async ({ storyline, person, post: call }) => {
    const projectId = Number((await call('/projects', { name: 'Searched project', new_account_name: 'Bench' }))['id']);
    const labelIds: number[] = [];
    for (const name of LABELS) labelIds.push(Number((await call(`/projects/${projectId}/labels`, { name }))['id']));

    const before = emptyState(streams.project(projectId)); // the same project without its stories: what a create costs there
    for (const event of await storyline.eventStore.readStream(streams.project(projectId))) before.evolve(event);
    const random = seededRandom(20261123);
    const words = zipfWords(random, vocabulary);
    const state = await appendStoryCreates(storyline, projectId, person.id, STORIES, () => {
      const currentState = STATES[Math.floor(random() * STATES.length)]!;
      const name = words(3 + Math.floor(random() * 5));
      return {
        name: name[0]!.toUpperCase() + name.slice(1),
        description: `${words(8 + Math.floor(random() * 33))}.`,
        current_state: currentState,
        ...(currentState === 'unscheduled' ? {} : { estimate: 1 + Math.floor(random() * 3) }),
        owner_ids: random() < 0.5 ? [person.id] : [],
        label_ids: Array.from(new Set(Array.from({ length: Math.floor(random() * 3) }, () => labelIds[Math.floor(random() * labelIds.length)]!))),
      };
    });
    const [empty, full] = [before, state].map((project) => createDecisionMicros(project, person.id));
    process.stdout.write(
      `  deciding a story create (no position; unscheduled and started alternately): ${full.toFixed(1)} µs with ${STORIES.toLocaleString('en-US')} stories, ${empty.toFixed(1)} µs with none (ratio ${(full / empty).toFixed(2)})\n`,
    );
    return { token: person.api_token, projectId };
  });
}

/** µs per story-create decision on `state` (decided, not folded: the state stays as it is), best of 5 rounds. */
function createDecisionMicros(state: ProjectState, actorId: number): number {
  const inputs: CreateStoryInput[] = [{ name: 'Unscheduled' }, { name: 'Started', current_state: 'started', estimate: 1 }];
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    for (let i = 0; i < 1000; i++) decideCreateStory(inputs[i % 2]!, state, { now: Date.UTC(2026, 6, 1), actorId, nextId: () => 1 });
    best = Math.min(best, ((performance.now() - start) / 1000) * 1000);
  }
  return best;
}
