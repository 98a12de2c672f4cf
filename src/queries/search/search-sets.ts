// A story search evaluated by sets, so that its cost is that of its terms and not of the documents:
// every story of the project is a position in the project's priority order (one read of the few
// top-level fields the query's conditions test, plus rank, state, estimate and acceptance; the SQLite
// store reads them from the JSON without decoding the stories), each distinct term's condition
// (search-compiler.ts) is turned ONCE into the set of positions it holds for, and AND / OR / NOT are
// intersections, unions and complements of those sets. Then the matches in priority order, their count
// and points come from the positions, and only the stories answered (a page, the listed ones) are read
// whole.
//
// How a term's condition becomes a set: a list of ids (the text index's answer for a word, the stories
// with a review, the blocked ones) marks those ids; a conjunction holding such a list and conditions on
// other fields (a phrase: its words' stories, confirmed by the text) is read from the store for those
// candidates only; a condition on a field is tested on the fields read, story by story. The answers are
// the ones the compiled filter gives (search-compiler.ts) in every store, by the same evaluator.
import type { Doc, Filter, FilterTest, ReadBudget } from '../../ports/read-store.js';
import type { SearchNode, SearchQuery, SearchTerm } from '../../domain/search/search-ast.js';
import { chainOperands } from '../../domain/search/search-normal-form.js';
import { doneCondition, includesDone, storyTermConditions, type SearchContext } from './search-compiler.js';
import type { SearchReader } from './search-names.js';
import type { KeptPerProject } from './kept-per-project.js';

/** What the answers of a search need of every story besides the conditions' own fields. */
const ANSWER_FIELDS = ['current_state', 'estimate', 'accepted_at'];
/**
 * The fields of the rows kept between searches (KeptPerProject): every story field a term's condition
 * tests story by story (search-compiler.ts), so that one read serves every query. A condition testing
 * another field has the rows read afresh for its search.
 */
const KEPT_ROW_FIELDS = [
  ...ANSWER_FIELDS,
  'rank',
  'story_type',
  'created_at',
  'updated_at',
  'label_ids',
  'owner_ids',
  'requested_by_id',
  'external_id',
  'follower_ids',
  'blocked_story_ids',
];
/** Estimated heap bytes of a kept row (an object of about a dozen small fields, its position entry, its entries in the fields' value lists). */
const ROW_BYTES = 680;
const BY_PRIORITY = { rank: 1 } as const;

/** The project's stories in priority order, each with `id` and the fields read. */
export interface ProjectStoryRows {
  rows: readonly Doc[];
  /** Story id -> its row's position. */
  positions: PositionsById;
  bytes: number;
  /**
   * Per field, built on first use: each scalar value -> the positions of the rows holding it (as the
   * value or an element of an array of scalars); null when some row holds anything else there.
   */
  byValue: Map<string, Map<unknown, number[]> | null>;
}

export interface StoryMatches {
  /** The matching stories' ids in priority order, done ones left out unless the query says includedone:true. */
  ids: number[];
  /** The matches, done ones counted. */
  totalWithDone: number;
  /** Sums of the estimates of `ids`, and of the accepted ones among them. */
  points: number;
  pointsCompleted: number;
}

/** A set of positions in the project's priority order: one bit per story (bit p % 32 of word p >> 5). */
type PositionSet = Uint32Array;

interface Evaluation {
  rows: readonly Doc[];
  byValue: ProjectStoryRows['byValue'];
  positions: PositionsById;
  projectId: number;
  read: SearchReader;
  test: FilterTest;
  budget: ReadBudget;
  /** What each condition object evaluated to (a repeated term is one object). */
  sets: Map<Filter, PositionSet>;
}

/** The project's stories matching `query`, in priority order, with their count and points (the done ones set apart). */
export async function matchingStories(
  read: SearchReader,
  test: FilterTest,
  query: SearchQuery,
  context: SearchContext,
  budget: ReadBudget,
  keptRows: KeptPerProject<ProjectStoryRows> | null,
): Promise<StoryMatches> {
  const conditionOf = storyTermConditions(context);
  const fields = new Set(ANSWER_FIELDS);
  for (const term of termsOf(query)) fieldsTested(conditionOf(term), fields);
  const { rows, byValue, positions } = await storyRows(read, context.projectId, fields, budget, keptRows);
  const evaluation: Evaluation = { rows, byValue, positions, projectId: context.projectId, read, test, budget, sets: new Map() };
  const matching = query === null ? full(rows.length) : await nodeSet(query, conditionOf, evaluation);
  const isDone = context.doneBefore === null || includesDone(query) ? null : test(doneCondition(context.doneBefore));
  const answered: Doc[] = [];
  let totalWithDone = 0;
  for (let position = 0; position < rows.length; position++) {
    if (!holds(matching, position)) continue;
    totalWithDone++;
    if (!isDone?.(rows[position]!)) answered.push(rows[position]!);
  }
  return tallied(answered, totalWithDone);
}

