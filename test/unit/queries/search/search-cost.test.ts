// What a long query costs and answers (issue 30, item 2), in both embedded read stores: an AND chain
// answers the intersection of its terms' answers and an OR chain their union, whatever its length and
// repeats (so the text lookups that narrow one another along an AND chain, the one pass over the text
// index after large lookups, and the merged id lists answer what each term alone answers); a repeated
// term is read once; a search over many stories gives the event loop turns before it completes (after a
// slice of units or of time, whichever comes first); and a search beyond its work budget is refused
// with the budget's 400.
import { expect } from 'chai';
import fc from 'fast-check';
import { DomainError } from '../../../../src/domain/errors.js';
import { createMemoryReadStore } from '../../../../src/infra/read-store/memory-read-store.js';
import { openSqliteReadStore } from '../../../../src/infra/read-store/sqlite-read-store.js';
import type { Doc, ReadStore } from '../../../../src/ports/read-store.js';
import { resourcesProjection } from '../../../../src/projections/resources/resources-projection.js';
import { SearchBudget, TURN_MS, WORK_SLICE } from '../../../../src/queries/search/search-budget.js';
import type { SearchReader } from '../../../../src/queries/search/search-names.js';
import { searchProject, storySearchFilters, type SearchRequest } from '../../../../src/queries/search/search-project.js';
import { compileFilter } from '../../../../src/infra/read-store/memory-filter.js';
import { seededRandom } from '../../../support/seeded-random.js';
import { seedStoryWords } from '../../../support/story-words-seed.js';
import { typedReadModels } from '../../../../src/projections/documents.js';

const P = 1;
const NOW = Date.UTC(2024, 0, 20);
const DONE_BEFORE = Date.UTC(2024, 0, 15);
/** In most stories: their lookups name more than a thousand stories each (large lookups). */
const FREQUENT = ['alpha', 'beta', 'gamma', 'delta'];
const RARE = ['webhook', 'login', 'café', 'кот', 'x1', 'log_in', 'zeta'];
const STORIES = 1500;

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function textOf(random: () => number): string {
  const words = FREQUENT.filter(() => random() < 0.9);
  for (let i = Math.floor(random() * 3); i > 0; i--) words.push(pick(random, RARE));
  return words.sort(() => random() - 0.5).join(random() < 0.8 ? ' ' : '-');
}

function storiesOf(random: () => number): Doc[] {
  return Array.from({ length: STORIES + 50 }, (_, index) => {
    const state = pick(random, ['unstarted', 'started', 'accepted']);
    const doc: Doc = {
      id: 1000 + index, project_id: index < STORIES ? P : 2, name: textOf(random), story_type: pick(random, ['feature', 'bug', 'chore']),
      current_state: state, label_ids: random() < 0.3 ? [7] : [], owner_ids: [], rank: `S${String(index).padStart(5, '0')}`,
      created_at: DONE_BEFORE - 10 * 86_400_000, updated_at: DONE_BEFORE,
    };
    if (random() < 0.9) doc.description = textOf(random);
    if (state === 'accepted') doc.accepted_at = random() < 0.5 ? DONE_BEFORE - 86_400_000 : DONE_BEFORE + 86_400_000;
    return doc;
  });
}

async function seeded(store: ReadStore, stories: readonly Doc[]): Promise<SearchReader> {
  for (const collection of resourcesProjection.collections) await store.collection(collection.name).ensureIndexes(collection.indexes);
  await store.collection('stories').write(stories.map((doc) => ({ op: 'insert', doc })));
  await store.collection('labels').write([{ op: 'insert', doc: { id: 7, project_id: P, name: 'label 7' } }]);
  await seedStoryWords(store, stories);
  return typedReadModels((name) => store.collection(name));
}

const stores: Array<[string, () => ReadStore]> = [
  ['memory', () => createMemoryReadStore()],
  ['SQLite', () => openSqliteReadStore({ path: ':memory:' })],
];

const request = (text: string, overrides: Partial<SearchRequest> = {}): SearchRequest => ({
  projectId: P, text, parameter: 'query', searcherId: null, now: NOW, timeZone: 'Etc/UTC', doneBefore: DONE_BEFORE, ...overrides,
});

/** The ids `filter=` pages over: every match, in priority order. */
async function matches(read: SearchReader, text: string): Promise<number[]> {
  const { filter, budget } = await storySearchFilters(read, request(text, { parameter: 'filter' }));
  return (await read('stories').find(filter, { sort: { rank: 1 }, fields: [], budget })).map((doc) => doc.id).sort((a, b) => a - b);
}

/** A term of the pool the chains are made of: words frequent and rare, prefixes, phrases, fields, negations. */
function termOf(random: () => number): string {
  const word = () => pick(random, random() < 0.5 ? FREQUENT : RARE);
  switch (Math.floor(random() * 10)) {
    case 0:
      return `${word().slice(0, 2)}*`;
    case 1:
      return `"${word()} ${word()}"`;
    case 2:
      return `name:${word()}`;
    case 3:
      return `description:${word()},${word()}`;
    case 4:
      return pick(random, ['state:started', 'label:"label 7"', 'type:bug', '"x1++"']);
    case 5:
      return `-${word()}`;
    default:
      return word();
  }
}

