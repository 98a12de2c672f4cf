// Answers remembered until the read models change: a hit while the stamp stays, everything forgotten when
// it moves, nothing remembered that was computed across a change, shared values frozen, bounded size.
import { expect } from 'chai';
import { ReadModelMemo } from '../../../src/queries/read-model-memo.js';

/** Read models whose collections change one at a time (`move(name)`), or some unnamed one (`move()`). */
function changesAt(start = 0): { stamp(): number; stampOf(collections: readonly string[]): number; move(collection?: string): void } {
  let stamp = start;
  const byCollection = new Map<string, number>();
  return {
    stamp: () => stamp,
    stampOf: (collections) => collections.reduce((sum, name) => sum + (byCollection.get(name) ?? 0), 0),
    move: (collection) => {
      stamp++;
      if (collection !== undefined) byCollection.set(collection, (byCollection.get(collection) ?? 0) + 1);
    },
  };
}

describe('ReadModelMemo', () => {
  it('computes once while the read models stay unchanged, again after they changed', async () => {
    const changes = changesAt();
    const memo = new ReadModelMemo<string, { n: number }>(changes);
    let computed = 0;
    const compute = async () => ({ n: ++computed });
    expect(await memo.get('a', compute)).to.deep.equal({ n: 1 });
    expect(await memo.get('a', compute)).to.deep.equal({ n: 1 });
    expect(await memo.get('b', compute)).to.deep.equal({ n: 2 });
    changes.move();
    expect(await memo.get('a', compute)).to.deep.equal({ n: 3 });
    expect(await memo.get('b', compute)).to.deep.equal({ n: 4 });
  });

  it('keeps answers derived from some collections while only others change', async () => {
    const changes = changesAt();
    const memo = new ReadModelMemo<string, number>(changes, { dependsOn: ['memberships', 'people'] });
    let computed = 0;
    const compute = async () => ++computed;
    expect(await memo.get('a', compute)).to.equal(1);
    changes.move('stories');
    expect(await memo.get('a', compute)).to.equal(1);
    changes.move('people');
    expect(await memo.get('a', compute)).to.equal(2);
    changes.move('memberships');
    expect(await memo.get('a', compute)).to.equal(3);
  });

  it('remembers null answers too (an unknown project asked again)', async () => {
    const memo = new ReadModelMemo<string, null>(changesAt());
    let computed = 0;
    const compute = async () => {
      computed++;
      return null;
    };
    await memo.get('x', compute);
    await memo.get('x', compute);
    expect(computed).to.equal(1);
  });

  it('does not remember an answer computed while a change became visible', async () => {
    const changes = changesAt();
    const memo = new ReadModelMemo<string, string>(changes);
    expect(
      await memo.get('a', async () => {
        changes.move(); // the read models changed while this answer was being read
        return 'maybe old';
      }),
    ).to.equal('maybe old');
    expect(await memo.get('a', async () => 'current')).to.equal('current');
  });

  it('freezes what it serves again, nested members included', async () => {
    const memo = new ReadModelMemo<string, { project: { labels: string[] } }>(changesAt());
    await memo.get('a', async () => ({ project: { labels: ['x'] } }));
    const value = await memo.get('a', async () => ({ project: { labels: ['other'] } }));
    expect(() => value.project.labels.push('y')).to.throw(TypeError);
    expect(() => {
      (value.project as { labels: string[] }).labels = [];
    }).to.throw(TypeError);
  });

  it('forgets everything when full, then remembers again', async () => {
    const memo = new ReadModelMemo<number, number>(changesAt(), { maxEntries: 3 });
    let computed = 0;
    const compute = async () => ++computed;
    for (const key of [1, 2, 3]) await memo.get(key, compute);
    expect(computed).to.equal(3);
    await memo.get(4, compute); // full: forgets 1, 2, 3
    await memo.get(1, compute);
    expect(computed).to.equal(5);
    await memo.get(1, compute);
    expect(computed).to.equal(5);
  });
});
