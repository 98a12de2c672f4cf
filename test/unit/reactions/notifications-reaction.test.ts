// The notifications reaction over a memory read store, fed recorded events directly: redelivery is a
// no-op, a batch gives what its events give one by one, epics and deleted stories are followed, and a
// store that lost its documents asks for a replay.
import { expect } from 'chai';
import { EVENT_SCHEMA, type EventType, type RecordedEvent, type ResourceChange } from '../../../src/domain/events.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import { NOTIFICATIONS, notificationsReaction } from '../../../src/reactions/notifications.js';
import type { Reaction } from '../../../src/reactions/reaction.js';

const T0 = Date.UTC(2024, 0, 10, 12);
const OWNER = 1;
const BOB = 2;
const CARL = 3;

function recorded(position: number, type: EventType, changes: ResourceChange[], performedBy = OWNER, stream = 'project-7'): RecordedEvent {
  return {
    id: `e${position}`,
    stream,
    version: position,
    position,
    type,
    data: { changes, primary_resources: [] },
    meta: { schema: EVENT_SCHEMA, occurred_at: T0 + position * 1000, performed_by: performedBy, command_id: `c${position}` },
  };
}

const storyCreate = (id: number, values: Record<string, unknown>): ResourceChange => ({
  kind: 'story', change_type: 'create', id, name: String(values['name']), new_values: { id, owner_ids: [], follower_ids: [], ...values },
});

describe('notifications reaction', () => {
  let store: ReturnType<typeof createMemoryReadStore>;
  let reaction: Reaction;
  /** Delivers the events as one batch. */
  const deliver = (...events: RecordedEvent[]) => reaction.handle(events);
  beforeEach(() => {
    store = createMemoryReadStore();
    reaction = notificationsReaction({ read: (name) => store.collection(name), own: store });
  });

  it('gives the same notifications, ids included, when an event is delivered again', async () => {
    const event = recorded(5, 'story_create', [storyCreate(40, { name: 'S', requested_by_id: OWNER, owner_ids: [CARL, BOB, OWNER] })]);
    await deliver(event);
    const once = await store.collection(NOTIFICATIONS).all();
    await deliver(event);
    expect(await store.collection(NOTIFICATIONS).all()).to.deep.equal(once);
    expect(once.map((doc) => [doc.id, doc['person_id'], doc['action']])).to.deep.equal([
      [5_000_000, BOB, 'ownership'],
      [5_000_001, CARL, 'ownership'],
    ]);
  });

  it('tells epic followers of comments and forgets deleted stories', async () => {
    await deliver(recorded(1, 'epic_create', [{ kind: 'epic', change_type: 'create', id: 9, name: 'E', new_values: { id: 9, name: 'E', follower_ids: [BOB] } }]));
    await deliver(recorded(2, 'comment_create', [
      { kind: 'comment', change_type: 'create', id: 70, new_values: { id: 70, epic_id: 9, text: 'hi', person_id: CARL, file_attachment_ids: [11] } },
    ], CARL));
    const [told] = await store.collection(NOTIFICATIONS).find({ person_id: BOB });
    expect(told).to.include({ notification_type: 'comment', comment_id: 70, new_attachment_count: 1, context: 'hi' });
    expect(told!['epic']).to.deep.equal({ kind: 'epic', id: 9, name: 'E' });

    await deliver(recorded(3, 'story_create', [storyCreate(41, { name: 'Gone', requested_by_id: BOB })]));
    await deliver(recorded(4, 'story_delete', [{ kind: 'story', change_type: 'delete', id: 41 }]));
    await deliver(recorded(5, 'comment_create', [
      { kind: 'comment', change_type: 'create', id: 71, new_values: { id: 71, story_id: 41, text: 'late', person_id: OWNER } },
    ]));
    expect(await store.collection(NOTIFICATIONS).count({ comment_id: 71 })).to.equal(0);
  });

  it('resumes from the position its documents reflect, so lost documents are rebuilt from the log', async () => {
    expect(await reaction.resumeAfter!(50)).to.equal(0);
    await deliver(recorded(12, 'story_create', [storyCreate(40, { name: 'S', owner_ids: [BOB] })]));
    expect(await reaction.resumeAfter!(50)).to.equal(12);
  });

  it('applies read state from the reader\'s own stream only', async () => {
    await deliver(recorded(1, 'story_create', [storyCreate(40, { name: 'S', owner_ids: [BOB, CARL] })]));
    const read = (position: number, type: EventType, id: number, person: number) =>
      recorded(position, type, [{ kind: 'notification', change_type: 'update', id, new_values: { read_at: T0, updated_at: T0 } }], person, `person-${person}`);
    await deliver(read(2, 'notification_mark_read', 1_000_001, BOB));
    const docs = await store.collection(NOTIFICATIONS).all();
    expect(docs.map((doc) => [doc['person_id'], doc['read_at'] ?? null])).to.deep.equal([[BOB, T0], [CARL, null]]);
  });

  it('gives for a batch exactly what its events give one batch each', async () => {
    const history = [
      recorded(1, 'story_create', [storyCreate(40, { name: 'S', requested_by_id: OWNER, owner_ids: [BOB] })]),
      recorded(2, 'story_update', [{ kind: 'story', change_type: 'update', id: 40, name: 'S', new_values: { owner_ids: [BOB, CARL] }, original_values: { owner_ids: [BOB] } }]),
      recorded(3, 'comment_create', [
        { kind: 'comment', change_type: 'create', id: 71, new_values: { id: 71, story_id: 40, text: 'both owners hear this', person_id: OWNER } },
      ]),
      recorded(4, 'notification_mark_read', [{ kind: 'notification', change_type: 'update', id: 3_000_001, new_values: { read_at: T0, updated_at: T0 } }], CARL, `person-${CARL}`),
      recorded(5, 'story_delete', [{ kind: 'story', change_type: 'delete', id: 40 }]),
    ];
    for (const event of history) await deliver(event);
    const oneByOne = await Promise.all(['notifications', 'notification_story_audiences'].map((name) => store.collection(name).all()));

    store = createMemoryReadStore();
    reaction = notificationsReaction({ read: (name) => store.collection(name), own: store });
    await deliver(...history);
    const batched = await Promise.all(['notifications', 'notification_story_audiences'].map((name) => store.collection(name).all()));
    expect(batched).to.deep.equal(oneByOne);
    expect(oneByOne[0]!.filter((doc) => doc['comment_id'] === 71).map((doc) => [doc['person_id'], doc['read_at'] ?? null])).to.deep.equal([
      [BOB, null],
      [CARL, T0],
    ]);
  });
});
