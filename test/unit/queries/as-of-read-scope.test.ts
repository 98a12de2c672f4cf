// The time-travel read scope: inside run() project-scoped collections read from the travelling reader,
// people stay live, everything else reads live; overlapping travels keep their own readers, also once
// another has finished (the storage is disabled between travels, never under one in flight).
import { expect } from 'chai';
import type { Doc, ReadOnlyCollection } from '../../../src/ports/read-store.js';
import { AsOfReadScope, type CollectionReader } from '../../../src/queries/time-travel.js';

function readerOf(source: string): CollectionReader {
  return (name) => {
    const doc: Doc = { id: 1, name, source };
    const collection: ReadOnlyCollection = {
      name,
      find: async () => [doc],
      findOne: async () => doc,
      count: async () => 1,
      all: async () => [doc],
    };
    return collection;
  };
}

const sourceOf = async (read: CollectionReader, name: string) => (await read(name).findOne({ id: 1 }))?.['source'];
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('as-of read scope', () => {
  const scope = new AsOfReadScope();
  const read = scope.reads(readerOf('live'));

  it('reads project collections from the travelling reader inside run, and people live', async () => {
    const inside = await scope.run(readerOf('v3'), async () => [await sourceOf(read, 'stories'), await sourceOf(read, 'people')]);
    expect(inside).to.deep.equal(['v3', 'live']);
    expect(await sourceOf(read, 'stories')).to.equal('live');
  });

  it('keeps each overlapping travel on its own reader, also after another travel finished', async () => {
    let releaseLong!: () => void;
    const held = new Promise<void>((resolve) => (releaseLong = resolve));
    const long = scope.run(readerOf('v5'), async () => {
      const before = await sourceOf(read, 'stories');
      await held;
      await tick();
      return [before, await sourceOf(read, 'stories')];
    });
    const short = await scope.run(readerOf('v2'), async () => sourceOf(read, 'stories'));
    expect(await sourceOf(read, 'stories')).to.equal('live');
    releaseLong();
    expect(short).to.equal('v2');
    expect(await long).to.deep.equal(['v5', 'v5']);
    expect(await sourceOf(read, 'labels')).to.equal('live');
  });

  it('ends a travel whose task fails, and the next travel reads its own reader', async () => {
    const failed = await scope.run(readerOf('v1'), async () => { throw new Error('refused'); }).catch((error: Error) => error.message);
    expect(failed).to.equal('refused');
    expect(await sourceOf(read, 'stories')).to.equal('live');
    expect(await scope.run(readerOf('v4'), async () => sourceOf(read, 'stories'))).to.equal('v4');
  });
});
