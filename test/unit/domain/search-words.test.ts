// The words of the text index: the ASCII fast path of searchWords cuts and folds exactly as the general
// path (every character through the case-insensitive word pattern, each word folded by foldWord).
import { expect } from 'chai';
import fc from 'fast-check';
import { WORD_CHARACTERS, foldWord, searchWords } from '../../../src/domain/search/search-words.js';

/** The general path, written out: what searchWords gives for any text. */
function generalWords(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(new RegExp(`[${WORD_CHARACTERS}]+`, 'gi')), ([word]) => foldWord(word)))];
}

describe('search words', () => {
  it('cuts ASCII texts as the general path does', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((code) => String.fromCharCode(code)), maxLength: 200 }), (text) => {
        expect(searchWords(text)).to.deep.equal(generalWords(text));
      }),
      { seed: 20261123, numRuns: 2000 },
    );
  });

  it('folds to upper case, keeps first appearances once, and leaves texts with other scripts to the general path', () => {
    expect(searchWords('Export the CSV, export it: csv_2 ')).to.deep.equal(['EXPORT', 'THE', 'CSV', 'IT', 'CSV_2']);
    expect(searchWords('')).to.deep.equal([]);
    expect(searchWords('...')).to.deep.equal([]);
    expect(searchWords('Café ſtraße Москва')).to.deep.equal(generalWords('Café ſtraße Москва'));
  });
});
