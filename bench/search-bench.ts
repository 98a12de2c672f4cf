// Latency of the search engine (queries/search/) on a project of 50,000 stories in the in-memory read
// store, the embedded default, with 10 queries in flight at once (as 10 connections would keep them;
// concurrency at the level of promises): searchProject for a label,
// a state plus an owner, a free-text word, a prefix and a phrase (p50 / p99 of the query function:
// parse, resolve names, read the text index, compile, run), and a stories page filtered with `filter=`
// against the same page without it (target: ratio of the p50s at most 1.5), measured in the same run.
// Stories have names of 3 to 7 words and descriptions of 8 to 40, drawn from a shared vocabulary with
// the skewed frequencies of real text (Zipf), from a seeded random source: every run searches the same
// project. The text index is seeded through its projection. Then the same over HTTP through the real
// server (search-http-bench.ts).
import { createMemoryReadStore } from '../src/infra/read-store/memory-read-store.js';
import type { Doc } from '../src/ports/read-store.js';
import { resourcesProjection } from '../src/projections/resources/resources-projection.js';
import { searchProject, storySearchFilters, type SearchRequest } from '../src/queries/search/search-project.js';
import { compileFilter } from '../src/infra/read-store/memory-filter.js';
import type { SearchReader } from '../src/queries/search/search-names.js';
import { seededRandom } from '../test/support/seeded-random.js';
import { seedStoryWords } from '../test/support/story-words-seed.js';
import { runOverHttp, zipfWords } from './search-http-bench.js';
import { typedReadModels } from '../src/projections/documents.js';

const PROJECT_ID = 1;
const STORIES = 50_000;
const LABELS = 40;
const PEOPLE = 12;
const IN_FLIGHT = 10;
const WARM_UP = 10;
const RUNS = 200;
const PAGE = { sort: { rank: 1 as const }, limit: 100 };
const NOW = Date.UTC(2026, 10, 23, 12);
const DAY = 86_400_000;

// Most frequent first: a word's weight falls with its rank (Zipf), as in real backlogs.
export const VOCABULARY = (
  'the to a and of in for on is user when with page not be should can it as an by from error add update ' +
  'fix new list story project button show data field api test view support allow display settings create ' +
  'delete edit search filter report export import account label epic owner velocity iteration backlog ' +
  'icebox review comment task attachment invite member token password email login logout session crash ' +
  'save release build deploy server client mobile android ios browser chrome safari firefox layout style ' +
  'color font icon modal dialog menu sidebar header footer table row column chart graph dashboard ' +
  'notification message alert banner toast permission role admin guest viewer workspace board panel ' +
  'card drag drop sort order rank priority estimate points state started finished delivered accepted ' +
  'rejected unscheduled bug feature chore date time zone calendar week month year sprint plan cycle ' +
  'metric analytics csv pdf upload download file image avatar profile name description title text ' +
  'markdown link url redirect oauth saml sso webhook integration github slack jira sync queue worker ' +
  'job retry timeout cache index query database migration schema backup restore performance slow fast ' +
  'memory leak cpu disk network latency throughput load scale shard replica cluster docker kubernetes ' +
  'helm terraform config environment staging production canary rollback feature_flag experiment'
).split(' ');
const STATES = ['unscheduled', 'unstarted', 'planned', 'started', 'finished', 'delivered', 'accepted', 'rejected'];
const TYPES = ['feature', 'feature', 'feature', 'bug', 'chore', 'release'];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function story(id: number, random: () => number, words: (count: number) => string): Doc {
  const state = pick(random, STATES);
  const created = NOW - Math.floor(random() * 400) * DAY;
  const name = words(3 + Math.floor(random() * 5));
  const doc: Doc = {
    id,
    project_id: PROJECT_ID,
    name: name[0]!.toUpperCase() + name.slice(1),
    description: `${words(8 + Math.floor(random() * 33))}. See #${id}.`,
    story_type: pick(random, TYPES),
    current_state: state,
    story_priority: 'none',
    requested_by_id: 1 + Math.floor(random() * PEOPLE),
    owner_ids: random() < 0.3 ? [] : [1 + Math.floor(random() * PEOPLE)],
    follower_ids: [],
    label_ids: Array.from({ length: Math.floor(random() * 3) }, () => 100 + Math.floor(random() * LABELS)),
    blocked_story_ids: [],
    created_at: created,
    updated_at: created + DAY,
    rank: `${state === 'unscheduled' ? 'U' : 'S'}${String(id).padStart(8, '0')}`,
  };
  if (random() < 0.8) doc.estimate = pick(random, [0, 1, 2, 3, 5, 8]);
  if (state === 'accepted') doc.accepted_at = created + 3 * DAY;
  return doc;
}

