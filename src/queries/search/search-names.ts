// Looks up, in the project's read models, the names and id sets a query refers to, so that compiling it
// stays pure: at most one query per kind (labels, epics, members and their people, unresolved blockers,
// attachments, reviews and review types), all at once, and only the kinds the query needs. Every read is
// charged to the request's work budget (ReadBudget).
//
// Text terms (free text, name:, description:) are looked up in the text index (story_words), one indexed
// read of ids per distinct term and field, one after the other: the stories holding the term's words,
// so the compiled filter names them by id. The text terms of the query's top-level AND chain narrow one
// another: once the first ones have left few stories, the rest of the chain is read from those stories'
// word lists, not looked up (`the to a and of ...` reads the entries of its first words, not of all 200);
// and after a few lookups of frequent words, the keys left come from the project's whole text index read
// once (search-text-index.ts), which the caller may keep for later searches, brought up to date after
// writes from the stories written (the search worker does): a search finding one kept reads no text
// index at all.
//
// A person reference (owner:, requester:, mywork:) names the project members whose initials, username,
// full name or id equal it (ignoring case); when none does, those whose name contains it.
import { normalizedLabelName } from '../../domain/project-state.js';
import type { Doc, Filter, ReadBudget, ReadCollection } from '../../ports/read-store.js';
import type { PersonReadDoc, ReadModelName, ReadModels, ReviewReadDoc, ReviewTypeReadDoc } from '../../projections/documents.js';
import { prefixRangeEnd } from '../../domain/search/search-words.js';
import { INDEXED_TEXT_FIELDS, STORY_WORDS, type IndexedTextField } from '../../projections/search/story-words-projection.js';
import type { SearchNode, SearchQuery, TextWord } from '../../domain/search/search-ast.js';
import { chainOperands } from '../../domain/search/search-normal-form.js';
import { nonEmpty, reviewKey, textKey, type SearchNames } from './search-compiler.js';
import { textLookup, type TextLookup } from './search-text-pattern.js';
import { buildProjectTextIndex, holdsId, idsArray, storiesHolding, withStoriesReplaced, type AscendingIds, type ProjectTextIndex, type TextIndexCache } from './search-text-index.js';

/** What the search reads: a read collection by its logical name (`stories`, `labels`, ...). */
export type SearchCollection<D extends Doc = Doc> = Pick<ReadCollection<D>, 'find' | 'count'>;
export type SearchReader = <N extends ReadModelName>(collection: N) => SearchCollection<ReadModels[N]>;

interface Needs {
  /** reviewKey(field, value) of every review term's value. */
  reviews: Map<string, { field: 'review' | 'review_status' | 'reviewer'; value: string }>;
  labels: Set<string>;
  epics: boolean;
  people: Set<string>;
  blocked: boolean;
  attachments: boolean;
  texts: TextNeed[];
}

interface TextNeed {
  field: IndexedTextField;
  word: TextWord;
  lookup: TextLookup;
}

function textNeeds(fields: readonly IndexedTextField[], words: readonly TextWord[]): TextNeed[] {
  return fields.flatMap((field) =>
    words.flatMap((word) => {
      const lookup = textLookup(word);
      return lookup === null ? [] : [{ field, word, lookup }];
    }),
  );
}

/** The text needs of one term (free text: name and description; name: / description: their field), else []. */
function termTextNeeds(node: SearchNode): TextNeed[] {
  if (node.kind === 'text') return textNeeds(['name', 'description'], [node.word]);
  if (node.kind === 'words') return textNeeds([node.field], node.words);
  return [];
}

function needsOf(query: SearchQuery): Needs {
  const needs: Needs = { reviews: new Map(), labels: new Set(), epics: false, people: new Set(), blocked: false, attachments: false, texts: [] };
  const pending: SearchNode[] = query ? [query] : [];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.kind === 'and' || node.kind === 'or') pending.push(node.left, node.right);
    else if (node.kind === 'not') pending.push(node.operand);
    else if (node.kind === 'text' || node.kind === 'words') needs.texts.push(...termTextNeeds(node));
    else if (node.kind === 'values') {
      const named = node.values.filter((value) => value !== '');
      if (node.field === 'label') for (const name of named) needs.labels.add(normalizedLabelName(name));
      if (node.field === 'epic') needs.epics = true;
      if (node.field === 'owner' || node.field === 'requester' || node.field === 'mywork' || node.field === 'reviewer') for (const ref of named) needs.people.add(ref);
      if (node.field === 'review' || node.field === 'review_status' || node.field === 'reviewer') {
        for (const value of named) needs.reviews.set(reviewKey(node.field, value), { field: node.field, value });
      }
    } else if (node.kind === 'flags') {
      if (node.flags.includes('epic')) needs.epics = true;
      if (node.flags.includes('blocked')) needs.blocked = true;
      if (node.flags.includes('attachment')) needs.attachments = true;
    }
  }
  return needs;
}

