// The service records every datetime to the whole second, as the real service's values are: what a
// client is shown (ISO without fractions, or ms) is exactly what is stored, so `updated_after=<the shown
// updated_at>` never returns that resource again. Applied to each event as it is written (the command
// handler) and to events written before schema 2 as they are read (the event codec's upcaster).
import type { EventData, EventMeta, ResourceChange, Values } from './events.js';

/** The attributes of recorded resources that hold datetimes (integer ms). */
const DATETIME_ATTRIBUTES = ['created_at', 'updated_at', 'accepted_at', 'deadline'] as const;

/** `ms` truncated to its second, as the ISO form shows it. */
export function wholeSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/** The event with its time and the datetimes of its changes truncated to the second. */
export function eventInWholeSeconds<E extends { data: EventData; meta: EventMeta }>(event: E): E {
  return {
    ...event,
    data: { ...event.data, changes: event.data.changes.map(changeInWholeSeconds) },
    meta: { ...event.meta, occurred_at: wholeSecond(event.meta.occurred_at) },
  };
}

function changeInWholeSeconds(change: ResourceChange): ResourceChange {
  const rounded: ResourceChange = { ...change };
  if (change.original_values) rounded.original_values = valuesInWholeSeconds(change.original_values);
  if (change.new_values) rounded.new_values = valuesInWholeSeconds(change.new_values);
  return rounded;
}

function valuesInWholeSeconds(values: Values): Values {
  const rounded = { ...values };
  for (const key of DATETIME_ATTRIBUTES) {
    const value = rounded[key];
    if (typeof value === 'number') rounded[key] = wholeSecond(value);
  }
  return rounded;
}
