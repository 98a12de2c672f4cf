// A reader's read state of their notifications: a write by the reader on their OWN stream
// (`person-<id>`), never on a project's, so marking notifications read leaves every project version as
// it was. The notifications reaction applies these events to the notifications it made, in log order,
// so read state survives restarts and rebuilds with the notifications themselves. Pure.
import type { PersonState } from '../person/person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { EventType } from '../events.js';

export interface ReadNotificationCommand {
  notification_id: number;
  /** When the reader read it (ms, whole seconds); null marks it unread again. */
  read_at: number | null;
}

export interface MarkNotificationsReadCommand {
  /** Every notification of the reader with an id up to and including this one is marked read. */
  before: number;
}

export function decideReadNotification(command: ReadNotificationCommand, _state: PersonState, context: DecisionContext): Decision {
  return readStateDecision('notification_update', command.notification_id, command.read_at, context.now);
}

export function decideMarkNotificationsRead(command: MarkNotificationsReadCommand, _state: PersonState, context: DecisionContext): Decision {
  return readStateDecision('notification_mark_read', command.before, context.now, context.now);
}

/** The one shape of a read-state event: the notification (or the last one marked) and its new read_at. */
function readStateDecision(type: EventType, id: number, readAt: number | null, now: number): Decision {
  return {
    type,
    data: {
      changes: [{ kind: 'notification', change_type: 'update', id, new_values: { read_at: readAt, updated_at: now } }],
      primary_resources: [{ kind: 'notification', id }],
    },
    subject: { kind: 'notification', id },
  };
}