/**
 * The text needs of each text term of the top-level AND chain, in order, keeping only the terms whose
 * every need is used by such terms alone (a need also used under an OR or a `-` must be looked up whole).
 */
function narrowingTerms(query: SearchQuery, needs: Needs): TextNeed[][] {
  if (query === null) return [];
  const operands = query.kind === 'and' ? chainOperands(query) : [query];
  const terms = operands.map(termTextNeeds).filter((term) => term.length > 0);
  const uses = new Map<string, number>();
  for (const need of needs.texts) uses.set(textKey(need.field, need.word), (uses.get(textKey(need.field, need.word)) ?? 0) + 1);
  for (const term of terms) for (const need of term) uses.set(textKey(need.field, need.word), uses.get(textKey(need.field, need.word))! - 1);
  return terms.filter((term) => term.every((need) => uses.get(textKey(need.field, need.word)) === 0));
}

export async function resolveSearchNames(
  query: SearchQuery,
  projectId: number,
  read: SearchReader,
  budget: ReadBudget,
  texts: TextIndexCache | null = null,
): Promise<SearchNames> {
  const needs = needsOf(query);
  const inProject = (filter: Filter = {}): Filter => ({ project_id: projectId, ...filter });
  const none = Promise.resolve([]);
  const reviewsNeeded = needs.reviews.size > 0;
  const [labels, epics, people, unresolved, commented, reviews, reviewTypes] = await Promise.all([
    needs.labels.size > 0 ? read('labels').find(inProject({ name: { $in: [...needs.labels] } }), { budget }) : none,
    needs.epics ? read('epics').find(inProject(), { budget }) : none,
    needs.people.size > 0 ? membersOf(projectId, read) : none,
    needs.blocked ? read('blockers').find(inProject({ resolved: false }), { budget }) : none,
    needs.attachments ? read('comments').find(inProject(nonEmpty('file_attachment_ids')), { budget }) : none,
    reviewsNeeded ? read('reviews').find(inProject(), { budget }) : none,
    reviewsNeeded ? read('review_types').find(inProject(), { budget }) : none,
  ]);
  const epicLabelIds = new Map<string, number>();
  for (const epic of epics) if (typeof epic.label_id === 'number') epicLabelIds.set(epic.name.toLowerCase(), epic.label_id);
  const peopleByRef = new Map([...needs.people].map((ref) => [ref, peopleNamed(ref, people)]));
  return {
    labelIds: new Map(labels.map((label) => [label.name, label.id])),
    epicLabelIds,
    allEpicLabelIds: [...epicLabelIds.values()],
    people: peopleByRef,
    blockedStoryIds: [...new Set(unresolved.map((blocker) => blocker.story_id))],
    storyIdsWithAttachments: [...new Set(commented.flatMap((comment) => (typeof comment.story_id === 'number' ? [comment.story_id] : [])))],
    storyIdsByText: await storyIdsByText(query, needs, projectId, read, budget, texts),
    storyIdsByReview: new Map([...needs.reviews].map(([key, need]) => [key, storiesReviewed(need, reviews, reviewTypes, peopleByRef)])),
  };
}

/** The stories with a review matching one value of a review term: its type's name, its status, its reviewer. */
function storiesReviewed(
  need: { field: 'review' | 'review_status' | 'reviewer'; value: string },
  reviews: readonly ReviewReadDoc[],
  reviewTypes: readonly ReviewTypeReadDoc[],
  peopleByRef: ReadonlyMap<string, readonly number[]>,
): number[] {
  let matches: (review: ReviewReadDoc) => boolean;
  if (need.field === 'review') {
    const typeIds = new Set(reviewTypes.filter((type) => type.name.trim().toLowerCase() === need.value.trim()).map((type) => type.id));
    matches = (review) => typeIds.has(review.review_type_id);
  } else if (need.field === 'review_status') {
    matches = (review) => review.status === need.value;
  } else {
    const reviewers = new Set(peopleByRef.get(need.value) ?? []);
    matches = (review) => reviewers.has(review.reviewer_id);
  }
  return [...new Set(reviews.filter(matches).map((review) => review.story_id))];
}

/**
 * Once the terms of an AND chain have left at most this many stories, the rest of the chain is answered
 * from one read of those stories' word lists (textIndexPass over them) instead of a lookup per term,
 * which would read a frequent word's thousands of entries each time.
 */
const NAMED_CANDIDATES = 1024;

