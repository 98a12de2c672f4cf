// Compiles a query's AST to ONE Mongo filter document over a read collection (`stories`, or `epics` for
// the terms that apply to epics), so every read store (memory, SQLite, MongoDB) runs the same query.
// Pure: names (labels, epics, people) and the few story-id sets a term needs were resolved beforehand
// (search-names.ts) into the context. What each term compiles to:
//   free text, name:, description:   the stories the text index names for the word (`id` $in), and,
//                                    unless the word alone is the whole term, the case-insensitive
//                                    whole-word regex (search-text-pattern.ts) on `name` / `description`
//                                    checking those candidates only; epics (few) by the regex alone
//   state: / type:                   current_state / story_type $in
//   label:x / label:""               label_ids $in [the label's id] / label_ids empty
//   epic:x / epic:""                 label_ids $in [the epic's label] / $nin every epic's label
//   owner: / requester:              owner_ids / requested_by_id $in the people the values name;
//                                    "" = no owner / no requester
//   mywork:x                         owned by x and not accepted
//   review: / review_status: /       the stories with a review of that type (by name) / status / reviewer
//   reviewer:                        (person forms as owner:), resolved to ids beforehand
//   id: / estimate: / external_id:   $in (estimate:-1 = no estimate)
//   has: / is: / no:                 presence of labels, owners, an epic, an external id, an unresolved
//                                    blocker (blocked), stories blocked by this one (blocking:
//                                    blocked_story_ids), attachments, followers;
//                                    no: is the negation of has:
//   created/updated/accepted dates   created_at / updated_at / accepted_at within the day, since the
//                                    day's start, before the day's start (search-dates.ts)
//   -term                            $nor (or $nin); AND / OR: $and / $or, each chain in one step (linear in its
//                                    operands), `$in` on id intersected and `$nin` on a field merged across a
//                                    conjunction, `$in` on a field merged across a disjunction
// A name that resolves to nothing matches nothing (as an unknown label has no stories).
import { normalizedLabelName } from '../../domain/project-state.js';
import type { Filter } from '../../ports/read-store.js';
import type { DateTerm, FlagsTerm, SearchNode, SearchQuery, SearchTerm, StoryFlag, TextWord, ValuesTerm } from '../../domain/search/search-ast.js';
import { spanInterval, type SearchClock } from '../../domain/search/search-dates.js';
import { chainOperands } from '../../domain/search/search-normal-form.js';
import { printSearchQuery } from '../../domain/search/search-printer.js';
import { textCondition, textLookup } from './search-text-pattern.js';

/** Names and id sets a query refers to, looked up in the project's read models before compiling. */
export interface SearchNames {
  /** Stored (lower-case) label name -> label id. */
  labelIds: ReadonlyMap<string, number>;
  /** Lower-case epic name -> the epic's label id. */
  epicLabelIds: ReadonlyMap<string, number>;
  /** The label ids of every epic of the project. */
  allEpicLabelIds: readonly number[];
  /** Person reference as written in the query (lower case) -> the ids of the members it names. */
  people: ReadonlyMap<string, readonly number[]>;
  /** Stories with an unresolved blocker (is:blocked, has:blocker), whether or not it names a story. */
  blockedStoryIds: readonly number[];
  /** Stories with a comment carrying a file attachment. */
  storyIdsWithAttachments: readonly number[];
  /** textKey(field, word) -> the stories whose `field` holds the term's index words (search-text-pattern.ts). */
  storyIdsByText: ReadonlyMap<string, readonly number[]>;
  /** reviewKey(field, value) -> the stories with a review of that type / status / reviewer. */
  storyIdsByReview: ReadonlyMap<string, readonly number[]>;
}

/** The key of a review term's value (`review:`, `review_status:`, `reviewer:`) in SearchNames.storyIdsByReview. */
export function reviewKey(field: string, value: string): string {
  return `${field}:${value}`;
}

