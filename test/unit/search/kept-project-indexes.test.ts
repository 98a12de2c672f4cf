// The search worker's kept values (KeptProjectIndexes): built once and answered while nothing is
// written; refreshed with exactly the documents noted since (a note arriving during a build or refresh
// included); built afresh when the writes are not all known, when too many were noted, or when a
// refresh says a build costs less; values of one collection untouched by notes about another.
import { expect } from 'chai';
import { KeptProjectIndexes } from '../../../src/infra/search/kept-project-indexes.js';

interface Value {
  bytes: number;
  /** Which make gave it: `build n` or `refresh of <value> with <ids>`. */
  made: string;
}

function harness(refreshAnswer: (value: Value, ids: readonly number[]) => Value | null = (value, ids) => ({ bytes: 10, made: `refresh of ${value.made} with ${ids.join(',')}` })) {
  const keeper = new KeptProjectIndexes(1_000);
  let builds = 0;
  const refreshed: number[][] = [];
  const kept = keeper.of<Value>('rows', 'stories__g1', async (value, _projectId, ids) => {
    refreshed.push([...ids]);
    return refreshAnswer(value, ids);
  });
  const build = async (): Promise<Value> => ({ bytes: 10, made: `build ${++builds}` });
  return { keeper, kept, build, refreshed, builds: () => builds };
}

describe('kept project indexes (the search worker)', () => {
  it('builds once and answers the kept value while nothing is written', async () => {
    const { kept, build, builds } = harness();
    expect(await kept.current(1)).to.equal(null);
    expect((await kept.valueOf(1, build)).made).to.equal('build 1');
    expect((await kept.valueOf(1, build)).made).to.equal('build 1');
    expect((await kept.current(1))?.made).to.equal('build 1');
    expect(builds()).to.equal(1);
  });

  it('refreshes with exactly the documents noted since, once, and keeps what the refresh gave', async () => {
    const { keeper, kept, build, refreshed } = harness();
    await kept.valueOf(1, build);
    keeper.note('stories__g1', [5, 6]);
    keeper.note('stories__g1', [6, 7]);
    keeper.note('story_words__g1', [99]);
    expect((await kept.valueOf(1, build)).made).to.equal('refresh of build 1 with 5,6,7');
    expect((await kept.current(1))?.made).to.equal('refresh of build 1 with 5,6,7');
    expect(refreshed).to.deep.equal([[5, 6, 7]]);
  });

  it('reads again what was noted while a value was being built, before answering it', async () => {
    const { keeper, kept, refreshed } = harness();
    let finish!: (value: Value) => void;
    const building = kept.valueOf(1, () => new Promise<Value>((resolve) => (finish = resolve)));
    await Promise.resolve();
    keeper.note('stories__g1', [3]);
    const asking = kept.valueOf(1, async () => ({ bytes: 10, made: 'a second build' }));
    finish({ bytes: 10, made: 'slow build' });
    expect((await building).made).to.equal('slow build');
    expect((await asking).made).to.equal('refresh of slow build with 3');
    expect(refreshed).to.deep.equal([[3]]);
  });

  it('builds afresh when the writes are not all known, when too many were noted, or when a refresh says so', async () => {
    const { keeper, kept, build, builds } = harness((value, ids) => (ids.includes(13) ? null : { bytes: 10, made: `refresh of ${value.made}` }));
    await kept.valueOf(1, build);
    keeper.note('stories__g1', null);
    expect(await kept.current(1)).to.equal(null);
    expect((await kept.valueOf(1, build)).made).to.equal('build 2');
    keeper.note('stories__g1', Array.from({ length: 2_001 }, (_, id) => id));
    expect((await kept.valueOf(1, build)).made).to.equal('build 3');
    keeper.note('stories__g1', [13]);
    expect((await kept.valueOf(1, build)).made).to.equal('build 4');
    expect(builds()).to.equal(4);
  });

  it('keeps within its budget, the least recently used going first', async () => {
    const keeper = new KeptProjectIndexes(25);
    const kept = keeper.of<Value>('rows', 'stories__g1', async () => null);
    const sized = (made: string) => async () => ({ bytes: 10, made });
    await kept.valueOf(1, sized('one'));
    await kept.valueOf(2, sized('two'));
    await kept.current(1);
    await kept.valueOf(3, sized('three'));
    expect(keeper.keptBytes()).to.equal(20);
    expect((await kept.current(1))?.made).to.equal('one');
    expect(await kept.current(2)).to.equal(null);
  });
});