/**
 * Lookups naming at least NAMED_CANDIDATES stories each before the keys left are answered from the
 * project's whole text index read once (and kept, when the caller keeps indexes: TextIndexCache)
 * instead: such a lookup reads thousands of index entries, a sizeable part of what the whole index
 * holds, so a query of many frequent words costs at most about one read of the index, whatever its
 * terms. Lookups of rare words cost little (the stores read only their entries) and go on one by one.
 */
const LARGE_LOOKUPS_BEFORE_ONE_PASS = 4;

/**
 * textKey -> story ids for every text need, one lookup per distinct key. With a current index of the
 * project kept (TextIndexCache), every key from it, no read; where indexes are kept but none is current,
 * a query of LARGE_LOOKUPS_BEFORE_ONE_PASS keys or more builds it first. Otherwise first the terms of the top-level
 * AND chain, each intersected with the stories the terms before it left, until at most NAMED_CANDIDATES
 * are left (then the rest of the chain from those stories' word lists); then the other keys whole;
 * after LARGE_LOOKUPS_BEFORE_ONE_PASS large lookups, every key not looked up yet from the project's
 * whole index (read once, then kept). A chain term's ids are then only those among the stories the
 * chain leaves: the conjunction is the same, and its compiled filter small. With an index, the chain's
 * terms go fewest stories first, and once the stories left are fewer than a term's, each is looked for
 * in the term's posting lists (binary search) instead of the lists being walked: 200 frequent words
 * cost about their rarest word's list.
 */
async function storyIdsByText(
  query: SearchQuery,
  needs: Needs,
  projectId: number,
  read: SearchReader,
  budget: ReadBudget,
  texts: TextIndexCache | null,
): Promise<Map<string, number[]>> {
  const inProject = (filter: Filter): Filter => ({ project_id: projectId, ...filter });
  const keyOf = (need: TextNeed) => textKey(need.field, need.word);
  const distinct = [...new Map(needs.texts.map((need) => [keyOf(need), need])).values()];
  const found = new Map<string, number[]>();
  // Keys answered from a text index: its ascending lists as they are, copied into `found` only where a
  // key's ids are needed whole (not narrowed by the chain).
  const ascending = new Map<string, AscendingIds>();
  const has = (key: string) => found.has(key) || ascending.has(key);
  const kept = distinct.length === 0 ? null : texts;
  const wholeIndex = () => indexOfStories(inProject({}), read, budget);
  let projectIndex = kept === null ? null : await kept.current(projectId);
  if (kept !== null && projectIndex === null && distinct.length >= LARGE_LOOKUPS_BEFORE_ONE_PASS) {
    // Where indexes are kept, a query of several words reads the project's whole index once for it and the searches after it.
    projectIndex = await kept.valueOf(projectId, wholeIndex);
  }
  const answer = async (list: readonly TextNeed[], index: ProjectTextIndex) => {
    for (const [key, ids] of await answeredFrom(index, list.filter((need) => !has(keyOf(need))), budget)) ascending.set(key, ids);
  };
  let largeLookups = 0;
  // A lookup reads the word's index entries alone and keeps the project's stories among them: asking
  // the store for both would make it intersect the word's entries with every story of the project.
  let projectStories: Set<number> | null = null;
  const inProjectOnly = async (docs: readonly Doc[]): Promise<number[]> => {
    projectStories ??= new Set((await read(STORY_WORDS).find(inProject({}), { fields: [], budget })).map((doc) => doc.id));
    return docs.flatMap((doc) => (projectStories!.has(doc.id) ? [doc.id] : []));
  };
  const lookUp = async (need: TextNeed): Promise<AscendingIds> => {
    const key = keyOf(need);
    if (!has(key) && projectIndex === null && largeLookups >= LARGE_LOOKUPS_BEFORE_ONE_PASS) {
      projectIndex = kept === null ? await wholeIndex() : await kept.valueOf(projectId, wholeIndex);
    }
    if (!has(key) && projectIndex !== null) await answer([need], projectIndex);
    if (!has(key)) {
      const ids = await inProjectOnly(await read(STORY_WORDS).find(textIndexCondition(need), { fields: [], budget }));
      if (ids.length >= NAMED_CANDIDATES) largeLookups++;
      found.set(key, ids);
    }
    return ascending.get(key) ?? found.get(key)!;
  };
  /** The ids of `need` among `left`: from `left` where it is the shorter and the need's ids are ascending (binary searches), else from the ids. */
  const heldOf = async (need: TextNeed, left: ReadonlySet<number> | null, into: Set<number>) => {
    const ids = await lookUp(need);
    if (left !== null && ascending.has(keyOf(need)) && left.size < ids.length) {
      for (const id of left) if (holdsId(ids, id)) into.add(id);
    } else for (const id of ids) if (left === null || left.has(id)) into.add(id);
  };
  let chain = narrowingTerms(query, needs);
  const chainNeeds = chain.flat();
  if (projectIndex !== null) {
    // Every chain key from the index (no read): the fewest stories first, so the terms after it test few ids.
    for (const need of chainNeeds) await lookUp(need);
    const size = (term: TextNeed[]) => term.reduce((sum, need) => sum + (ascending.get(keyOf(need)) ?? found.get(keyOf(need))!).length, 0);
    chain = [...chain].sort((a, b) => size(a) - size(b));
  }
  let left: Set<number> | null = null;
  let readLeftWords = false;
  for (const term of chain) {
    if (projectIndex === null && !readLeftWords && left !== null && left.size <= NAMED_CANDIDATES) {
      // Once: the word lists of the stories left answer every chain key not found yet, over a superset of what later terms leave.
      readLeftWords = true;
      await answer(chainNeeds, await indexOfStories(inProject({ id: { $in: [...left] } }), read, budget));
    }
    const held = new Set<number>();
    for (const need of term) await heldOf(need, left, held);
    left = held;
  }
  for (const need of chainNeeds) {
    const held = new Set<number>();
    await heldOf(need, left, held);
    found.set(keyOf(need), [...held].sort((a, b) => a - b));
  }
  for (const need of distinct) await lookUp(need);
  for (const [key, ids] of ascending) if (!found.has(key)) found.set(key, idsArray(ids));
  return found;
}

