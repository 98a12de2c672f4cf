import { expect } from 'chai';
import { ResponseCache, entrySize, type CachedResponse } from '../../../src/api/response-cache.js';

const response = (bytes: number): CachedResponse => ({ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.alloc(bytes) });

describe('ResponseCache', () => {
  it('keeps at most `entries` responses, the least recently used going first', () => {
    const cache = new ResponseCache({ entries: 2, bytes: 1_000_000 });
    cache.set('a', response(10));
    cache.set('b', response(10));
    expect(cache.get('a')).to.not.equal(undefined);
    cache.set('c', response(10));
    expect([cache.get('a'), cache.get('b'), cache.get('c')].map((kept) => kept !== undefined)).to.deep.equal([true, false, true]);
    expect(cache.size).to.equal(2);
  });

  it('keeps its bytes, as entrySize counts them, within the budget, and no response larger than it', () => {
    const one = entrySize('a', response(1_000));
    const cache = new ResponseCache({ entries: 100, bytes: one * 2 });
    for (const key of ['a', 'b', 'c']) cache.set(key, response(1_000));
    expect(cache.size).to.equal(2);
    expect(cache.bytes).to.equal(one * 2);
    expect(cache.get('a')).to.equal(undefined);
    cache.set('b', response(one * 3));
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.bytes).to.equal(one);
  });

  it('keeps nothing when a limit is 0', () => {
    for (const limits of [{ entries: 0, bytes: 1_000_000 }, { entries: 10, bytes: 0 }]) {
      const cache = new ResponseCache(limits);
      cache.set('a', response(10));
      expect(cache.get('a')).to.equal(undefined);
      expect([cache.size, cache.bytes]).to.deep.equal([0, 0]);
    }
  });
});