/** The answered matches (priority order) as StoryMatches: their ids and points; `totalWithDone` counts the done ones too. */
export function tallied(answered: Iterable<{ id: number; estimate?: unknown; current_state?: unknown }>, totalWithDone: number): StoryMatches {
  const ids: number[] = [];
  let points = 0;
  let pointsCompleted = 0;
  for (const story of answered) {
    ids.push(story.id);
    if (typeof story.estimate !== 'number') continue;
    points += story.estimate;
    if (story.current_state === 'accepted') pointsCompleted += story.estimate;
  }
  return { ids, totalWithDone, points: roundedPoints(points), pointsCompleted: roundedPoints(pointsCompleted) };
}

/**
 * The project's stories in priority order with `fields`: the kept rows when they are current and hold
 * them; else read, with every kept field when they are to be kept.
 */
async function storyRows(
  read: SearchReader,
  projectId: number,
  fields: ReadonlySet<string>,
  budget: ReadBudget,
  keptRows: KeptPerProject<ProjectStoryRows> | null,
): Promise<ProjectStoryRows> {
  const keepable = [...fields].every((field) => KEPT_ROW_FIELDS.includes(field));
  const readRows = async (asked: readonly string[]): Promise<ProjectStoryRows> => {
    const rows = await read('stories').find({ project_id: projectId }, { sort: BY_PRIORITY, fields: asked as never[], budget });
    const positions = positionsById(rows);
    return { rows, positions, bytes: rows.length * ROW_BYTES + positions.bytes, byValue: new Map() };
  };
  return keepable && keptRows !== null ? keptRows.valueOf(projectId, () => readRows(KEPT_ROW_FIELDS)) : readRows([...fields]);
}

/** Story id -> position in the priority order (what `marked` asks once per id listed, thousands per term). */
export interface PositionsById {
  get(id: number): number | undefined;
  /** Estimated heap bytes. */
  readonly bytes: number;
}

/** Ids spread over at most this many times as many numbers as there are stories are looked up in an array. */
const DENSE_SPREAD = 8;

/**
 * The rows' positions by id: an array indexed by id over the ids' range where they lie close together (a
 * project's stories take most of a stretch of ids), a Map otherwise.
 */
function positionsById(rows: readonly Doc[]): PositionsById {
  let low = Infinity;
  let high = -Infinity;
  for (const row of rows) {
    low = Math.min(low, row.id);
    high = Math.max(high, row.id);
  }
  const span = high - low + 1;
  if (rows.length === 0 || !Number.isSafeInteger(span) || span > DENSE_SPREAD * rows.length + 1024) {
    const byId = new Map(rows.map((row, position) => [row.id, position]));
    return { get: (id) => byId.get(id), bytes: rows.length * 40 };
  }
  const byOffset = new Int32Array(span).fill(-1);
  rows.forEach((row, position) => (byOffset[row.id - low] = position));
  return {
    get: (id) => {
      const position = id >= low && id <= high ? byOffset[id - low]! : -1;
      return position < 0 ? undefined : position;
    },
    bytes: 4 * span,
  };
}

/**
 * A project's kept rows brought up to date (KeptPerProject's Refresh): the stories `ids` read again and
 * put in their places by rank (a story no longer of the project left out).
 */