for (const [name, open] of stores) {
  describe(`search cost over the ${name} read store`, function () {
    this.timeout(120_000);
    let store: ReadStore;
    let read: SearchReader;
    before(async () => {
      store = open();
      read = await seeded(store, storiesOf(seededRandom(20261128)));
    });
    after(async () => store.close());

    it('property (seeded): a long AND chain answers the intersection of its terms, an OR chain their union, repeats included', async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
          const random = seededRandom(seed);
          const pool = Array.from({ length: 14 }, () => termOf(random));
          const alone = await Promise.all(pool.map(async (term) => new Set(await matches(read, term))));
          const chain = Array.from({ length: 20 + Math.floor(random() * 80) }, () => Math.floor(random() * pool.length));
          const all = (await matches(read, chain.map((at) => pool[at]).join(' '))).join(',');
          const any = (await matches(read, chain.map((at) => pool[at]).join(' OR '))).join(',');
          const everyStory = await matches(read, 'includedone:false');
          expect(all, `AND of ${chain.map((at) => pool[at]).join(' ')}`).to.equal(everyStory.filter((id) => chain.every((at) => alone[at]!.has(id))).join(','));
          expect(any, `OR of ${chain.map((at) => pool[at]).join(' ')}`).to.equal(everyStory.filter((id) => chain.some((at) => alone[at]!.has(id))).join(','));
          const groups = `(${pool.slice(0, 3).join(' OR ')}) (${pool.slice(3, 6).join(' OR ')}) -(${pool.slice(6).join(' ')})`;
          const expected = everyStory.filter((id) => [0, 1, 2].some((at) => alone[at]!.has(id)) && [3, 4, 5].some((at) => alone[at]!.has(id)) && ![6, 7, 8, 9, 10, 11, 12, 13].every((at) => alone[at]!.has(id)));
          expect((await matches(read, groups)).join(','), groups).to.equal(expected.join(','));
        }),
        { numRuns: 12, seed: 20261128 },
      );
    });

    it('reads a term written 200 times once, and answers as the term alone', async () => {
      const finds = new Map<string, number>();
      const counting: SearchReader = (collection) => {
        const inner = read(collection);
        return { ...inner, find: (filter, options) => (finds.set(collection, (finds.get(collection) ?? 0) + 1), inner.find(filter, options)) };
      };
      for (const text of ['webhook', '"alpha beta"', 'label:"label 7"']) {
        finds.clear();
        const once = await searchProject(counting, request(text), { test: compileFilter });
        const readsOnce = new Map(finds);
        finds.clear();
        const repeated = await searchProject(counting, request(Array(200).fill(text).join(' ')), { test: compileFilter });
        expect(repeated.stories, text).to.deep.equal(once.stories);
        expect(finds, text).to.deep.equal(readsOnce);
        expect(await matches(read, Array(200).fill(text).join(' OR ')), text).to.deep.equal(await matches(read, text));
      }
    });

    it('gives the event loop turns while it evaluates many stories', async () => {
      const order: string[] = [];
      // 30 distinct date conditions, each tested on every story of the project: more than a slice of work.
      const days = Array.from({ length: 30 }, (_, day) => `created:2023-01-${String(day + 1).padStart(2, '0')}`);
      const searching = searchProject(read, request(`type:feature -state:accepted (${days.join(' OR ')})`), { test: compileFilter }).then(() => order.push('search done'));
      setImmediate(() => order.push('a turn of the event loop'));
      await searching;
      expect(order).to.deep.equal(['a turn of the event loop', 'search done']);
      expect(STORIES * days.length).to.be.greaterThan(WORK_SLICE);
    });

    it('refuses a search beyond its work budget with a 400 on the parameter, saying it is too costly', async () => {
      for (const [text, parameter] of [['type:feature', 'query'], ['alpha OR beta', 'query'], ['gamma', 'filter']] as const) {
        const refused = await searchProject(read, request(text, { parameter, workLimit: 1000 }), { test: compileFilter }).then(() => null, (error: unknown) => error);
        expect(refused, text).to.be.instanceOf(DomainError);
        expect((refused as DomainError).code).to.equal('invalid_parameter');
        expect((refused as DomainError).details.validation_errors).to.deep.equal([{ field: parameter, problem: (refused as DomainError).details.general_problem }]);
        expect((refused as DomainError).details.general_problem).to.match(/too costly/);
      }
      expect((await searchProject(read, request('type:feature'), { test: compileFilter })).stories.total_hits).to.be.greaterThan(0);
    });
  });
}

describe('search budget turns', () => {
  /** Whether a turn of the event loop ran while `step` was awaited. */
  async function turnsDuring(step: () => Promise<void>): Promise<boolean> {
    let turned = false;
    setImmediate(() => (turned = true));
    await step();
    return turned;
  }

  /** Keeps the thread busy until `ms` have passed: work whose units understate it. */
  function busyFor(ms: number): void {
    const until = performance.now() + ms;
    while (performance.now() < until);
  }

  it('gives a turn on a charge of few units once TURN_MS have passed since the last turn, and when asked between steps', async () => {
    const budget = new SearchBudget('query');
    busyFor(TURN_MS + 1);
    expect(await turnsDuring(() => budget.charge(1))).to.equal(true);
    busyFor(TURN_MS + 1);
    expect(await turnsDuring(() => budget.turnIfDue())).to.equal(true);
  });

  it('gives a turn after WORK_SLICE units however little time they took', async () => {
    const budget = new SearchBudget('query');
    expect(await turnsDuring(() => budget.charge(WORK_SLICE))).to.equal(true);
  });
});
