// The import's reader posts a batch as one string and the lengths of its texts: the writer must cut out
// exactly the events that went in, whatever their texts hold.
import { expect } from 'chai';
import { packEventBatch, unpackEventBatch } from '../../../src/infra/export/packed-event-batch.js';
import { seededRandom } from '../../support/seeded-random.js';

describe('packed import batches', () => {
  it('give back every event as it was packed: empty texts, two-byte and astral characters, large versions', () => {
    const random = seededRandom(21);
    const pieces = ['', 'a', 'é', '✓', '😀', '"', '\\', '\u0000', 'project-7'];
    const text = () => Array.from({ length: Math.floor(random() * 6) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
    const events = Array.from({ length: 500 }, (_, n) => ({
      id: text(), stream: text(), version: n === 0 ? Number.MAX_SAFE_INTEGER : 1 + Math.floor(random() * 1e6), type: text(), data: text(), meta: text(), hash: text(), line: n + 1,
    }));
    expect(unpackEventBatch(packEventBatch(events))).to.deep.equal(events);
    expect(unpackEventBatch(packEventBatch([]))).to.deep.equal([]);
  });
});
