// Marking one notification read at a time (or unread again: null), on the reader's own stream.
import type { PersonState } from '../person/person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { readStateDecision } from './notification-read.js';

export interface ReadNotificationCommand {
  notification_id: number;
  /** When the reader read it (ms, whole seconds); null marks it unread again. */
  read_at: number | null;
}

export function decideReadNotification(command: ReadNotificationCommand, _state: PersonState, context: DecisionContext): Decision {
  return readStateDecision('notification_update', command.notification_id, command.read_at, context.now);
}