/** Stories whose word lists are indexed per slice of indexOfStories (each slice charged, so long reads give turns). */
const INDEX_SLICE = 256;

/** The text index of the stories `scope` names (the project's, or some of them), from one read of their word lists. */
async function indexOfStories(scope: Filter, read: SearchReader, budget: ReadBudget): Promise<ProjectTextIndex> {
  const lists = Object.values(INDEXED_TEXT_FIELDS);
  const stories = await read(STORY_WORDS).find(scope, { fields: lists, budget });
  for (let start = 0; start < stories.length; start += INDEX_SLICE) {
    let wordsRead = 0;
    for (const story of stories.slice(start, start + INDEX_SLICE)) for (const list of lists) wordsRead += Array.isArray(story[list]) ? story[list].length : 0;
    await budget.charge(wordsRead);
  }
  return buildProjectTextIndex(stories);
}

/**
 * A project's kept text index brought up to date (KeptPerProject's Refresh): the story_words documents
 * of `ids` read again, or null when building it afresh costs less.
 */
export async function refreshedTextIndex(read: SearchReader, index: ProjectTextIndex, projectId: number, ids: readonly number[]): Promise<ProjectTextIndex | null> {
  const docs = await read(STORY_WORDS).find({ project_id: projectId, id: { $in: [...ids] } }, { fields: Object.values(INDEXED_TEXT_FIELDS) });
  return withStoriesReplaced(index, ids, docs);
}

/** Each need's stories from the index, charged one unit per posting entry read (a turn between them when due). */
async function answeredFrom(index: ProjectTextIndex, needs: readonly TextNeed[], budget: ReadBudget): Promise<Map<string, AscendingIds>> {
  const answered = new Map<string, AscendingIds>();
  for (const { field, word, lookup } of needs) {
    const { ids, entries } = storiesHolding(index, INDEXED_TEXT_FIELDS[field], lookup);
    await budget.charge(entries);
    answered.set(textKey(field, word), ids);
  }
  return answered;
}

/**
 * The index condition naming the stories whose field holds every word (and the prefix) of a text term:
 * a conjunction of indexed lookups, so that a phrase of common words reads only the stories holding
 * them all.
 */
function textIndexCondition({ field, lookup }: TextNeed): Filter {
  const list = INDEXED_TEXT_FIELDS[field];
  const parts: Filter[] = lookup.words.map((word) => ({ [list]: word }));
  if (lookup.prefix !== null) parts.push({ [list]: { $elemMatch: { $gte: lookup.prefix, $lt: prefixRangeEnd(lookup.prefix) } } });
  return parts.length === 1 ? parts[0]! : { $and: parts };
}

async function membersOf(projectId: number, read: SearchReader): Promise<PersonReadDoc[]> {
  const memberships = await read('project_memberships').find({ project_id: projectId });
  return read('people').find({ id: { $in: memberships.map((membership) => membership.person_id) } });
}

function peopleNamed(ref: string, people: readonly PersonReadDoc[]): number[] {
  const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : undefined);
  const exact = people.filter(
    (person) => lower(person.initials) === ref || lower(person.username) === ref || lower(person.name) === ref || String(person.id) === ref,
  );
  const named = exact.length > 0 ? exact : people.filter((person) => lower(person.name)?.includes(ref));
  return named.map((person) => person.id);
}
