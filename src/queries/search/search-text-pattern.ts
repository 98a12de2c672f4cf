// How a free-text word or phrase matches a text: case-insensitively, as a whole word (or a word's
// beginning, for a trailing `*`), the word's characters taken literally. The pattern is a plain regular
// expression source (escaped, no nested quantifiers, so matching stays linear) that MongoDB, mingo and
// JavaScript all read the same way. What a word is: src/domain/search/search-words.ts, shared with the text
// index. White space inside a phrase matches any run of white space.
//
// The text index answers a word without reading any text: every word the query text holds is a whole
// word of a matching text (the last one only its beginning, for a trailing `*`), so the stories holding
// them all are the candidates; when the text is that one word and nothing else, they are the answer.
import { WORD_CHARACTERS, foldWord, isWordCharacter, searchWords } from '../../domain/search/search-words.js';
import type { TextWord } from '../../domain/search/search-ast.js';

// Lookarounds of one character (fixed width: JavaScript and PCRE alike), faster than alternations.
const WORD_START = `(?<![${WORD_CHARACTERS}])`;
const WORD_END = `(?![${WORD_CHARACTERS}])`;

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

export function textPattern(word: TextWord): string {
  const body = word.text.trim().split(/\s+/).map(escapeRegex).join('\\s+');
  const start = isWordCharacter(word.text.trim()[0] ?? '') ? WORD_START : '';
  const end = !word.prefix && isWordCharacter(word.text.trim().at(-1) ?? '') ? WORD_END : '';
  return `${start}${body}${end}`;
}

/** The read-store condition "`field` contains the word", read from the text itself. */
export function textCondition(field: string, word: TextWord): Record<string, unknown> {
  return { [field]: { $regex: textPattern(word), $options: 'i' } };
}

/** What the text index is asked for one text term. */
export interface TextLookup {
  /** Folded words a matching text holds as whole words. */
  words: string[];
  /** Folded beginning of a word a matching text holds (a trailing `*`), or null. */
  prefix: string | null;
  /** Whether the stories the index names all match, so the text itself need not be read. */
  exact: boolean;
}

/** The index lookup of a term, or null when its text holds no word (the pattern alone decides then). */
export function textLookup(word: TextWord): TextLookup | null {
  const text = word.text.trim();
  const words = searchWords(text);
  if (words.length === 0) return null;
  const prefixed = word.prefix && isWordCharacter(text.at(-1) ?? '');
  const last = prefixed ? foldWord(lastWordOf(text)) : null;
  const whole = prefixed ? searchWords(text.slice(0, text.length - lastWordOf(text).length)) : words;
  return { words: whole, prefix: last, exact: words.length === 1 && [...text].every(isWordCharacter) };
}

function lastWordOf(text: string): string {
  let start = text.length;
  while (start > 0 && isWordCharacter(text[start - 1]!)) start--;
  return text.slice(start);
}
