// The iteration and analytics projections, given/when/then through the runner's replay guard; every
// log is projected twice to prove that a replay changes nothing.
import { expect } from 'chai';
import type { RecordedEvent } from '../../../src/domain/events.js';
import { guardOp } from '../../../src/infra/projector/replay-guard.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import type { Doc, ReadStore } from '../../../src/ports/read-store.js';
import type { Projection } from '../../../src/projections/projection.js';
import { storyTransitionsProjection } from '../../../src/projections/analytics/story-transitions-projection.js';
import { STORY_HISTORY } from '../../../src/projections/analytics/story-history.js';
import { acceptanceKey, iterationStoriesProjection, utcWeekOf } from '../../../src/projections/iterations/iteration-stories-projection.js';
import { created, deleted, logOf, updated } from './resource-events.js';

async function project(store: ReadStore, projection: Projection, events: RecordedEvent[]): Promise<void> {
  for (const event of events) {
    for (const { collection, ops } of projection.apply(event)) {
      await store.collection(collection).write(ops.map((op) => guardOp(op, event.position)));
    }
  }
}

async function given(projection: Projection, events: RecordedEvent[], collection = projection.collections[0]!.name): Promise<Doc[]> {
  const store = createMemoryReadStore();
  await project(store, projection, events);
  const once = JSON.stringify(await store.collection(collection).all());
  await project(store, projection, events);
  expect(JSON.stringify(await store.collection(collection).all()), 'projected twice').to.equal(once);
  return (JSON.parse(once) as Doc[]).map(({ _pos, ...doc }) => doc as Doc);
}

const ACCEPTED = Date.UTC(2024, 0, 10, 12);
const story = created('story', 100, { name: 'Launch', story_type: 'feature', current_state: 'unstarted', estimate: 2, created_at: 5, owner_ids: [] }, 'S1');

describe('iteration stories projection', () => {
  it('keeps the facts iterations need, keyed by plan group', async () => {
    const docs = await given(iterationStoriesProjection, logOf([['project-1', [story]]]));
    expect(docs).to.deep.equal([{ id: 100, project_id: 1, current_state: 'unstarted', story_type: 'feature', estimate: 2, created_at: 5, rank: 'S1', plan_key: '1:o' }]);
  });

  it('moves a story to its acceptance week, and back when it leaves accepted', async () => {
    const accepted = await given(
      iterationStoriesProjection,
      logOf([
        ['project-1', [story]],
        ['project-1', [updated('story', 100, { current_state: 'accepted', accepted_at: ACCEPTED, estimate: null }, 'S0')]],
      ]),
    );
    expect(accepted).to.deep.equal([
      { id: 100, project_id: 1, current_state: 'accepted', story_type: 'feature', accepted_at: ACCEPTED, created_at: 5, rank: 'S0', plan_key: `1:a:${utcWeekOf(ACCEPTED)}`, acceptance_key: acceptanceKey(1, ACCEPTED) },
    ]);
    const reopened = await given(
      iterationStoriesProjection,
      logOf([
        ['project-1', [story]],
        ['project-1', [updated('story', 100, { current_state: 'accepted', accepted_at: ACCEPTED })]],
        ['project-1', [updated('story', 100, { current_state: 'unscheduled', accepted_at: null }, 'U1')]],
      ]),
    );
    expect(reopened[0]).to.include({ current_state: 'unscheduled', plan_key: '1:u', rank: 'U1' });
    expect(reopened[0]).to.not.have.property('accepted_at');
    expect(reopened[0]).to.not.have.property('acceptance_key');
  });

  it('follows a story moved to another project and forgets a deleted one', async () => {
    const docs = await given(
      iterationStoriesProjection,
      logOf([
        ['project-1', [story, created('story', 101, { current_state: 'unscheduled', story_type: 'bug', created_at: 6 }, 'U1')]],
        ['project-2', [{ ...story, new_values: { ...story.new_values, estimate: 3 } }]],
        ['project-1', [deleted('story', 100)]],
        ['project-1', [deleted('story', 101)]],
      ]),
    );
    expect(docs).to.deep.equal([{ id: 100, project_id: 2, current_state: 'unstarted', story_type: 'feature', estimate: 3, created_at: 5, rank: 'S1', plan_key: '2:o' }]);
  });

  it('ignores other kinds and streams', async () => {
    expect(await given(iterationStoriesProjection, logOf([['project-1', [created('label', 3, { name: 'x' })]], ['person-1', [created('story', 1, {})]]]))).to.deep.equal([]);
  });
});