async function seededProject(): Promise<SearchReader> {
  const store = createMemoryReadStore();
  for (const collection of resourcesProjection.collections) await store.collection(collection.name).ensureIndexes(collection.indexes);
  const random = seededRandom(20261123);
  const people: Doc[] = Array.from({ length: PEOPLE }, (_, index) => ({
    id: index + 1, name: `Person ${String.fromCharCode(65 + index)} Example`, initials: `P${String.fromCharCode(65 + index)}`, username: `person${index + 1}`,
  }));
  await store.collection('people').write(people.map((doc) => ({ op: 'insert', doc })));
  await store.collection('project_memberships').write(people.map((person) => ({ op: 'insert', doc: { id: person.id, project_id: PROJECT_ID, person_id: person.id, role: 'member' } })));
  await store.collection('labels').write(Array.from({ length: LABELS }, (_, index) => ({ op: 'insert', doc: { id: 100 + index, project_id: PROJECT_ID, name: `label ${index}` } })));
  const words = zipfWords(random, VOCABULARY);
  const stories: Doc[] = Array.from({ length: STORIES }, (_, index) => story(1000 + index, random, words));
  for (let start = 0; start < stories.length; start += 5000) {
    await store.collection('stories').write(stories.slice(start, start + 5000).map((doc) => ({ op: 'insert', doc })));
  }
  await seedStoryWords(store, stories);
  return typedReadModels((name) => store.collection(name));
}

interface Timing {
  p50: number;
  p99: number;
}

/** RUNS calls of `run`, IN_FLIGHT at a time; each call timed from its own start to its own end. */
async function time(run: () => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < WARM_UP; i++) await run();
  const samples: number[] = [];
  let started = 0;
  const worker = async () => {
    while (started < RUNS) {
      started++;
      const start = performance.now();
      await run();
      samples.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length * 0.5)]!, p99: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))]! };
}

export async function run(): Promise<void> {
  if (process.env.SEARCH_BENCH_ONLY !== 'http') await runInMemory();
  await runOverHttp(VOCABULARY);
}

/** `searchProject` and filtered pages at the query level, in the memory read store (SEARCH_BENCH_ONLY=http skips it). */
async function runInMemory(): Promise<void> {
  const seeding = performance.now();
  const read = await seededProject();
  process.stdout.write(`  seeded ${STORIES.toLocaleString('en-US')} stories (and their text index) in the memory read store in ${Math.round(performance.now() - seeding)} ms\n`);
  const request = (text: string, parameter = 'query'): SearchRequest => ({
    projectId: PROJECT_ID, text, parameter, searcherId: 1, now: NOW, timeZone: 'Etc/UTC', doneBefore: NOW - 14 * DAY,
  });
  process.stdout.write(`  ${IN_FLIGHT} queries in flight, ${RUNS} timed per line (target p99 < 50 ms for the first three)\n`);
  for (const text of ['label:"label 7"', 'state:started owner:PC', 'webhook', 'dash*', '"memory leak"', 'name:crash -state:accepted']) {
    const result = await searchProject(read, request(text), { test: compileFilter });
    const timing = await time(() => searchProject(read, request(text), { test: compileFilter }));
    process.stdout.write(
      `  searchProject ${JSON.stringify(text).padEnd(30)} ${String(result.stories.total_hits).padStart(6)} hits: p50 ${timing.p50.toFixed(1)} ms, p99 ${timing.p99.toFixed(1)} ms\n`,
    );
  }
  const stories = read('stories');
  const plain = await time(() => stories.find({ project_id: PROJECT_ID }, PAGE));
  process.stdout.write(`  stories page (limit 100) without filter: p50 ${plain.p50.toFixed(1)} ms, p99 ${plain.p99.toFixed(1)} ms\n`);
  for (const filterText of ['state:started,finished label:"label 3"', 'type:feature -state:accepted', 'type:feature', 'webhook OR owner:PA']) {
    const filtered = await time(async () => stories.find((await storySearchFilters(read, request(filterText, 'filter'))).filter, PAGE));
    const ratio = filtered.p50 / plain.p50;
    process.stdout.write(
      `  same page, filter=${JSON.stringify(filterText)}: p50 ${filtered.p50.toFixed(1)} ms, p99 ${filtered.p99.toFixed(1)} ms; ` +
        `ratio to the plain page (p50) ${ratio.toFixed(2)} (target <= 1.5) ${ratio <= 1.5 ? 'OK' : 'ABOVE TARGET'}\n`,
    );
  }
}