/** The key of a text term on one story field in SearchNames.storyIdsByText. */
export function textKey(field: string, word: TextWord): string {
  return `${field}:${word.prefix ? '*' : ' '}${word.text}`;
}

export interface SearchContext extends SearchClock {
  projectId: number;
  /** The person searching (is:following); null for none. */
  searcherId: number | null;
  /**
   * Start of the project's current iteration (ms): stories accepted before it belong to finished
   * iterations, so they are done and left out unless `includedone:true`. null: nothing is done yet.
   */
  doneBefore: number | null;
  names: SearchNames;
}

export interface CompiledStorySearch {
  /** The project's matching stories, done ones left out unless the query says includedone:true. */
  filter: Filter;
  /** The project's matching stories, done ones counted. */
  filterWithDone: Filter;
  /**
   * The matching stories `filter` leaves out as done (total_hits_with_done = hits + these), or null when
   * it leaves none out. Its plain `current_state` / `accepted_at` come first, so stores reject most
   * stories on them at once.
   */
  doneFilter: Filter | null;
}

const MATCH_NONE: Filter = { id: { $in: [] } };
const MATCH_ALL: Filter = {};

export function compileStorySearch(query: SearchQuery, context: SearchContext): CompiledStorySearch {
  const matching = query === null ? MATCH_ALL : compileNode(query, memoized((term) => storyCondition(term, context)))!;
  const filterWithDone = allOf([{ project_id: context.projectId }, matching]);
  if (context.doneBefore === null || includesDone(query) || excludesAccepted(filterWithDone)) {
    return { filter: filterWithDone, filterWithDone, doneFilter: null };
  }
  const done = doneCondition(context.doneBefore);
  return { filter: allOf([filterWithDone, negation(done)]), filterWithDone, doneFilter: allOf([done, filterWithDone]) };
}

/**
 * The filter over the `epics` collection, or null when the query uses a term that says nothing about
 * epics (state, owner, ...). Epics match free text, name:, description:, id:, label: (their own label)
 * and the created / updated dates.
 */
export function compileEpicSearch(query: SearchQuery, context: SearchContext): Filter | null {
  const matching = query === null ? MATCH_ALL : compileNode(query, memoized((term) => epicCondition(term, context)));
  return matching === null ? null : allOf([{ project_id: context.projectId }, matching]);
}

/** Whether the filter's own top-level state condition already leaves accepted (so done) stories out. */
function excludesAccepted(filter: Filter): boolean {
  const state = filter.current_state;
  if (!isPlainCondition(state)) return false;
  if (Array.isArray(state.$in)) return !state.$in.includes('accepted');
  return Array.isArray(state.$nin) && state.$nin.includes('accepted');
}

/**
 * Each term's condition over `stories` (without the project), compiled once per distinct term for one
 * query: the same object for a term written twice (what search-sets.ts evaluates each term by).
 */
export function storyTermConditions(context: SearchContext): (term: SearchTerm) => Filter {
  const compile = memoized((term) => storyCondition(term, context));
  return (term) => compile(term)!;
}

/** The done stories (left out unless includedone:true) before `doneBefore`. */
export function doneCondition(doneBefore: number): Filter {
  return { current_state: 'accepted', accepted_at: { $lt: doneBefore } };
}

/** Whether the query's includedone: terms (all on its top-level AND chain) end with true. */
export function includesDone(query: SearchQuery): boolean {
  let include = false;
  const pending: SearchNode[] = query ? [query] : [];
  while (pending.length > 0) {
    const node = pending.pop()!; // left before right: the last term written wins
    if (node.kind === 'and') pending.push(node.right, node.left);
    else if (node.kind === 'includedone') include = node.value;
  }
  return include;
}

type TermCompiler = (term: SearchTerm) => Filter | null;

/**
 * `compile` remembering what each distinct term (by its canonical text) compiled to, for one query: a
 * term written twice in different groups is compiled once and its condition is one object, which the
 * stores test once per document and index once (their per-condition caches).
 */
