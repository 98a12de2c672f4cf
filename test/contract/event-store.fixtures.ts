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
