// The indexed search (text index, candidates narrowed through the memory store's indexes, direct
// evaluation) returns exactly what a brute-force reading of the same query returns: every story tested
// against the parsed query, free text by the whole-word regular expression over the story's own text.
// Seeded random projects (their text index written through its projection) and
// seeded random queries: words, prefixes, phrases, punctuation, non-Latin letters, states, labels,
// negation, AND / OR, parentheses, done stories.
import { expect } from 'chai';
import fc from 'fast-check';
import { createMemoryReadStore } from '../../../../src/infra/read-store/memory-read-store.js';
import type { Doc } from '../../../../src/ports/read-store.js';
import type { SearchNode, TextWord } from '../../../../src/domain/search/search-ast.js';
import { parseSearchQuery } from '../../../../src/domain/search/search-parser.js';
import { searchProject, type SearchTools } from '../../../../src/queries/search/search-project.js';
import type { KeptPerProject, Sized } from '../../../../src/queries/search/kept-per-project.js';
import { compileFilter } from '../../../../src/infra/read-store/memory-filter.js';
import { textPattern } from '../../../../src/queries/search/search-text-pattern.js';
import { seededRandom } from '../../../support/seeded-random.js';
import { seedStoryWords } from '../../../support/story-words-seed.js';
import { typedReadModels } from '../../../../src/projections/documents.js';

const P = 1;
const DONE_BEFORE = 1_000;
const VOCABULARY = ['web', 'webhook', 'Webhooks', 'login', 'LOG', 'log_in', 'café', 'CAFÉ', 'кот', 'Кошка', 'c', 'x1', 'ǅungla', 'ſun'];
const SEPARATORS = [' ', ' ', ' ', '-', '.', ', ', '\n', '++ ', '(', ') '];
const STATES = ['unstarted', 'started', 'accepted'];
const LABELS = [7, 8];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function textOf(random: () => number, words: number): string {
  let text = '';
  for (let i = 0; i < words; i++) text += pick(random, VOCABULARY) + pick(random, SEPARATORS);
  return text.trim();
}

function storiesOf(random: () => number): Doc[] {
  return Array.from({ length: 60 }, (_, index) => {
    const state = pick(random, STATES);
    const doc: Doc = {
      id: 100 + index, project_id: random() < 0.9 ? P : 2, name: textOf(random, 1 + Math.floor(random() * 4)), current_state: state,
      label_ids: LABELS.filter(() => random() < 0.4), owner_ids: [], rank: `S${String(index).padStart(3, '0')}`,
    };
    if (random() < 0.7) doc.description = textOf(random, Math.floor(random() * 8));
    if (state === 'accepted') doc.accepted_at = random() < 0.5 ? 500 : 1_500;
    return doc;
  });
}

function termOf(random: () => number): string {
  const word = pick(random, VOCABULARY);
  switch (Math.floor(random() * 9)) {
    case 0:
      return `${word.slice(0, 1 + Math.floor(random() * word.length))}*`;
    case 1:
      return `"${textOf(random, 2)}"`;
    case 2:
      return `name:${word}`;
    case 3:
      return `description:${word},${pick(random, VOCABULARY)}`;
    case 4:
      return `state:${pick(random, STATES)}`;
    case 5:
      return `label:"label ${pick(random, LABELS)}"`;
    case 6:
      return `"${word}${pick(random, ['-', '.', '++'])}"`;
    default:
      return word;
  }
}

function queryOf(random: () => number, depth = 0): string {
  const parts: string[] = [];
  const count = 1 + Math.floor(random() * 3);
  for (let i = 0; i < count; i++) {
    const negate = random() < 0.25 ? '-' : '';
    parts.push(negate + (depth < 2 && random() < 0.25 ? `(${queryOf(random, depth + 1)})` : termOf(random)));
    if (i < count - 1) parts.push(pick(random, ['', 'AND', 'OR']));
  }
  return parts.filter((part) => part !== '').join(' ');
}

/** The brute-force reading of a parsed query on one story. */
function holds(node: SearchNode, story: Doc): boolean {
  const contains = (field: string, word: TextWord) => typeof story[field] === 'string' && new RegExp(textPattern(word), 'i').test(story[field] as string);
  switch (node.kind) {
    case 'and':
      return holds(node.left, story) && holds(node.right, story);
    case 'or':
      return holds(node.left, story) || holds(node.right, story);
    case 'not':
      return !holds(node.operand, story);
    case 'text':
      return contains('name', node.word) || contains('description', node.word);
    case 'words':
      return node.words.some((word) => contains(node.field, word));
    case 'values':
      if (node.field === 'state') return node.values.includes(story.current_state as string);
      if (node.field === 'label') return node.values.some((name) => (story.label_ids as number[]).includes(Number(name.replace('label ', ''))));
      throw new Error(`no brute force for ${node.field}`);
    default:
      throw new Error(`no brute force for ${node.kind}`);
  }
}

/** Keeps whatever is built, always current (one query's read models do not change). */
function keptForever<T extends Sized>(): KeptPerProject<T> {
  const kept = new Map<number, T>();
  return {
    current: async (projectId) => kept.get(projectId) ?? null,
    valueOf: async (projectId, build) => {
      if (!kept.has(projectId)) kept.set(projectId, await build());
      return kept.get(projectId)!;
    },
  };
}

const isDone = (story: Doc) => story.current_state === 'accepted' && (story.accepted_at as number) < DONE_BEFORE;

describe('indexed search against brute force', () => {
  it('returns exactly the stories the parsed query holds for, done ones left out', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        const random = seededRandom(seed);
        const stories = storiesOf(random);
        const store = createMemoryReadStore();
        await store.collection('stories').ensureIndexes([{ field: 'project_id' }, { field: 'label_ids' }]);
        await store.collection('stories').write(stories.map((doc) => ({ op: 'insert', doc })));
        await store.collection('labels').write(LABELS.map((id) => ({ op: 'insert', doc: { id, project_id: P, name: `label ${id}` } })));
        await seedStoryWords(store, stories);
        for (let i = 0; i < 10; i++) {
          const text = queryOf(random);
          const query = parseSearchQuery(text, 'query')!;
          const matching = stories.filter((story) => story.project_id === P && holds(query, story));
          const expected = matching.filter((story) => !isDone(story)).map((story) => story.id);
          // Every evaluation: one store filter (a short query by default), sets over the project's rows,
          // and sets over rows and a text index kept as the search worker keeps them.
          const evaluations: Array<[string, SearchTools]> = [
            ['one store filter', { test: compileFilter, setsFromTerms: Infinity }],
            ['sets', { test: compileFilter, setsFromTerms: 0 }],
            ['sets over kept indexes', { test: compileFilter, texts: keptForever(), rows: keptForever() }],
          ];
          for (const [evaluation, tools] of evaluations) {
            const result = await searchProject(typedReadModels((name) => store.collection(name)), {
              projectId: P, text, parameter: 'query', searcherId: null, now: 2_000, timeZone: 'Etc/UTC', doneBefore: DONE_BEFORE,
            }, tools);
            expect(result.stories.stories.map((story) => story.id).sort(), `${text} (seed ${seed}, ${evaluation})`).to.deep.equal(expected.sort());
            expect(result.stories.total_hits_with_done, text).to.equal(matching.length);
          }
        }
      }),
      { numRuns: 60, seed: 20261123 },
    );
  });
});