function memoized(compile: TermCompiler): TermCompiler {
  const compiled = new Map<string, Filter | null>();
  return (term) => {
    const key = printSearchQuery(term);
    if (!compiled.has(key)) compiled.set(key, compile(term));
    return compiled.get(key)!;
  };
}

/** AND and OR chains are compiled whole (one conjunction or disjunction of all their operands), so the cost is linear in the terms. */
function compileNode(node: SearchNode, compileTerm: TermCompiler): Filter | null {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const parts: Filter[] = [];
      for (const operand of chainOperands(node)) {
        const part = compileNode(operand, compileTerm);
        if (part === null) return null;
        parts.push(part);
      }
      return node.kind === 'and' ? allOf(parts) : anyOf(parts);
    }
    case 'not': {
      const operand = compileNode(node.operand, compileTerm);
      return operand === null ? null : negation(operand);
    }
    default:
      return compileTerm(node);
  }
}

/** The list of a condition that is one `$in` or one `$nin` and nothing else, else null. */
function soleList(condition: unknown, operator: '$in' | '$nin'): unknown[] | null {
  if (!isPlainCondition(condition)) return null;
  const keys = Object.keys(condition);
  return keys.length === 1 && keys[0] === operator && Array.isArray(condition[operator]) ? condition[operator] : null;
}

/**
 * The conjunction as ONE document where the parts' fields do not collide: plain fields first, operators
 * (`$or`, `$nor`, colliding fields) in a trailing `$and`. Stores test a document's plain fields first and
 * can answer them from indexes (the memory store rejects most documents on them without mingo). Parts
 * that are each one `$in` on `id` become one `$in` of the ids in all of them, and parts that are each one
 * `$nin` on a field one `$nin` of all their values: the same documents, one condition to test each.
 */
function allOf(parts: Filter[]): Filter {
  const entries: Array<[string, unknown]> = [];
  let ids: unknown[] | null = null;
  const excluded = new Map<string, Set<unknown>>();
  const pending = [...parts].reverse();
  while (pending.length > 0) {
    for (const [key, condition] of Object.entries(pending.pop()!)) {
      if (key === '$and' && Array.isArray(condition)) {
        pending.push(...[...(condition as Filter[])].reverse());
        continue;
      }
      const within = key === 'id' ? soleList(condition, '$in') : null;
      const without = key.startsWith('$') ? null : soleList(condition, '$nin');
      if (within) {
        if (ids === null) entries.push([key, IDS_IN_ALL]);
        if (ids === null) ids = [...new Set(within)];
        else if (ids.length > 0) {
          const held = new Set(within);
          ids = ids.filter((id) => held.has(id));
        }
      } else if (without) {
        if (!excluded.has(key)) entries.push([key, VALUES_IN_NONE]);
        const values = excluded.get(key) ?? new Set();
        for (const value of without) values.add(value);
        excluded.set(key, values);
      } else entries.push([key, condition]);
    }
  }
  const merged: Filter = {};
  const rest: Filter[] = [];
  for (const [key, entry] of entries) {
    const condition = entry === IDS_IN_ALL ? { $in: ids } : entry === VALUES_IN_NONE ? { $nin: [...excluded.get(key)!] } : entry;
    if (key.startsWith('$') || key in merged) rest.push({ [key]: condition });
    else merged[key] = condition;
  }
  if (rest.length === 0) return merged;
  return Object.keys(merged).length === 0 && rest.length === 1 ? rest[0]! : { ...merged, $and: rest };
}

/** Where allOf puts the merged `$in` of ids, and a merged `$nin`. */
const IDS_IN_ALL = Symbol('the ids in every $in on id');
const VALUES_IN_NONE = Symbol('the values of every $nin on the field');

function anyOf(parts: Filter[]): Filter {
  if (parts.length === 0) return MATCH_NONE;
  if (parts.some((part) => Object.keys(part).length === 0)) return MATCH_ALL;
  const flat = mergedIns(parts.flatMap((part) => (isOnly(part, '$or') ? (part.$or as Filter[]) : [part])));
  return flat.length === 1 ? flat[0]! : { $or: flat };
}

