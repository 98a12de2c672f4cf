// A reader's read state of their notifications: a write by the reader on their OWN stream
// (`person-<id>`), never on a project's, so marking notifications read leaves every project version as
// it was. The notifications reaction applies these events to the notifications it made, in log order,
// so read state survives restarts and rebuilds with the notifications themselves. Pure.
// What its deciders (read-notification.ts, mark-notifications-read.ts) share.
import type { Decision } from '../decision.js';
import type { EventType } from '../events.js';

/** The one shape of a read-state event: the notification (or the last one marked) and its new read_at. */
export function readStateDecision(type: EventType, id: number, readAt: number | null, now: number): Decision {
  return {
    type,
    data: {
      changes: [{ kind: 'notification', change_type: 'update', id, new_values: { read_at: readAt, updated_at: now } }],
      primary_resources: [{ kind: 'notification', id }],
    },
    subject: { kind: 'notification', id },
  };
}
