// Looks up, in the project's read models, the names and id sets a query refers to, so that compiling it
// stays pure: at most one query per kind (labels, epics, members and their people, unresolved blockers,
// attachments, reviews and review types), all at once, and only the kinds the query needs.
//
// Text terms (free text, name:, description:) are looked up in the text index (story_words), one indexed
// read of ids per distinct term and field: the stories holding the term's words, so the compiled filter
// names them by id.
//
// A person reference (owner:, requester:, mywork:) names the project members whose initials, username,
// full name or id equal it (ignoring case); when none does, those whose name contains it.
import { normalizedLabelName } from '../../domain/project-state.js';
import type { Doc, Filter, ReadCollection } from '../../ports/read-store.js';
import { prefixRangeEnd } from '../../domain/search-words.js';
import { INDEXED_TEXT_FIELDS, STORY_WORDS, type IndexedTextField } from '../../projections/search/story-words-projection.js';
import type { SearchNode, SearchQuery, TextWord } from '../../domain/search/search-ast.js';
import { nonEmpty, reviewKey, textKey, type SearchNames } from './search-compiler.js';
import { textLookup, type TextLookup } from './search-text-pattern.js';

/** What the search reads: a read collection by its logical name (`stories`, `labels`, ...). */
export type SearchCollection = Pick<ReadCollection, 'find' | 'count'>;
export type SearchReader = (collection: string) => SearchCollection;

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

function needsOf(query: SearchQuery): Needs {
  const needs: Needs = { reviews: new Map(), labels: new Set(), epics: false, people: new Set(), blocked: false, attachments: false, texts: [] };
  const pending: SearchNode[] = query ? [query] : [];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.kind === 'and' || node.kind === 'or') pending.push(node.left, node.right);
    else if (node.kind === 'not') pending.push(node.operand);
    else if (node.kind === 'text') needs.texts.push(...textNeeds(['name', 'description'], [node.word]));
    else if (node.kind === 'words') needs.texts.push(...textNeeds([node.field], node.words));
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

export async function resolveSearchNames(query: SearchQuery, projectId: number, read: SearchReader): Promise<SearchNames> {
  const needs = needsOf(query);
  const inProject = (filter: Filter = {}): Filter => ({ project_id: projectId, ...filter });
  const none = Promise.resolve([] as Doc[]);
  const texts = [...new Map(needs.texts.map((need) => [textKey(need.field, need.word), need])).values()];
  const reviewsNeeded = needs.reviews.size > 0;
  const [labels, epics, people, unresolved, commented, reviews, reviewTypes, ...worded] = await Promise.all([
    needs.labels.size > 0 ? read('labels').find(inProject({ name: { $in: [...needs.labels] } })) : none,
    needs.epics ? read('epics').find(inProject()) : none,
    needs.people.size > 0 ? membersOf(projectId, read) : none,
    needs.blocked ? read('blockers').find(inProject({ resolved: false })) : none,
    needs.attachments ? read('comments').find(inProject(nonEmpty('file_attachment_ids'))) : none,
    reviewsNeeded ? read('reviews').find(inProject()) : none,
    reviewsNeeded ? read('review_types').find(inProject()) : none,
    ...texts.map((need) => read(STORY_WORDS).find(inProject(textIndexCondition(need)), { fields: [] })),
  ]);
  const epicLabelIds = new Map<string, number>();
  for (const epic of epics) if (typeof epic.label_id === 'number') epicLabelIds.set(String(epic.name).toLowerCase(), epic.label_id);
  const peopleByRef = new Map([...needs.people].map((ref) => [ref, peopleNamed(ref, people)]));
  return {
    labelIds: new Map(labels.map((label) => [String(label.name), label.id])),
    epicLabelIds,
    allEpicLabelIds: [...epicLabelIds.values()],
    people: peopleByRef,
    blockedStoryIds: [...new Set(unresolved.map((blocker) => blocker.story_id as number))],
    storyIdsWithAttachments: [...new Set(commented.flatMap((comment) => (typeof comment.story_id === 'number' ? [comment.story_id] : [])))],
    storyIdsByText: new Map(texts.map((need, i) => [textKey(need.field, need.word), worded[i]!.map((doc) => doc.id)])),
    storyIdsByReview: new Map([...needs.reviews].map(([key, need]) => [key, storiesReviewed(need, reviews, reviewTypes, peopleByRef)])),
  };
}

/** The stories with a review matching one value of a review term: its type's name, its status, its reviewer. */
function storiesReviewed(
  need: { field: 'review' | 'review_status' | 'reviewer'; value: string },
  reviews: readonly Doc[],
  reviewTypes: readonly Doc[],
  peopleByRef: ReadonlyMap<string, readonly number[]>,
): number[] {
  let matches: (review: Doc) => boolean;
  if (need.field === 'review') {
    const typeIds = new Set(reviewTypes.filter((type) => String(type.name).trim().toLowerCase() === need.value.trim()).map((type) => type.id));
    matches = (review) => typeIds.has(review.review_type_id as number);
  } else if (need.field === 'review_status') {
    matches = (review) => review.status === need.value;
  } else {
    const reviewers = new Set(peopleByRef.get(need.value) ?? []);
    matches = (review) => reviewers.has(review.reviewer_id as number);
  }
  return [...new Set(reviews.filter(matches).map((review) => review.story_id as number))];
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

async function membersOf(projectId: number, read: SearchReader): Promise<Doc[]> {
  const memberships = await read('project_memberships').find({ project_id: projectId });
  return read('people').find({ id: { $in: memberships.map((membership) => membership.person_id) } });
}

function peopleNamed(ref: string, people: readonly Doc[]): number[] {
  const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : undefined);
  const exact = people.filter(
    (person) => lower(person.initials) === ref || lower(person.username) === ref || lower(person.name) === ref || String(person.id) === ref,
  );
  const named = exact.length > 0 ? exact : people.filter((person) => lower(person.name)?.includes(ref));
  return named.map((person) => person.id);
}
