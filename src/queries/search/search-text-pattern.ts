// How a free-text word or phrase matches a text: case-insensitively, as a whole word (or a word's
// beginning, for a trailing `*`), the word's characters taken literally. The pattern is a plain regular
// expression source (escaped, no nested quantifiers, so matching stays linear) that MongoDB, mingo and
// JavaScript all read the same way. Letters of the Latin and Cyrillic scripts, digits and `_` make up
// words; anything else separates them. White space inside a phrase matches any run of white space.
import type { TextWord } from './search-ast.js';

const WORD_CHARACTERS = 'A-Za-z0-9_À-ÖØ-öø-ɏЀ-ӿ';
const WORD_CHARACTER = new RegExp(`[${WORD_CHARACTERS}]`);
// Lookarounds of one character (fixed width: JavaScript and PCRE alike), faster than alternations.
const WORD_START = `(?<![${WORD_CHARACTERS}])`;
const WORD_END = `(?![${WORD_CHARACTERS}])`;

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

export function textPattern(word: TextWord): string {
  const body = word.text.trim().split(/\s+/).map(escapeRegex).join('\\s+');
  const start = WORD_CHARACTER.test(word.text.trim()[0] ?? '') ? WORD_START : '';
  const end = !word.prefix && WORD_CHARACTER.test(word.text.trim().at(-1) ?? '') ? WORD_END : '';
  return `${start}${body}${end}`;
}

/** The read-store condition "`field` contains the word". */
export function textCondition(field: string, word: TextWord): Record<string, unknown> {
  return { [field]: { $regex: textPattern(word), $options: 'i' } };
}