export async function refreshedStoryRows(read: SearchReader, kept: ProjectStoryRows, projectId: number, ids: readonly number[]): Promise<ProjectStoryRows> {
  const changed = new Set(ids);
  const fresh = await read('stories').find({ project_id: projectId, id: { $in: [...ids] } }, { sort: BY_PRIORITY, fields: KEPT_ROW_FIELDS as never[] });
  const rows: Doc[] = [];
  let next = 0;
  for (const row of kept.rows) {
    if (changed.has(row.id)) continue;
    while (next < fresh.length && !ranksBefore(row, fresh[next]!)) rows.push(fresh[next++]!);
    rows.push(row);
  }
  rows.push(...fresh.slice(next));
  const positions = positionsById(rows);
  return { rows, positions, bytes: rows.length * ROW_BYTES + positions.bytes, byValue: new Map() };
}

/** Whether `a` comes before `b` in priority order as the stores sort (ranks by code unit, domain/rank.ts; ties by id). */
function ranksBefore(a: Doc, b: Doc): boolean {
  const [rankA, rankB] = [String(a.rank ?? ''), String(b.rank ?? '')];
  return rankA < rankB || (rankA === rankB && a.id < b.id);
}

/** The positions of the rows per scalar value of `field` (ProjectStoryRows.byValue), or null when a row holds something else there. */
function valuesOf(field: string, evaluation: Evaluation): Map<unknown, number[]> | null {
  if (evaluation.byValue.has(field)) return evaluation.byValue.get(field)!;
  let values: Map<unknown, number[]> | null = new Map();
  const note = (value: unknown, position: number) => {
    const positions = values!.get(value);
    if (positions === undefined) values!.set(value, [position]);
    else if (positions[positions.length - 1] !== position) positions.push(position);
  };
  for (let position = 0; position < evaluation.rows.length && values !== null; position++) {
    const value = evaluation.rows[position]![field];
    if (value === undefined || value === null) continue;
    if (isScalar(value)) note(value, position);
    else if (Array.isArray(value) && value.every((element) => isScalar(element) && element !== null)) for (const element of value) note(element, position);
    else values = null;
  }
  evaluation.byValue.set(field, values);
  return values;
}

function isScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/**
 * The values of a condition that is equality to a scalar or `$in` / `$nin` of scalars (no null: a
 * missing field would match it), else null: what the rows' value lists answer.
 */
function valueList(condition: unknown): { values: readonly unknown[]; within: boolean } | null {
  if (isScalar(condition)) return { values: [condition], within: true };
  const listed = listedIds(condition);
  return listed !== null && listed.ids.every(isScalar) ? { values: listed.ids, within: listed.within } : null;
}

/** A sum of estimates without the binary rounding residue of fractional points. */
function roundedPoints(sum: number): number {
  return Math.round(sum * 1e6) / 1e6;
}

/** How many terms the query holds (repeats are gone by now: search-normal-form.ts). */
export function termCount(query: SearchQuery): number {
  return termsOf(query).length;
}

function termsOf(query: SearchQuery): SearchTerm[] {
  const terms: SearchTerm[] = [];
  const pending: SearchNode[] = query === null ? [] : [query];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.kind === 'and' || node.kind === 'or') pending.push(node.left, node.right);
    else if (node.kind === 'not') pending.push(node.operand);
    else terms.push(node as SearchTerm);
  }
  return terms;
}

/** The ids a condition on `id` lists, or null when it is no such list. */
function listedIds(condition: unknown): { ids: readonly unknown[]; within: boolean } | null {
  if (typeof condition === 'number') return { ids: [condition], within: true };
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) return null;
  const keys = Object.keys(condition);
  if (keys.length !== 1) return null;
  const list = (condition as Record<string, unknown>)[keys[0]!];
  if (!Array.isArray(list) || (keys[0] !== '$in' && keys[0] !== '$nin')) return null;
  return { ids: list, within: keys[0] === '$in' };
}

/** A conjunction read from the store for the candidates it lists (a list of ids and conditions on other fields). */
function isNarrowedByIds(filter: Filter): boolean {
  const keys = Object.keys(filter);
  return keys.length > 1 && keys.includes('id') && listedIds(filter.id)?.within === true;
}

/** Adds the top-level fields `filter` tests story by story (not those of conjunctions read from the store). */
function fieldsTested(filter: Filter, into: Set<string>): void {
  if (isNarrowedByIds(filter)) return;
  for (const [key, condition] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(condition)) for (const part of condition as Filter[]) fieldsTested(part, into);
    else if (key !== 'id') into.add(key);
  }
}

