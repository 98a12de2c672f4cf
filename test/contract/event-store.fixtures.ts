// Events shaped like real story updates (about 500 bytes of JSON), built deterministically from the
// command id and a sequence number so that a test can rebuild the exact event it expects to find.
import { EVENT_SCHEMA } from '../../src/domain/events.js';
import type { NewEvent } from '../../src/domain/events.js';

const EPOCH = Date.UTC(2025, 0, 6, 9, 0, 0);

/** A `story_update` moving story `storyId` from started to finished and adding an owner. */
export function storyUpdateEvent(commandId: string, sequence = 0, storyId = 1000 + sequence): NewEvent {
  const name = `Export iteration ${storyId} report as CSV`;
  return {
    type: 'story_update',
    data: {
      changes: [
        {
          kind: 'story',
          change_type: 'update',
          id: storyId,
          name,
          story_type: 'feature',
          story_priority: 'p2',
          original_values: { current_state: 'started', owner_ids: [101], updated_at: EPOCH + sequence },
          new_values: { current_state: 'finished', owner_ids: [101, 102], updated_at: EPOCH + sequence + 1 },
        },
      ],
      primary_resources: [{ kind: 'story', id: storyId, name, story_type: 'feature', story_priority: 'p2' }],
    },
    meta: { schema: EVENT_SCHEMA, occurred_at: EPOCH + sequence + 1, performed_by: 101, command_id: commandId },
  };
}

/** The events of one append: `count` events sharing the command id (as one write request produces). */
export function appendOf(commandId: string, count = 1, sequence = 0): NewEvent[] {
  return Array.from({ length: count }, (_, index) => storyUpdateEvent(commandId, sequence + index));
}

/** One of 40 stories, chosen by the command id, so concurrent writers touch the same documents. */
function storyIdFor(commandId: string): number {
  let hash = 0;
  for (const char of commandId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return 2000 + (hash % 40);
}

/**
 * The events of one append that the read models can see: the first (re)creates the command's story in
 * full, the next ones update it — so a replay and a live projection have real documents to agree on.
 */
export function storyWritesOf(commandId: string, count = 1): NewEvent[] {
  const storyId = storyIdFor(commandId);
  return appendOf(commandId, count).map((event, index) => {
    const [change] = event.data.changes;
    if (index > 0 || !change) return { ...event, data: { ...event.data, changes: [{ ...change!, id: storyId }] } };
    const created = { ...change, id: storyId, change_type: 'create' as const, new_values: { id: storyId, name: change.name, story_type: 'feature', current_state: 'started', owner_ids: [101], created_at: EPOCH, updated_at: event.meta.occurred_at, command: commandId } };
    delete created.original_values;
    return { ...event, data: { ...event.data, changes: [created] } };
  });
}
