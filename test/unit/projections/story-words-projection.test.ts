// The text index of stories, given/when/then through the runner's replay guard; every log is projected
// twice to prove that a replay changes nothing.
import { expect } from 'chai';
import type { RecordedEvent } from '../../../src/domain/events.js';
import { foldWord, searchWords } from '../../../src/domain/search/search-words.js';
import { guardOp } from '../../../src/infra/projector/replay-guard.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import type { Doc, ReadStore } from '../../../src/ports/read-store.js';
import { STORY_WORDS, storyWordsProjection } from '../../../src/projections/search/story-words-projection.js';
import { created, deleted, logOf, updated } from './resource-events.js';

async function project(store: ReadStore, events: RecordedEvent[]): Promise<void> {
  for (const event of events) {
    for (const { collection, ops } of storyWordsProjection.apply(event)) {
      await store.collection(collection).write(ops.map((op) => guardOp(op, event.position)));
    }
  }
}

async function given(events: RecordedEvent[]): Promise<Doc[]> {
  const store = createMemoryReadStore();
  await project(store, events);
  const once = JSON.stringify(await store.collection(STORY_WORDS).all());
  await project(store, events);
  expect(JSON.stringify(await store.collection(STORY_WORDS).all()), 'projected twice').to.equal(once);
  return (JSON.parse(once) as Doc[]).map(({ _pos, ...doc }) => doc as Doc);
}

const story = created('story', 100, { name: 'Fix the Login page', description: 'Login fails; see log-in.', current_state: 'unstarted' });

describe('story words projection', () => {
  it('cuts and folds words as the compiler does: distinct, whole words, case folded as a /i regex compares', () => {
    expect(searchWords('Login page: LOGIN, log-in_2 café CAFÉ кот')).to.deep.equal(['LOGIN', 'PAGE', 'LOG', 'IN_2', 'CAFÉ', 'КОТ']);
    expect(foldWord('ſun')).to.equal('ſUN'); // the long s stays: /i never folds a non-ASCII letter to ASCII
    expect(searchWords('a+b  (c)')).to.deep.equal(['A', 'B', 'C']);
  });

  it('keeps the words of a new story’s name and description, in its project', async () => {
    expect(await given(logOf([['project-1', [story]]]))).to.deep.equal([
      { id: 100, project_id: 1, name_words: ['FIX', 'THE', 'LOGIN', 'PAGE'], description_words: ['LOGIN', 'FAILS', 'SEE', 'LOG', 'IN'] },
    ]);
  });

  it('replaces the words of the fields an update changes, and empties a cleared description', async () => {
    const renamed = await given(logOf([['project-1', [story]], ['project-1', [updated('story', 100, { name: 'Crash on save', current_state: 'started' })]]]));
    expect(renamed[0]).to.include({ id: 100 });
    expect(renamed[0]!.name_words).to.deep.equal(['CRASH', 'ON', 'SAVE']);
    expect(renamed[0]!.description_words).to.deep.equal(['LOGIN', 'FAILS', 'SEE', 'LOG', 'IN']);
    const cleared = await given(logOf([['project-1', [story]], ['project-1', [updated('story', 100, { description: null })]]]));
    expect(cleared[0]!.description_words).to.deep.equal([]);
    const untouched = await given(logOf([['project-1', [story]], ['project-1', [updated('story', 100, { estimate: 3 })]]]));
    expect(untouched).to.deep.equal(await given(logOf([['project-1', [story]]])));
  });

  it('merges several changes of one story in one event, and forgets a deleted story', async () => {
    const merged = await given(logOf([['project-1', [story, updated('story', 100, { name: 'Renamed' })]]]));
    expect(merged[0]!.name_words).to.deep.equal(['RENAMED']);
    expect(await given(logOf([['project-1', [story]], ['project-1', [deleted('story', 100)]]]))).to.deep.equal([]);
    expect(await given(logOf([['project-1', [story, deleted('story', 100)]]]))).to.deep.equal([]);
  });

  it('keeps a story moved to another project in the target project, whatever the order of the two streams', async () => {
    const moved = created('story', 100, { name: 'Moved story', current_state: 'unstarted' });
    const deleteFirst = await given(logOf([['project-1', [story]], ['project-1', [deleted('story', 100)]], ['project-2', [moved]]]));
    const createFirst = await given(logOf([['project-1', [story]], ['project-2', [moved]], ['project-1', [deleted('story', 100)]]]));
    const expected = [{ id: 100, project_id: 2, name_words: ['MOVED', 'STORY'], description_words: [] }];
    expect(deleteFirst).to.deep.equal(expected);
    expect(createFirst).to.deep.equal(expected);
    const editedInSource = await given(logOf([['project-1', [story]], ['project-2', [moved]], ['project-1', [updated('story', 100, { name: 'Stale' })]]]));
    expect(editedInSource).to.deep.equal(expected);
  });

  it('ignores other resources and streams that are not projects', async () => {
    expect(await given(logOf([['project-1', [created('label', 5, { name: 'ops' })]]]))).to.deep.equal([]);
    expect(storyWordsProjection.collections[0]!.indexes.map((index) => index.field)).to.deep.equal(['project_id', 'name_words', 'description_words']);
  });
});
