// What a word is for search, shared by the text index (projections/search/) and the query compiler
// (queries/search/), so that both cut and compare words alike. Letters of the Latin and Cyrillic
// scripts, digits and `_` make up words; anything else separates them. Words are compared as a
// case-insensitive JavaScript regular expression compares characters: each character folded to its
// canonical (upper-case) form under the `/i` flag, so an index lookup of a folded word finds exactly
// the texts the whole-word pattern of search-text-pattern.ts matches.

/** The word characters, as the body of a regular-expression character class. */
export const WORD_CHARACTERS = 'A-Za-z0-9_À-ÖØ-öø-ɏЀ-ӿ';

const WORD = new RegExp(`[${WORD_CHARACTERS}]+`, 'gi');
const WORD_CHARACTER = new RegExp(`^[${WORD_CHARACTERS}]$`, 'i');

/** Whether one character is a word character (under the same case-insensitive reading as the patterns). */
export function isWordCharacter(character: string): boolean {
  return WORD_CHARACTER.test(character);
}

/** A character's canonical form under a non-unicode `/i` regular expression (ECMAScript's Canonicalize). */
function canonicalCharacter(character: string): string {
  const upper = character.toUpperCase();
  if (upper.length !== 1) return character;
  return character.charCodeAt(0) >= 128 && upper.charCodeAt(0) < 128 ? character : upper;
}

const ASCII = /^[\x00-\x7f]*$/;

/** The word in the form the text index keeps and looks up. */
export function foldWord(word: string): string {
  if (ASCII.test(word)) return word.toUpperCase();
  let folded = '';
  for (const character of word) folded += character.length === 1 ? canonicalCharacter(character) : character;
  return folded;
}

/**
 * The words of an ASCII text once folded: ASCII characters fold among themselves (to upper case), so
 * the text is folded whole and cut without the `/i` flag, which costs most of the general path's time
 * (the text index projection cuts every story name and description of a replay).
 */
const ASCII_WORD = /[A-Za-z0-9_]+/g;

/** The distinct folded words of a text, in order of first appearance. */
export function searchWords(text: string): string[] {
  if (ASCII.test(text)) return [...new Set(text.toUpperCase().match(ASCII_WORD))];
  return [...new Set(Array.from(text.matchAll(WORD), ([word]) => foldWord(word)))];
}

/** The least string above every string that starts with `prefix` (the exclusive end of its index range). */
export function prefixRangeEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
