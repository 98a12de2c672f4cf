// A project's text index held in memory: per word list (name, description), each word -> the ascending
// ids of the stories holding it, built from one read of the project's story_words documents. A text term
// is then answered from the posting lists of its words (and of the words its prefix begins) without any
// read: what a lookup in the store's index answers, at the cost of the ids touched.
//
// Kept between searches by a TextIndexCache (kept-per-project.ts; the search worker keeps them)
// while the read models do not change; a search that finds none kept builds one only when it would read
// the project's whole index anyway (search-names.ts), so short queries never pay for it.
import type { Doc } from '../../ports/read-store.js';
import { INDEXED_TEXT_FIELDS, type IndexedWordList } from '../../projections/search/story-words-projection.js';
import type { TextLookup } from './search-text-pattern.js';
import type { KeptPerProject } from './kept-per-project.js';

/** One word list's postings: each word's story ids (ascending), and the words in order (for prefixes). */
interface WordPostings {
  byWord: Map<string, Int32Array>;
  sortedWords: string[];
}

export interface ProjectTextIndex {
  readonly lists: ReadonlyMap<IndexedWordList, WordPostings>;
  /** Estimated heap bytes (what a cache of indexes counts against its budget). */
  readonly bytes: number;
}

/** The projects' text indexes kept between searches. */
export type TextIndexCache = KeptPerProject<ProjectTextIndex>;

/** Heap bytes of a word entry (the string, the Map entry, the typed array's header). */
const WORD_BYTES = 160;

/** The index of the project's story_words documents (any order). */
export function buildProjectTextIndex(docs: readonly Doc[]): ProjectTextIndex {
  const ordered = [...docs].sort((a, b) => a.id - b.id);
  const lists = new Map<IndexedWordList, WordPostings>();
  let bytes = 0;
  for (const list of Object.values(INDEXED_TEXT_FIELDS)) {
    const gathered = new Map<string, number[]>();
    for (const doc of ordered) {
      const words = doc[list];
      if (!Array.isArray(words)) continue;
      for (const word of words) {
        if (typeof word !== 'string') continue;
        const ids = gathered.get(word);
        if (ids === undefined) gathered.set(word, [doc.id]);
        else if (ids[ids.length - 1] !== doc.id) ids.push(doc.id);
      }
    }
    const byWord = new Map<string, Int32Array>();
    for (const [word, ids] of gathered) {
      byWord.set(word, Int32Array.from(ids));
      bytes += WORD_BYTES + 2 * word.length + 4 * ids.length;
    }
    lists.set(list, { byWord, sortedWords: [...byWord.keys()].sort() });
  }
  return { lists, bytes };
}

const EMPTY = new Int32Array(0);

/** Story ids in ascending order: an index's own posting list (not to be changed), or a list made from them. */
export type AscendingIds = Int32Array | readonly number[];

/**
 * The stories whose `list` holds every word of the lookup and a word beginning with its prefix, ascending,
 * and how many posting entries were read for it (the work to charge). A lookup of one word answers the
 * word's posting list itself.
 */
export function storiesHolding(index: ProjectTextIndex, list: IndexedWordList, lookup: TextLookup): { ids: AscendingIds; entries: number } {
  const postings = index.lists.get(list);
  if (postings === undefined) return { ids: EMPTY, entries: 0 };
  const parts = lookup.words.map((word) => postings.byWord.get(word) ?? EMPTY);
  if (lookup.prefix !== null) parts.push(prefixed(postings, lookup.prefix));
  const entries = parts.reduce((sum, part) => sum + part.length, 0);
  return { ids: parts.length === 1 ? parts[0]! : intersection(parts), entries };
}

/** Whether the ascending `ids` hold `id` (binary search). */
export function holdsId(ids: AscendingIds, id: number): boolean {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle]! < id) low = middle + 1;
    else high = middle;
  }
  return low < ids.length && ids[low] === id;
}

/** The ids of every word beginning with `prefix`, ascending, once each: the words' lists joined, sorted, repeats left out. */
function prefixed(postings: WordPostings, prefix: string): Int32Array {
  const words = postings.sortedWords;
  const lists: Int32Array[] = [];
  let total = 0;
  for (let at = firstAtLeast(words, prefix); at < words.length && words[at]!.startsWith(prefix); at++) {
    const list = postings.byWord.get(words[at]!)!;
    lists.push(list);
    total += list.length;
  }
  if (lists.length === 1) return lists[0]!;
  const joined = new Int32Array(total);
  let end = 0;
  for (const list of lists) {
    joined.set(list, end);
    end += list.length;
  }
  joined.sort();
  let kept = 0;
  for (let at = 0; at < joined.length; at++) if (at === 0 || joined[at] !== joined[at - 1]) joined[kept++] = joined[at]!;
  return joined.subarray(0, kept);
}

/** The position of the first word not before `word` (binary search). */
function firstAtLeast(words: readonly string[], word: string): number {
  let low = 0;
  let high = words.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (words[middle]! < word) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The ids in every one of the ascending lists, ascending: the shortest walked, the others advanced in step. */
function intersection(lists: readonly Int32Array[]): number[] {
  if (lists.length === 0) return [];
  const [shortest, ...others] = [...lists].sort((a, b) => a.length - b.length);
  const cursors = others.map(() => 0);
  const ids: number[] = [];
  outer: for (const id of shortest!) {
    for (let i = 0; i < others.length; i++) {
      const other = others[i]!;
      let at = cursors[i]!;
      while (at < other.length && other[at]! < id) at++;
      cursors[i] = at;
      if (at === other.length) break outer;
      if (other[at] !== id) continue outer;
    }
    ids.push(id);
  }
  return ids;
}
