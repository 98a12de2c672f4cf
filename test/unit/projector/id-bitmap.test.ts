// The id set a rebuild keeps of the documents it moved out: bits for small ids, a Set for the rest,
// the same answers as a Set for any mix of them.
import { expect } from 'chai';
import { IdBitmap } from '../../../src/infra/projector/id-bitmap.js';
import { seededRandom } from '../../support/seeded-random.js';

describe('id bitmap', () => {
  it('answers as a Set does for small, large, negative and fractional ids added and deleted at random', () => {
    const random = seededRandom(26);
    const kinds = [() => Math.floor(random() * 5000), () => 2 ** 26 + Math.floor(random() * 100), () => -Math.floor(random() * 100), () => Math.floor(random() * 50) + 0.5];
    const bitmap = new IdBitmap();
    const reference = new Set<number>();
    for (let i = 0; i < 20_000; i++) {
      const id = kinds[Math.floor(random() * kinds.length)]!();
      if (random() < 0.7) {
        bitmap.add(id);
        reference.add(id);
      } else {
        bitmap.delete(id);
        reference.delete(id);
      }
      const probe = kinds[Math.floor(random() * kinds.length)]!();
      expect(bitmap.has(probe)).to.equal(reference.has(probe));
    }
    expect([...bitmap.ids()].sort((a, b) => a - b)).to.deep.equal([...reference].sort((a, b) => a - b));
  });
});