/**
 * Branches that are each one `$in` on the same field merge into one `$in` of them all (the same
 * documents). The lists are joined as they are: a value in several stays repeated, which no store
 * minds, rather than paying for a set of thousands of ids per OR of frequent words.
 */
function mergedIns(branches: Filter[]): Filter[] {
  const values = new Map<string, unknown[][]>();
  const order: Array<Filter | string> = [];
  for (const branch of branches) {
    const field = soleInField(branch);
    if (field === null) order.push(branch);
    else {
      if (!values.has(field)) {
        values.set(field, []);
        order.push(field);
      }
      values.get(field)!.push((branch[field] as { $in: unknown[] }).$in);
    }
  }
  // concat, not flat(): flat walks its arrays element by element and was a fifth of a mixed search's cost
  return order.map((item) => (typeof item === 'string' ? { [item]: { $in: ([] as unknown[]).concat(...values.get(item)!) } } : item));
}

/** The field of a filter that is one `$in` on one field, else null. */
function soleInField(filter: Filter): string | null {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0]!.startsWith('$')) return null;
  const condition = filter[keys[0]!];
  return isPlainCondition(condition) && Object.keys(condition).length === 1 && Array.isArray(condition.$in) ? keys[0]! : null;
}

function isOnly(filter: Filter, operator: string): boolean {
  const keys = Object.keys(filter);
  return keys.length === 1 && keys[0] === operator;
}

/** Not the filter: `$nin` for a one-field `$in` (the same documents, arrays and missing fields included), else `$nor`. */
function negation(filter: Filter): Filter {
  const keys = Object.keys(filter);
  const condition = keys.length === 1 && !keys[0]!.startsWith('$') ? filter[keys[0]!] : undefined;
  if (isPlainCondition(condition) && Object.keys(condition).length === 1 && Array.isArray(condition.$in)) {
    return { [keys[0]!]: { $nin: condition.$in } };
  }
  return { $nor: [filter] };
}

