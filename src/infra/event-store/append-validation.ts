// What every event store adapter checks before it tries an append: these are programming errors in the
// caller (the command handler), not conflicts, so they throw plain Errors before anything is written.
import type { NewEvent } from '../../domain/events.js';
import type { ExpectedVersion } from '../../ports/event-store.js';

export function assertValidAppend(stream: string, expectedVersion: ExpectedVersion, events: NewEvent[]): void {
  if (stream.length === 0) throw new Error('an append needs a stream name');
  if (events.length === 0) throw new Error(`an append to ${stream} needs at least one event`);
  if (expectedVersion !== 'any' && !(Number.isSafeInteger(expectedVersion) && expectedVersion >= 0)) {
    throw new Error(`invalid expected version ${String(expectedVersion)} for ${stream}`);
  }
  const commandId = events[0]!.meta.command_id;
  if (!commandId || events.some((event) => event.meta.command_id !== commandId)) {
    throw new Error(`the events of one append to ${stream} must share one non-empty command id`);
  }
}
