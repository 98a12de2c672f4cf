// Latency of the search engine (queries/search/) on a project of 50,000 stories in the in-memory read
// store, the embedded default: searchProject for a label, a state plus an owner, and a free-text word
// (p50 / p99 of the query function: parse, resolve names, compile, run), and a stories page filtered
// with `filter=` against the same page without it (target ratio of the p50s at most 1.5).
// Stories are generated with a seeded random source, so every run searches the same project.
import { createMemoryReadStore } from '../src/infra/read-store/memory-read-store.js';
import type { Doc } from '../src/ports/read-store.js';
import { resourcesProjection } from '../src/projections/resources/resources-projection.js';
import { searchProject, storySearchFilters, type SearchRequest } from '../src/queries/search/search-project.js';
import type { SearchReader } from '../src/queries/search/search-names.js';
import { seededRandom } from '../test/support/seeded-random.js';

const PROJECT_ID = 1;
const STORIES = 50_000;
const LABELS = 40;
const PEOPLE = 12;
const WARM_UP = 5;
const RUNS = 60;
const PAGE = { sort: { rank: 1 as const }, limit: 100 };
const NOW = Date.UTC(2026, 10, 23, 12);
const DAY = 86_400_000;

const WORDS = ('login page crash save release build deploy search filter report export import account project story label epic ' +
  'owner velocity iteration backlog icebox review comment task attachment invite member token password email webhook').split(' ');
const STATES = ['unscheduled', 'unstarted', 'planned', 'started', 'finished', 'delivered', 'accepted', 'rejected'];
const TYPES = ['feature', 'feature', 'feature', 'bug', 'chore', 'release'];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function story(id: number, random: () => number): Doc {
  const state = pick(random, STATES);
  const created = NOW - Math.floor(random() * 400) * DAY;
  const words = Array.from({ length: 3 + Math.floor(random() * 4) }, () => pick(random, WORDS));
  const doc: Doc = {
    id,
    project_id: PROJECT_ID,
    name: words.slice(0, 4).join(' '),
    description: `${words.join(' ')} ${id}`,
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
  const stories: Doc[] = Array.from({ length: STORIES }, (_, index) => story(1000 + index, random));
  for (let start = 0; start < stories.length; start += 5000) {
    await store.collection('stories').write(stories.slice(start, start + 5000).map((doc) => ({ op: 'insert', doc })));
  }
  return (name) => store.collection(name);
}

interface Timing {
  p50: number;
  p99: number;
}

async function time(run: () => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < WARM_UP; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(RUNS * 0.5)]!, p99: samples[Math.min(RUNS - 1, Math.floor(RUNS * 0.99))]! };
}

export async function run(): Promise<void> {
  const seeding = performance.now();
  const read = await seededProject();
  process.stdout.write(`  seeded ${STORIES.toLocaleString('en-US')} stories in the memory read store in ${Math.round(performance.now() - seeding)} ms\n`);
  const request = (text: string, parameter = 'query'): SearchRequest => ({
    projectId: PROJECT_ID, text, parameter, searcherId: 1, now: NOW, timeZone: 'Etc/UTC', doneBefore: NOW - 14 * DAY,
  });
  for (const text of ['label:"label 7"', 'state:started owner:PC', 'webhook']) {
    const result = await searchProject(read, request(text));
    const timing = await time(() => searchProject(read, request(text)));
    process.stdout.write(
      `  searchProject ${JSON.stringify(text).padEnd(26)} ${String(result.stories.total_hits).padStart(6)} hits: p50 ${timing.p50.toFixed(1)} ms, p99 ${timing.p99.toFixed(1)} ms\n`,
    );
  }
  const stories = read('stories');
  const plain = await time(() => stories.find({ project_id: PROJECT_ID }, PAGE));
  process.stdout.write(`  stories page (limit 100) without filter: p50 ${plain.p50.toFixed(1)} ms, p99 ${plain.p99.toFixed(1)} ms\n`);
  // One filter an index narrows (label); two every story must be tested against (type), the second also
  // against the done-story exclusion (the memory store leaves that to mingo).
  for (const filterText of ['state:started,finished label:"label 3"', 'type:feature -state:accepted', 'type:feature']) {
    const filtered = await time(async () => stories.find((await storySearchFilters(read, request(filterText, 'filter'))).filter, PAGE));
    const ratio = filtered.p50 / plain.p50;
    process.stdout.write(
      `  same page, filter=${JSON.stringify(filterText)}: p50 ${filtered.p50.toFixed(1)} ms, p99 ${filtered.p99.toFixed(1)} ms; ` +
        `ratio to the plain page (p50) ${ratio.toFixed(2)} (target <= 1.5) ${ratio <= 1.5 ? 'OK' : 'ABOVE TARGET'}\n`,
    );
  }
}