async function nodeSet(node: SearchNode, conditionOf: (term: SearchTerm) => Filter, evaluation: Evaluation): Promise<PositionSet> {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const sets: PositionSet[] = [];
      for (const operand of chainOperands(node)) sets.push(await nodeSet(operand, conditionOf, evaluation));
      return combined(sets, node.kind, evaluation);
    }
    case 'not':
      return complement(await nodeSet(node.operand, conditionOf, evaluation), evaluation.rows.length);
    default:
      return conditionSet(conditionOf(node), evaluation);
  }
}

async function conditionSet(filter: Filter, evaluation: Evaluation): Promise<PositionSet> {
  let set = evaluation.sets.get(filter);
  if (set === undefined) {
    set = await evaluated(filter, evaluation);
    evaluation.sets.set(filter, set);
  }
  return set;
}

async function evaluated(filter: Filter, evaluation: Evaluation): Promise<PositionSet> {
  const size = evaluation.rows.length;
  if (isNarrowedByIds(filter)) {
    const found = await evaluation.read('stories').find({ ...filter, project_id: evaluation.projectId }, { fields: [], budget: evaluation.budget });
    return marked(found.map((doc) => doc.id), evaluation);
  }
  const parts: PositionSet[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(condition)) {
      const sets: PositionSet[] = [];
      for (const part of condition as Filter[]) sets.push(await conditionSet(part, evaluation));
      const joined = await combined(sets, key === '$and' ? 'and' : 'or', evaluation);
      parts.push(key === '$nor' ? complement(joined, size) : joined);
    } else if (key === 'id' && listedIds(condition) !== null) {
      const { ids, within } = listedIds(condition)!;
      await evaluation.budget.charge(ids.length);
      const set = marked(ids, evaluation);
      parts.push(within ? set : complement(set, size));
    } else if (valueList(condition) !== null && valuesOf(key, evaluation) !== null) {
      const { values, within } = valueList(condition)!;
      const byValue = valuesOf(key, evaluation)!;
      const set = empty(size);
      let positionsRead = 0;
      for (const value of values) {
        const positions = byValue.get(value) ?? [];
        positionsRead += positions.length;
        for (const position of positions) add(set, position);
      }
      await evaluation.budget.charge(values.length + positionsRead);
      parts.push(within ? set : complement(set, size));
    } else {
      await evaluation.budget.charge(size);
      const test = evaluation.test({ [key]: condition });
      const set = empty(size);
      evaluation.rows.forEach((row, position) => {
        if (test(row)) add(set, position);
      });
      parts.push(set);
    }
  }
  return parts.length === 0 ? full(size) : combined(parts, 'and', evaluation);
}

/** The positions of the ids that are the project's stories. */
function marked(ids: readonly unknown[], evaluation: Evaluation): PositionSet {
  const set = empty(evaluation.rows.length);
  for (const id of ids) {
    const position = typeof id === 'number' ? evaluation.positions.get(id) : undefined;
    if (position !== undefined) add(set, position);
  }
  return set;
}

async function combined(sets: readonly PositionSet[], kind: 'and' | 'or', evaluation: Evaluation): Promise<PositionSet> {
  if (sets.length === 1) return sets[0]!;
  const size = evaluation.rows.length;
  await evaluation.budget.charge(sets.length * wordsOf(size));
  const result = kind === 'and' ? full(size) : empty(size);
  for (const set of sets) {
    if (kind === 'and') for (let i = 0; i < result.length; i++) result[i]! &= set[i]!;
    else for (let i = 0; i < result.length; i++) result[i]! |= set[i]!;
  }
  return result;
}

function wordsOf(size: number): number {
  return (size + 31) >>> 5;
}

function empty(size: number): PositionSet {
  return new Uint32Array(wordsOf(size));
}

/** Every position below `size` (the bits past it stay clear, so that counts and complements hold). */
function full(size: number): PositionSet {
  return complement(empty(size), size);
}

function complement(set: PositionSet, size: number): PositionSet {
  const result = new Uint32Array(set.length);
  for (let i = 0; i < set.length; i++) result[i] = ~set[i]!;
  if (size % 32 !== 0) result[result.length - 1]! &= (1 << size % 32) - 1;
  return result;
}

function add(set: PositionSet, position: number): void {
  set[position >>> 5]! |= 1 << (position & 31);
}

function holds(set: PositionSet, position: number): boolean {
  return (set[position >>> 5]! & (1 << (position & 31))) !== 0;
}
