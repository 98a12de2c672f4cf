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

/**
 * Past this many (stories read again x words of a list), a refresh builds the index afresh: finding the
 * stories' former words means looking in every word's list.
 */
const MOST_REFRESH_LOOKUPS = 4_000_000;

/**
 * The index with the stories `ids` as `docs` now hold them (their story_words documents of the
 * project; a story among `ids` without one has left the index): their former entries taken out of every
 * word's list, their words' lists given them. The index given is left as it is (searches may be reading
 * it); lists not touched are shared. Null when a refresh would cost more than a build.
 */
export function withStoriesReplaced(index: ProjectTextIndex, ids: readonly number[], docs: readonly Doc[]): ProjectTextIndex | null {
  const changed = new Set(ids);
  let bytes = index.bytes;
  const lists = new Map<IndexedWordList, WordPostings>();
  for (const [list, postings] of index.lists) {
    if (changed.size * postings.byWord.size > MOST_REFRESH_LOOKUPS) return null;
    const byWord = new Map(postings.byWord);
    const gone = new Set<string>();
    const fresh: string[] = [];
    for (const [word, posting] of postings.byWord) {
      if (!ids.some((id) => holdsId(posting, id))) continue;
      const left = posting.filter((id) => !changed.has(id));
      bytes -= 4 * (posting.length - left.length);
      if (left.length > 0) byWord.set(word, left);
      else {
        byWord.delete(word);
        gone.add(word);
        bytes -= WORD_BYTES + 2 * word.length;
      }
    }
    const added = new Map<string, number[]>();
    for (const doc of docs) {
      const words = doc[list];
      if (!Array.isArray(words)) continue;
      for (const word of new Set(words)) if (typeof word === 'string') added.set(word, [...(added.get(word) ?? []), doc.id]);
    }
    for (const [word, more] of added) {
      const posting = byWord.get(word);
      if (posting === undefined) {
        bytes += WORD_BYTES + 2 * word.length;
        if (gone.has(word)) gone.delete(word);
        else fresh.push(word);
      }
      const merged = Int32Array.from(new Set([...(posting ?? []), ...more])).sort();
      bytes += 4 * (merged.length - (posting?.length ?? 0));
      byWord.set(word, merged);
    }
    lists.set(list, { byWord, sortedWords: gone.size + fresh.length === 0 ? postings.sortedWords : withWords(postings.sortedWords, gone, fresh) });
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

/** The ids as an array of their own (a loop into an array of their length: Array.from walks a typed array's iterator, ten times slower). */
export function idsArray(ids: AscendingIds): number[] {
  const array = new Array<number>(ids.length);
  for (let at = 0; at < ids.length; at++) array[at] = ids[at]!;
  return array;
}

/** Whether the ascending `ids` hold `id` (binary search). */
export function holdsId(ids: AscendingIds, id: number): boolean {
  const at = firstAtLeast(ids, id);
  return at < ids.length && ids[at] === id;
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

/** The ordered words without `gone`, with `fresh` (none of them there before) put in their places. */
function withWords(sorted: readonly string[], gone: ReadonlySet<string>, fresh: readonly string[]): string[] {
  const words = gone.size === 0 ? [...sorted] : sorted.filter((word) => !gone.has(word));
  for (const word of fresh) words.splice(firstAtLeast(words, word), 0, word);
  return words;
}

/** The position of the first value of the ascending `sorted` not before `value` (binary search). */
function firstAtLeast<T extends number | string>(sorted: ArrayLike<T>, value: T): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
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