describe('story transitions projection', () => {
  it('records the first state at creation and every state change, not other edits', async () => {
    const docs = await given(
      storyTransitionsProjection,
      logOf([
        ['project-1', [story]],
        ['project-1', [updated('story', 100, { name: 'Renamed' })]],
        ['project-1', [updated('story', 100, { current_state: 'started' }), created('story', 101, { current_state: 'unscheduled', story_type: 'bug' })]],
      ]),
    );
    expect(docs.map(({ occurred_at, week_key, created_at, created_week_key, ...doc }) => doc)).to.deep.equal([
      { id: 1000, story_id: 100, project_id: 1, state: 'unstarted', project_version: 1, performed_by_id: 1, created: true, story_type: 'feature' },
      { id: 3000, story_id: 100, project_id: 1, state: 'started', project_version: 3, performed_by_id: 1 },
      { id: 3001, story_id: 101, project_id: 1, state: 'unscheduled', project_version: 3, performed_by_id: 1, created: true, story_type: 'bug' },
    ]);
    expect(docs[0]!['week_key']).to.equal(`1:${utcWeekOf(Number(docs[0]!['occurred_at']))}`);
    // a creation carries the story's own created_at (5 ms: week 0), the event's time when the change has none
    expect(docs.map((doc) => [doc['created_at'], doc['created_week_key']])).to.deep.equal([
      [5, '1:0'], [undefined, undefined], [docs[2]!['occurred_at'], `1:${utcWeekOf(Number(docs[2]!['occurred_at']))}`],
    ]);
  });

  it('records nothing for a move between projects', async () => {
    const [move] = logOf([['project-2', [story]]]);
    expect(await given(storyTransitionsProjection, [{ ...move!, type: 'story_move_into_project' }])).to.deep.equal([]);
  });
});

describe('story history (the analytics projection\'s daily history source)', () => {
  it('records a story\'s coming, leaving, and changes of state, estimate and acceptance time, nothing else', async () => {
    const docs = await given(
      storyTransitionsProjection,
      logOf([
        ['project-1', [story]],
        ['project-1', [updated('story', 100, { name: 'Renamed' })]],
        ['project-1', [updated('story', 100, { estimate: null })]],
        ['project-1', [updated('story', 100, { current_state: 'accepted', accepted_at: ACCEPTED, estimate: 3 })]],
        ['project-1', [deleted('story', 100)]],
      ]),
      STORY_HISTORY,
    );
    expect(docs.map(({ at, ...doc }) => doc)).to.deep.equal([
      { id: 1000, story_id: 100, project_id: 1, values: { current_state: 'unstarted', estimate: 2 }, created: true },
      { id: 3000, story_id: 100, project_id: 1, values: { estimate: null } },
      {
        id: 4000, story_id: 100, project_id: 1, values: { current_state: 'accepted', estimate: 3, accepted_at: ACCEPTED },
        accepted_at: ACCEPTED, accepted_week_key: `1:${utcWeekOf(ACCEPTED)}`,
      },
      { id: 5000, story_id: 100, project_id: 1, values: {}, deleted: true },
    ]);
  });

  it('counts a story created with past times (an import) from its created_at, or from its accepted_at when created accepted', async () => {
    const [plain, imported] = logOf([
      ['project-1', [story]],
      ['project-1', [created('story', 101, { name: 'Old', story_type: 'feature', current_state: 'accepted', estimate: 1, accepted_at: 90, created_at: 7, owner_ids: [] }, 'S2')]],
    ]);
    const [later] = logOf([['project-1', [updated('story', 100, { current_state: 'accepted', accepted_at: 60 })]]]);
    const docs = await given(storyTransitionsProjection, [{ ...plain!, type: 'story_create' }, { ...imported!, type: 'story_create' }, { ...later!, position: 3 }], STORY_HISTORY);
    // a change written later counts from when it was written, whatever accepted_at it sets
    expect(docs.map((doc) => doc['at'])).to.deep.equal([5, 90, later!.meta.occurred_at]);
  });

  it('follows a story moved between projects: a leaving in one, a coming in the other', async () => {
    const [into] = logOf([['project-2', [story]]]);
    const [out] = logOf([['project-1', [deleted('story', 100)]]]);
    const docs = await given(storyTransitionsProjection, [{ ...into!, type: 'story_move_into_project' }, { ...out!, type: 'story_move_from_project', position: 2 }], STORY_HISTORY);
    expect(docs.map((doc) => [doc['project_id'], doc['created'] ?? false, doc['deleted'] ?? false])).to.deep.equal([[2, true, false], [1, false, true]]);
  });
});

