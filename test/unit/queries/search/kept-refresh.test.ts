// What the search worker keeps between searches is brought up to date after writes, not built afresh
// (issue 30, item 2): a text index with some stories read again is the index a build from the documents
// as they now are gives, and a project's rows with some stories read again are the rows a fresh read in
// priority order gives, whatever was written: words added and dropped, stories added, deleted, moved to
// another project or to another place in the order.
import { expect } from 'chai';
import fc from 'fast-check';
import { createMemoryReadStore } from '../../../../src/infra/read-store/memory-read-store.js';
import type { Doc } from '../../../../src/ports/read-store.js';
import { typedReadModels } from '../../../../src/projections/documents.js';
import { buildProjectTextIndex, withStoriesReplaced, type ProjectTextIndex } from '../../../../src/queries/search/search-text-index.js';
import { refreshedStoryRows, type ProjectStoryRows } from '../../../../src/queries/search/search-sets.js';
import { searchProject, type SearchRequest } from '../../../../src/queries/search/search-project.js';
import type { KeptPerProject, Sized } from '../../../../src/queries/search/kept-per-project.js';
import { compileFilter } from '../../../../src/infra/read-store/memory-filter.js';
import { seededRandom } from '../../../support/seeded-random.js';

const P = 1;
const WORDS = ['ant', 'bee', 'cat', 'cow', 'dog', 'eel', 'elk', 'emu', 'fox', 'gnu', 'yak', 'zebu'];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function wordsOf(random: () => number): string[] {
  return Array.from({ length: Math.floor(random() * 5) }, () => pick(random, WORDS));
}

/** The index as searches read it: per list, each word's ids, and the words in order. */
function shapeOf(index: ProjectTextIndex): Record<string, { words: string[]; ids: Record<string, number[]> }> {
  const shape: Record<string, { words: string[]; ids: Record<string, number[]> }> = {};
  for (const [list, postings] of index.lists) {
    shape[list] = { words: [...postings.sortedWords], ids: Object.fromEntries([...postings.byWord].map(([word, ids]) => [word, [...ids]])) };
  }
  return shape;
}

function wordsDoc(random: () => number, id: number): Doc {
  return { id, project_id: random() < 0.9 ? P : 2, name_words: wordsOf(random), description_words: wordsOf(random) };
}

describe('kept search indexes brought up to date', () => {
  it('property (seeded): a text index with stories read again is the index built from the documents as they now are', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const random = seededRandom(seed);
        const before = new Map<number, Doc>();
        for (let id = 1; id <= 60; id++) if (random() < 0.8) before.set(id, wordsDoc(random, id));
        const inProject = (docs: Map<number, Doc>) => [...docs.values()].filter((doc) => doc.project_id === P);
        const kept = buildProjectTextIndex(inProject(before));
        const keptShape = shapeOf(kept);
        // Some stories written: new words, deleted, added, moved to the other project.
        const after = new Map(before);
        const written = [...new Set(Array.from({ length: 1 + Math.floor(random() * 8) }, () => 1 + Math.floor(random() * 70)))];
        for (const id of written) {
          if (after.has(id) && random() < 0.25) after.delete(id);
          else after.set(id, wordsDoc(random, id));
        }
        const refreshed = withStoriesReplaced(kept, written, written.flatMap((id) => (after.get(id)?.project_id === P ? [after.get(id)!] : [])));
        expect(refreshed, `seed ${seed}`).to.not.equal(null);
        expect(shapeOf(refreshed!), `seed ${seed}: ${written.join(',')}`).to.deep.equal(shapeOf(buildProjectTextIndex(inProject(after))));
        expect(shapeOf(kept), 'the kept index is left as it was').to.deep.equal(keptShape);
      }),
      { numRuns: 200, seed: 20261128 },
    );
  });

  it('property (seeded): rows with stories read again are the rows read afresh, in priority order, and answer searches alike', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        const random = seededRandom(seed);
        const store = createMemoryReadStore();
        const stories = store.collection('stories');
        const story = (id: number): Doc => ({
          id,
          project_id: random() < 0.9 ? P : 2,
          rank: `a${pick(random, ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])}${id % 3}`,
          current_state: pick(random, ['unstarted', 'started', 'accepted']),
          story_type: pick(random, ['feature', 'bug']),
          estimate: Math.floor(random() * 4),
          label_ids: random() < 0.5 ? [7] : [],
          owner_ids: [],
        });
        await stories.write(Array.from({ length: 40 }, (_, n) => ({ op: 'insert' as const, doc: story(n + 1) })));
        const read = typedReadModels((name) => store.collection(name));
        const keeper = keptOnce<ProjectStoryRows>();
        const request: SearchRequest = { projectId: P, text: 'state:started OR type:bug', parameter: 'query', searcherId: null, now: 0, timeZone: 'Etc/UTC', doneBefore: null };
        const ids = async (rows: KeptPerProject<ProjectStoryRows> | null) =>
          (await searchProject(read, request, { test: compileFilter, rows, setsFromTerms: 0 })).stories.stories.map((found) => found.id);
        await ids(keeper);
        const written = [...new Set(Array.from({ length: 1 + Math.floor(random() * 6) }, () => 1 + Math.floor(random() * 45)))];
        for (const id of written) {
          if (random() < 0.2) await stories.write([{ op: 'delete', filter: { id } }]);
          else await stories.write([{ op: 'replace', filter: { id }, doc: story(id), upsert: true }]);
        }
        const kept = (await keeper.current(P))!;
        const refreshed = await refreshedStoryRows(read, kept, P, written);
        const afresh = await stories.find({ project_id: P }, { sort: { rank: 1 } });
        expect(refreshed.rows.map((row) => row.id), `seed ${seed}: ${written.join(',')}`).to.deep.equal(afresh.map((row) => row.id));
        expect(refreshed.rows.map((row) => row.current_state)).to.deep.equal(afresh.map((row) => row.current_state));
        for (const [position, row] of refreshed.rows.entries()) expect(refreshed.positions.get(row.id)).to.equal(position);
        expect(await ids(keptOnce(refreshed)), 'a search over the refreshed rows').to.deep.equal(await ids(null));
      }),
      { numRuns: 60, seed: 20261128 },
    );
  });
});

/** Keeps the first value built (or `value`) and answers it as current (the caller refreshes it by hand). */
function keptOnce<T extends Sized>(value?: T): KeptPerProject<T> & { current(projectId: number): Promise<T | null> } {
  let kept: T | null = value ?? null;
  return {
    current: async () => kept,
    valueOf: async (_projectId, build) => (kept ??= await build()),
  };
}
