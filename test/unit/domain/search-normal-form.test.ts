// withoutRepeats: a query with each repeated operand of an AND or OR chain once, the same answer for
// every story (the brute-force and chain properties of test/unit/queries/search pin the answers).
import { expect } from 'chai';
import { withoutRepeats } from '../../../src/domain/search/search-normal-form.js';
import { parseSearchQuery } from '../../../src/domain/search/search-parser.js';
import { printSearchQuery } from '../../../src/domain/search/search-printer.js';

const normal = (text: string) => printSearchQuery(withoutRepeats(parseSearchQuery(text, 'query')));

describe('search query without repeats', () => {
  it('keeps each distinct operand of a chain once, at its last place, however the chain was grouped', () => {
    expect(normal(Array(200).fill('webhook').join(' '))).to.equal('webhook');
    expect(normal('a b a')).to.equal('b AND a');
    expect(normal('(a b) (c a) b')).to.equal('c AND a AND b');
    expect(normal('a OR b OR (a OR c)')).to.equal('b OR a OR c');
    expect(normal('label:ops state:started label:ops')).to.equal('state:started AND label:ops');
    expect(normal('Webhook webhook')).to.equal('Webhook AND webhook'); // texts differ: the index folds them, the AST keeps them
  });

  it('leaves chains of the other operator whole, and removes repeats inside groups and negations', () => {
    expect(normal('a OR b a OR b')).to.equal('a OR b AND a OR b');
    expect(normal('-(a a) (b OR b)')).to.equal('-a AND b');
    expect(normal('(a b) OR (a b)')).to.equal('a AND b');
  });

  it('keeps the last includedone: of the top-level chain the last one', () => {
    expect(normal('includedone:true includedone:false x includedone:true')).to.equal('includedone:false AND x AND includedone:true');
    expect(normal('includedone:false includedone:true includedone:false')).to.equal('includedone:true AND includedone:false');
  });

  it('keeps a blank query blank', () => {
    expect(withoutRepeats(parseSearchQuery('  ', 'query'))).to.equal(null);
  });
});
