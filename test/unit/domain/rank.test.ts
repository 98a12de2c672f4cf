import { expect } from 'chai';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { FIRST_KEY, compareKeys, isKey, keyAfter, keyBetween } from '../../../src/domain/rank.js';

/** [above, below, keyBetween, keyAfter?] as the hand-written implementation gave them before the library. */
const recordedKeys = JSON.parse(
  readFileSync(new URL('../../../../test/unit/domain/fixtures/rank-keys-recorded.json', import.meta.url), 'utf8'),
) as [string | null, string | null, string, string?][];

describe('rank keys (fractional indexing)', () => {
  it('gives the same keys as the hand-written implementation did (appends, prepends, one gap, runs, random, extremes)', () => {
    expect(recordedKeys.length).to.be.greaterThan(3000);
    for (const [above, below, between, after] of recordedKeys) {
      expect(keyBetween(above, below), `between ${above} and ${below}`).to.equal(between);
      if (after !== undefined) expect(keyAfter(above!, below!), `after ${above} before ${below}`).to.equal(after);
    }
  });

  it('hands out a first key and keys on either side of it', () => {
    const first = keyBetween(null, null);
    expect(first).to.equal(FIRST_KEY);
    const above = keyBetween(null, first);
    const below = keyBetween(first, null);
    expect(above < first && first < below).to.equal(true);
  });

  it('always finds a key strictly between two keys, whatever the sequence of insertions', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 200 }), (positions) => {
        const keys: string[] = [];
        for (const position of positions) {
          const at = position % (keys.length + 1);
          const key = keyBetween(keys[at - 1] ?? null, keys[at] ?? null);
          expect(isKey(key), key).to.equal(true);
          keys.splice(at, 0, key);
        }
        const sorted = [...keys].sort(compareKeys);
        expect(sorted).to.deep.equal(keys);
        expect(new Set(keys).size).to.equal(keys.length);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps keys short when a list grows at either end (appends and prepends bump the integer part)', () => {
    let last = FIRST_KEY;
    let first = FIRST_KEY;
    for (let i = 0; i < 10_000; i++) {
      last = keyBetween(last, null);
      first = keyBetween(null, first);
    }
    expect(last.length).to.be.at.most(4);
    expect(first.length).to.be.at.most(4);
  });

  it('grows by about one character per six insertions into the same gap', () => {
    let above = keyBetween(null, null);
    const below = keyBetween(above, null);
    for (let i = 0; i < 60; i++) above = keyBetween(above, below);
    expect(above.length).to.be.at.most(14);
  });

  it('refuses keys given out of order', () => {
    const key = keyBetween(null, null);
    expect(() => keyBetween(key, key)).to.throw(/out of order/);
    expect(() => keyBetween(keyBetween(key, null), key)).to.throw(/out of order/);
  });

  it('recognises malformed keys', () => {
    expect(isKey('a0')).to.equal(true);
    expect(isKey('a0V')).to.equal(true);
    expect(isKey('a00')).to.equal(false);
    expect(isKey('!')).to.equal(false);
    expect(isKey('b0')).to.equal(false);
  });

  describe('keyAfter', () => {
    it('finds a valid key strictly between two keys, whatever they are', () => {
      fc.assert(
        fc.property(fc.array(fc.nat(), { minLength: 2, maxLength: 120 }), fc.nat(), (positions, pick) => {
          const keys: string[] = [];
          for (const position of positions) {
            const at = position % (keys.length + 1);
            keys.splice(at, 0, keyBetween(keys[at - 1] ?? null, keys[at] ?? null));
          }
          const at = pick % (keys.length - 1);
          const key = keyAfter(keys[at]!, keys[at + 1]!);
          expect(isKey(key), key).to.equal(true);
          expect(keys[at]! < key && key < keys[at + 1]!).to.equal(true);
        }),
        { numRuns: 300 },
      );
    });

    it('keeps keys short over a long run of insertions each directly below the previous one', () => {
      for (const [start, end] of [[FIRST_KEY, keyBetween(FIRST_KEY, null)], ['a0', 'a01'], ['a0zzz', 'a1'], ['Zz', 'a0']] as const) {
        let above: string = start;
        for (let i = 0; i < 50_000; i++) {
          const key = keyAfter(above, end);
          expect(above < key && key < end, `${above} < ${key} < ${end}`).to.equal(true);
          above = key;
        }
        expect(above.length, `from ${start} to ${end}`).to.be.at.most(start.length + 10);
      }
    });

    it('refuses keys given out of order', () => {
      expect(() => keyAfter('a1', 'a0')).to.throw(/out of order/);
      expect(() => keyAfter('a0', 'a0')).to.throw(/out of order/);
    });
  });
});
