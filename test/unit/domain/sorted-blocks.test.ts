import { expect } from 'chai';
import fc from 'fast-check';
import { SortedBlocks } from '../../../src/domain/sorted-blocks.js';

/** The reference: a plain sorted array of distinct numbers. */
function reference(values: readonly number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}

describe('sorted blocks', () => {
  it('holds what a sorted array holds, and answers ends and neighbours as it does, across block splits', () => {
    const operation = fc.oneof(
      fc.record({ op: fc.constant('insert' as const), value: fc.integer({ min: 0, max: 3000 }) }),
      fc.record({ op: fc.constant('delete' as const), value: fc.integer({ min: 0, max: 3000 }) }),
    );
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 1500 }), fc.array(operation, { maxLength: 300 }), fc.array(fc.integer({ min: -1, max: 3001 }), { maxLength: 20 }), (seed, operations, probes) => {
        const blocks = new SortedBlocks<number>((a, b) => a - b);
        let held = reference([]);
        for (const value of seed) blocks.insert(value);
        held = reference(seed);
        for (const { op, value } of operations) {
          if (op === 'insert') {
            blocks.insert(value);
            held = reference([...held, value]);
          } else {
            expect(blocks.delete(value)).to.equal(held.includes(value));
            held = held.filter((v) => v !== value);
          }
        }
        expect([...blocks]).to.deep.equal(held);
        expect(blocks.size).to.equal(held.length);
        expect(blocks.first()).to.equal(held[0]);
        expect(blocks.last()).to.equal(held[held.length - 1]);
        for (const probe of [...probes, ...held.slice(0, 5), ...held.slice(-5)]) {
          expect(blocks.before(probe), `before ${probe}`).to.equal(held.filter((v) => v < probe).pop());
          expect(blocks.after(probe), `after ${probe}`).to.equal(held.find((v) => v > probe));
        }
      }),
      { numRuns: 60 },
    );
  });
});
