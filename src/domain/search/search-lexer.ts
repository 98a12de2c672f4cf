// The tokens of a query, in one left-to-right pass (every character is looked at a bounded number of
// times, so lexing is linear in the query length):
//   (  )                 grouping
//   AND  OR              operators (upper case, as bare words)
//   -                    negation, directly before a term or a `(`
//   keyword:v1,"v 2"     a keyword term: items are bare (no space, quote, parenthesis or comma) or quoted
//   word  word*  "a b"   free text; a bare word's trailing `*` asks for a prefix
// A double quote opens a phrase that runs to the next double quote (there is no escape); after a phrase
// or a bare word only a space, a parenthesis or the end may follow.
import type { SearchTerm } from './search-ast.js';
import { KEYWORDS } from './search-keywords.js';
import { MAX_QUERY_TERMS } from './search-limits.js';
import { QuerySyntaxError, keywordTerm, textWord, type RawItem } from './search-terms.js';

export type Token =
  | { kind: 'open' | 'close' | 'not'; at: number }
  | { kind: 'op'; op: 'and' | 'or'; at: number }
  | { kind: 'term'; term: SearchTerm; at: number };

const KEYWORD = /([A-Za-z_]+):/y;
const BARE_WORD = /[^\s()"]+/y;
const BARE_ITEM = /[^\s()",]+/y;
const SPACE = /\s/;

function isDelimiter(char: string | undefined): boolean {
  return char === undefined || char === '(' || char === ')' || SPACE.test(char);
}

export function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let terms = 0;
  let at = 0;
  const pushTerm = (term: SearchTerm, start: number) => {
    if (++terms > MAX_QUERY_TERMS) throw new QuerySyntaxError(`a query holds at most ${MAX_QUERY_TERMS} terms`, start);
    tokens.push({ kind: 'term', term, at: start });
  };
  while (at < text.length) {
    const char = text[at]!;
    if (SPACE.test(char)) {
      at++;
    } else if (char === '(' || char === ')') {
      tokens.push({ kind: char === '(' ? 'open' : 'close', at });
      at++;
    } else if (char === '-') {
      const next = text[at + 1];
      if (next === '-' || (isDelimiter(next) && next !== '(')) throw new QuerySyntaxError("a '-' must be followed directly by a term or a '('", at);
      tokens.push({ kind: 'not', at });
      at++;
    } else if (char === '"') {
      const item = quoted(text, at);
      at = afterItem(text, item.end, false);
      pushTerm({ kind: 'text', word: textWord(item) }, item.at);
    } else {
      KEYWORD.lastIndex = at;
      const keyword = KEYWORD.exec(text);
      if (keyword) {
        const name = keyword[1]!.toLowerCase();
        const reading = KEYWORDS.get(name);
        if (!reading) throw new QuerySyntaxError(`unknown search keyword "${keyword[1]}:"`, at);
        const { items, end } = keywordItems(text, at + keyword[0].length, keyword[1]!);
        pushTerm(keywordTerm(keyword[1]!, at, reading, items), at);
        at = end;
        continue;
      }
      BARE_WORD.lastIndex = at;
      const word = BARE_WORD.exec(text)![0];
      const end = afterItem(text, at + word.length, false);
      if (word === 'AND' || word === 'OR') tokens.push({ kind: 'op', op: word === 'AND' ? 'and' : 'or', at });
      else pushTerm({ kind: 'text', word: textWord({ text: word, quoted: false, at }) }, at);
      at = end;
    }
  }
  return tokens;
}

/** The phrase opening at `at` (a double quote) and the position after its closing quote. */
function quoted(text: string, at: number): RawItem & { end: number } {
  const close = text.indexOf('"', at + 1);
  if (close < 0) throw new QuerySyntaxError('this double quote is never closed', at);
  return { text: text.slice(at + 1, close), quoted: true, at, end: close + 1 };
}

/** Checks what follows an item; returns where the next token starts. */
function afterItem(text: string, end: number, inList: boolean): number {
  const next = text[end];
  if (isDelimiter(next) || (inList && next === ',')) return end;
  throw new QuerySyntaxError(
    next === '"' ? 'a double quote in the middle of a word: quote the whole value' : 'a closing double quote must be followed by a space',
    end,
  );
}

/** The comma-separated items after `keyword:`. */
function keywordItems(text: string, start: number, keyword: string): { items: RawItem[]; end: number } {
  const items: RawItem[] = [];
  let at = start;
  for (;;) {
    if (text[at] === '"') {
      const item = quoted(text, at);
      items.push(item);
      at = afterItem(text, item.end, true);
    } else {
      BARE_ITEM.lastIndex = at;
      const match = BARE_ITEM.exec(text);
      if (!match) throw new QuerySyntaxError(`${keyword}: needs a value right after the colon (quote a value with spaces)`, at);
      items.push({ text: match[0], quoted: false, at });
      at = afterItem(text, at + match[0].length, true);
    }
    if (text[at] !== ',') return { items, end: at };
    at++;
  }
}
