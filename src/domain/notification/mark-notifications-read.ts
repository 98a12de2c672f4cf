// Marking every notification of the reader up to one id read, on the reader's own stream.
import type { PersonState } from '../person/person-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { readStateDecision } from './notification-read.js';

export interface MarkNotificationsReadCommand {
  /** Every notification of the reader with an id up to and including this one is marked read. */
  before: number;
}

export function decideMarkNotificationsRead(command: MarkNotificationsReadCommand, _state: PersonState, context: DecisionContext): Decision {
  return readStateDecision('notification_mark_read', command.before, context.now, context.now);
}
