// The `filter` parameter of the stories list: a subset of the search grammar (facts §5) until the search
// issue brings the whole of it. Terms are separated by spaces and ANDed; a value with spaces is quoted;
// a leading `-` negates a term. Supported terms:
//   state:a,b      current_state is one of them          type:feature,bug   story_type is one of them
//   id:1,2         the story id is one of them            label:"x y"        carries that label (by name);
//                                                                           label:"" = carries no label
//   name:text      name contains text                     description:text   description contains text
//   free text      every word (or quoted phrase) appears in the name or the description
// Matching is case-insensitive. Any other `keyword:` of the grammar answers 400 rather than a silently
// wrong list.
//
// Cost: one request evaluates at most SEARCH_LIMITS.terms terms over a query of at most
// SEARCH_LIMITS.query_length characters (longer: 400 `invalid_parameter` on `filter`, before any story is
// read); each story's text is lower-cased once, cheap terms (state, type, id, label) run before text
// terms, and a story is dropped at its first failing term.
import { invalidField } from '../domain/errors.js';
import { SEARCH_LIMITS } from '../domain/input-limits.js';

export interface FilterTerm {
  keyword: 'state' | 'type' | 'id' | 'label' | 'name' | 'description' | 'text';
  values: string[];
  negated: boolean;
}

/** What a term needs to know about a story. */
export interface FilterableStory {
  id: number;
  name: string;
  description?: string;
  current_state: string;
  story_type: string;
  labelNames: readonly string[];
}

const KEYWORDS = new Set(['state', 'type', 'id', 'label', 'name', 'description']);
const LIST_KEYWORDS = new Set(['state', 'type', 'id']);
/** Keywords of the full grammar (facts §5.2) this subset does not evaluate yet. */
const UNSUPPORTED = new Set([
  'epic', 'epics', 'estimate', 'owner', 'owned_by', 'requester', 'requested_by', 'mywork', 'includedone',
  'external_id', 'is', 'has', 'no', 'review', 'review_status', 'reviewer', 'integration', 'created', 'created_on',
  'created_since', 'created_after', 'created_before', 'updated', 'updated_on', 'updated_since', 'modified_since',
  'updated_after', 'updated_before', 'accepted', 'accepted_on', 'accepted_since', 'accepted_after', 'accepted_before',
]);

/** Terms that compare short values, evaluated before the ones that scan a story's text. */
const CHEAP_KEYWORDS: ReadonlySet<FilterTerm['keyword']> = new Set(['state', 'type', 'id', 'label']);

export function parseStoryFilter(text: string): FilterTerm[] {
  if ([...text].length > SEARCH_LIMITS.query_length) {
    throw invalidField('filter', `The filter must be ${SEARCH_LIMITS.query_length} characters or less.`);
  }
  const found = tokens(text);
  if (found.length > SEARCH_LIMITS.terms) {
    throw invalidField('filter', `The filter can hold at most ${SEARCH_LIMITS.terms} terms; it has ${found.length}.`);
  }
  const terms: FilterTerm[] = [];
  for (const token of found) {
    const negated = token.raw.startsWith('-') && token.raw.length > 1;
    const body = negated ? token.raw.slice(1) : token.raw;
    const colon = body.indexOf(':');
    const keyword = colon > 0 ? body.slice(0, colon).toLowerCase() : null;
    if (keyword !== null && KEYWORDS.has(keyword)) {
      const value = unquote(body.slice(colon + 1));
      const values = LIST_KEYWORDS.has(keyword) ? value.split(',').filter((part) => part !== '') : [value];
      if (keyword === 'id' && values.some((part) => !/^[0-9]{1,16}$/.test(part))) {
        throw invalidField('filter', 'id: takes story ids separated by commas.');
      }
      terms.push({ keyword: keyword as FilterTerm['keyword'], values: values.map((part) => part.toLowerCase()), negated });
      continue;
    }
    if (keyword !== null && UNSUPPORTED.has(keyword)) {
      throw invalidField('filter', `The search term ${keyword}: is not supported in filter yet; supported: state:, type:, id:, label:, name:, description: and free text.`);
    }
    terms.push({ keyword: 'text', values: [unquote(body).toLowerCase()], negated });
  }
  return [...terms.filter((term) => CHEAP_KEYWORDS.has(term.keyword)), ...terms.filter((term) => !CHEAP_KEYWORDS.has(term.keyword))];
}

/** A story's text lower-cased once for every term of a filter. */
interface LoweredText {
  name: string;
  description: string;
  both: string;
}

export function matchesFilter(terms: readonly FilterTerm[], story: FilterableStory): boolean {
  let lowered: LoweredText | null = null;
  const text = (): LoweredText => {
    if (lowered === null) {
      const name = story.name.toLowerCase();
      const description = (story.description ?? '').toLowerCase();
      lowered = { name, description, both: `${name}\n${description}` };
    }
    return lowered;
  };
  for (const term of terms) {
    if (termMatches(term, story, text) === term.negated) return false;
  }
  return true;
}

function termMatches(term: FilterTerm, story: FilterableStory, text: () => LoweredText): boolean {
  switch (term.keyword) {
    case 'state':
      return term.values.includes(story.current_state);
    case 'type':
      return term.values.includes(story.story_type);
    case 'id':
      return term.values.includes(String(story.id));
    case 'label':
      return term.values[0] === '' ? story.labelNames.length === 0 : story.labelNames.includes(term.values[0]!);
    case 'name':
      return text().name.includes(term.values[0]!);
    case 'description':
      return text().description.includes(term.values[0]!);
    case 'text':
      return text().both.includes(term.values[0]!);
  }
}

/** Space-separated tokens; double quotes group (and may appear after a `keyword:`). */
function tokens(text: string): Array<{ raw: string }> {
  const out: Array<{ raw: string }> = [];
  let current = '';
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    if (/\s/.test(char) && !quoted) {
      if (current !== '') out.push({ raw: current });
      current = '';
      continue;
    }
    current += char;
  }
  if (quoted) throw invalidField('filter', 'The filter has an unbalanced double quote.');
  if (current !== '') out.push({ raw: current });
  return out;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}