function isPlainCondition(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The array (or value) at `field` is present and not empty. */
export function nonEmpty(field: string): Filter {
  return { [field]: { $exists: true, $ne: [] } };
}

function isEmpty(field: string): Filter {
  return negation(nonEmpty(field));
}

function storyCondition(term: SearchTerm, context: SearchContext): Filter {
  switch (term.kind) {
    case 'text':
      return anyOf([storyTextCondition('name', term.word, context.names), storyTextCondition('description', term.word, context.names)]);
    case 'words':
      return anyOf(term.words.map((word) => storyTextCondition(term.field, word, context.names)));
    case 'values':
      return valuesCondition(term, context.names);
    case 'numbers':
      if (term.field === 'id') return { id: { $in: term.numbers } };
      return anyOf([
        ...(term.numbers.includes(-1) ? [{ estimate: { $exists: false } }] : []),
        ...(term.numbers.some((points) => points !== -1) ? [{ estimate: { $in: term.numbers.filter((points) => points !== -1) } }] : []),
      ]);
    case 'flags':
      return flagsCondition(term, context);
    case 'date':
      return dateCondition(term, context);
    case 'includedone':
      return MATCH_ALL;
  }
}

/** The stories whose `field` holds the word: from the text index, the text read only to confirm. */
function storyTextCondition(field: 'name' | 'description', word: TextWord, names: SearchNames): Filter {
  const lookup = textLookup(word);
  if (lookup === null) return textCondition(field, word);
  const candidates = { id: { $in: names.storyIdsByText.get(textKey(field, word)) ?? [] } };
  return lookup.exact ? candidates : allOf([candidates, textCondition(field, word)]);
}

function epicCondition(term: SearchTerm, context: SearchContext): Filter | null {
  switch (term.kind) {
    case 'text':
      return anyOf([textCondition('name', term.word), textCondition('description', term.word)]);
    case 'words':
      return anyOf(term.words.map((word) => textCondition(term.field, word)));
    case 'includedone':
      return storyCondition(term, context);
    case 'numbers':
      return term.field === 'id' ? storyCondition(term, context) : null;
    case 'values': {
      if (term.field !== 'label') return null;
      const ids = term.values.flatMap((name) => idsOf(context.names.labelIds.get(normalizedLabelName(name))));
      return { label_id: { $in: ids } };
    }
    case 'date':
      return term.field === 'accepted' ? null : dateCondition(term, context);
    case 'flags':
      return null;
  }
}

function idsOf(id: number | undefined): number[] {
  return id === undefined ? [] : [id];
}

function valuesCondition(term: ValuesTerm, names: SearchNames): Filter {
  const named = term.values.filter((value) => value !== '');
  const absent = named.length < term.values.length;
  const people = (): number[] => [...new Set(named.flatMap((ref) => names.people.get(ref) ?? []))];
  switch (term.field) {
    case 'state':
      return { current_state: { $in: term.values } };
    case 'type':
      return { story_type: { $in: term.values } };
    case 'external_id':
      return { external_id: { $in: term.values } };
    case 'label':
      return withAbsence(named.length > 0 ? { label_ids: { $in: named.flatMap((name) => idsOf(names.labelIds.get(normalizedLabelName(name)))) } } : null, absent ? isEmpty('label_ids') : null);
    case 'epic':
      return withAbsence(
        named.length > 0 ? { label_ids: { $in: named.flatMap((name) => idsOf(names.epicLabelIds.get(name))) } } : null,
        absent ? { label_ids: { $nin: names.allEpicLabelIds } } : null,
      );
    case 'owner':
      return withAbsence(named.length > 0 ? { owner_ids: { $in: people() } } : null, absent ? isEmpty('owner_ids') : null);
    case 'requester':
      return withAbsence(named.length > 0 ? { requested_by_id: { $in: people() } } : null, absent ? { requested_by_id: { $exists: false } } : null);
    case 'mywork':
      return allOf([{ owner_ids: { $in: people() } }, { current_state: { $ne: 'accepted' } }]);
    case 'review':
    case 'review_status':
    case 'reviewer':
      return { id: { $in: [...new Set(named.flatMap((value) => names.storyIdsByReview.get(reviewKey(term.field, value)) ?? []))] } };
  }
}

function withAbsence(named: Filter | null, absent: Filter | null): Filter {
  return anyOf([named, absent].filter((part): part is Filter => part !== null));
}

function flagsCondition(term: FlagsTerm, context: SearchContext): Filter {
  const present = anyOf(term.flags.map((flag) => flagCondition(flag, context)));
  return term.field === 'no' ? negation(present) : present;
}

function flagCondition(flag: StoryFlag, context: SearchContext): Filter {
  switch (flag) {
    case 'blocked':
      return { id: { $in: context.names.blockedStoryIds } };
    case 'blocking':
      return nonEmpty('blocked_story_ids');
    case 'following':
      return context.searcherId === null ? MATCH_NONE : { follower_ids: context.searcherId };
    case 'label':
      return nonEmpty('label_ids');
    case 'owner':
      return nonEmpty('owner_ids');
    case 'attachment':
      return { id: { $in: context.names.storyIdsWithAttachments } };
    case 'external_id':
      return { external_id: { $exists: true, $ne: '' } };
    case 'epic':
      return { label_ids: { $in: context.names.allEpicLabelIds } };
  }
}

function dateCondition(term: DateTerm, clock: SearchClock): Filter {
  const field = `${term.field}_at`;
  const { start, end } = spanInterval(term.span, clock);
  const bounds: Record<string, number> = {};
  if (term.span.kind === 'range' || term.mode === 'on') {
    if (start !== null) bounds.$gte = start;
    if (end !== null) bounds.$lt = end;
  } else if (term.mode === 'since') bounds.$gte = start!;
  else bounds.$lt = start!;
  return { [field]: bounds };
}
