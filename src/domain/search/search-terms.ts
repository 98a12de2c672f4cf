// From what the lexer read (a keyword and its comma-separated items, or a free-text word) to the term of
// the AST: validation and canonical values. A problem is a QuerySyntaxError at the item's position.
import type { SearchTerm, TextWord } from './search-ast.js';
import { EARLIEST_YEAR, parseDateSpan } from './search-dates.js';
import { FLAG_SPELLINGS, STORY_STATES, STORY_TYPES, type KeywordReading } from './search-keywords.js';
import { REVIEW_STATUSES } from '../review/review-state.js';

/** A problem in the query text at a 0-based position; the parser turns it into a 400. */
export class QuerySyntaxError extends Error {
  constructor(
    readonly problem: string,
    readonly at: number,
  ) {
    super(problem);
    this.name = 'QuerySyntaxError';
  }
}

/** One value as written: its text (quotes removed), whether it was quoted, where it starts. */
export interface RawItem {
  text: string;
  quoted: boolean;
  at: number;
}

/** A free-text word or quoted phrase: a bare word's trailing `*` asks for a prefix. */
export function textWord(item: RawItem): TextWord {
  const prefix = !item.quoted && item.text.endsWith('*');
  const text = prefix ? item.text.slice(0, -1) : item.text;
  if (text.trim() === '') {
    throw new QuerySyntaxError(prefix ? "a '*' needs at least one character before it" : 'an empty quoted phrase matches nothing', item.at);
  }
  return { text, prefix };
}

const ID = /^[0-9]{1,15}$/;
const ESTIMATE = /^(?:-1|[0-9]{1,6}(?:\.[0-9]{1,4})?)$/;

/** The term of `keyword:` (written at `keywordAt`) with its items. */
export function keywordTerm(keyword: string, keywordAt: number, reading: KeywordReading, items: RawItem[]): SearchTerm {
  const single = (): RawItem => {
    if (items.length > 1) throw new QuerySyntaxError(`${keyword}: takes one value, not a comma list`, items[1]!.at);
    return items[0]!;
  };
  switch (reading.read) {
    case 'refused':
      throw new QuerySyntaxError(`${keyword}: is not supported: ${reading.reason}`, keywordAt);
    case 'words':
      return { kind: 'words', field: reading.field, words: items.map(textWord) };
    case 'values':
      return { kind: 'values', field: reading.field, values: items.map((item) => enumeratedValue(keyword, reading.field, item)) };
    case 'numbers': {
      const pattern = reading.field === 'id' ? ID : ESTIMATE;
      const what = reading.field === 'id' ? 'a story id (digits)' : 'points (a number, or -1 for unestimated)';
      return {
        kind: 'numbers',
        field: reading.field,
        numbers: items.map((item) => {
          if (!pattern.test(item.text)) throw new QuerySyntaxError(`${keyword}: "${item.text}" is not ${what}`, item.at);
          return Number(item.text);
        }),
      };
    }
    case 'flags': {
      const spellings = FLAG_SPELLINGS[reading.field];
      return {
        kind: 'flags',
        field: reading.field,
        flags: items.map((item) => {
          const flag = spellings.get(item.text.toLowerCase());
          if (!flag) throw new QuerySyntaxError(`${keyword}: "${item.text}" is not one of ${[...spellings.keys()].join(', ')}`, item.at);
          return flag;
        }),
      };
    }
    case 'date': {
      const item = single();
      const span = parseDateSpan(item.text);
      if (!span) {
        throw new QuerySyntaxError(
          `${keyword}: "${item.text}" is not a date (YYYY-MM-DD from ${EARLIEST_YEAR}, today, yesterday, -3d, -2w, -5h, or a range a..b)`,
          item.at,
        );
      }
      return { kind: 'date', field: reading.field, mode: reading.mode, span };
    }
    case 'includedone': {
      const item = single();
      const value = item.text.toLowerCase();
      if (value !== 'true' && value !== 'false') throw new QuerySyntaxError(`${keyword}: takes true or false`, item.at);
      return { kind: 'includedone', value: value === 'true' };
    }
  }
}

/** Where `""` is allowed: it names the absence (no label, no epic, unowned, no requester). */
const ABSENCE_ALLOWED = new Set(['label', 'epic', 'owner', 'requester']);

function enumeratedValue(keyword: string, field: string, item: RawItem): string {
  if (field === 'state' || field === 'type' || field === 'review_status') {
    const allowed = field === 'state' ? STORY_STATES : field === 'type' ? STORY_TYPES : REVIEW_STATUSES;
    const value = item.text.toLowerCase();
    if (!allowed.includes(value)) throw new QuerySyntaxError(`${keyword}: "${item.text}" is not one of ${allowed.join(', ')}`, item.at);
    return value;
  }
  if (item.text === '' && !ABSENCE_ALLOWED.has(field)) throw new QuerySyntaxError(`${keyword}: needs a value`, item.at);
  return field === 'external_id' ? item.text : item.text.toLowerCase();
}
