// Builders of resource-change events for projection and projector tests: small, readable, deterministic.
import { EVENT_SCHEMA } from '../../../src/domain/events.js';
import type { EventType, NewEvent, RecordedEvent, ResourceChange, ResourceKind, Values } from '../../../src/domain/events.js';

export const created = (kind: ResourceKind, id: number, values: Values, rank?: string): ResourceChange => ({
  kind,
  change_type: 'create',
  id,
  new_values: { id, ...values },
  ...(rank === undefined ? {} : { rank }),
});

export const updated = (kind: ResourceKind, id: number, values: Values, rank?: string): ResourceChange => ({
  kind,
  change_type: 'update',
  id,
  original_values: Object.fromEntries(Object.keys(values).map((key) => [key, 'before'])),
  new_values: values,
  ...(rank === undefined ? {} : { rank }),
});

export const deleted = (kind: ResourceKind, id: number): ResourceChange => ({ kind, change_type: 'delete', id });

let commands = 0;

/** A new event listing `changes` (what a decider returns). */
export function eventOf(changes: ResourceChange[], type: EventType = 'story_update'): NewEvent {
  commands += 1;
  return {
    type,
    data: { changes, primary_resources: changes.map(({ kind, id }) => ({ kind, id })) },
    meta: { schema: EVENT_SCHEMA, occurred_at: 1_700_000_000_000 + commands, performed_by: 1, command_id: `command-${commands}` },
  };
}

/** The same event as the store would return it at (stream, version, position). */
export function recordedEvent(stream: string, version: number, position: number, changes: ResourceChange[]): RecordedEvent {
  return { ...eventOf(changes), id: `event-${position}`, stream, version, position };
}

/** Numbers events of several streams as one global log: [stream, changes][] -> recorded events. */
export function logOf(entries: Array<[string, ResourceChange[]]>): RecordedEvent[] {
  const versions = new Map<string, number>();
  return entries.map(([stream, changes], index) => {
    const version = (versions.get(stream) ?? 0) + 1;
    versions.set(stream, version);
    return recordedEvent(stream, version, index + 1, changes);
  });
}
