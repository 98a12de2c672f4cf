// What the notification GETs compute over the notifications reaction's collection
// (src/reactions/notifications.ts): a person's notifications in a window, newest first, of the chosen
// types, and the timestamp of their newest one.
import { DEFAULT_NOTIFICATION_TYPES, NOTIFICATION_TYPES, type NotificationType } from '../domain/notification/notification-rules.js';
import { invalidField } from '../domain/errors.js';
import type { Doc, Filter, ReadOnlyCollection } from '../ports/read-store.js';

/** The window when the request names none (spec: 10 days before the request). */
export const DEFAULT_NOTIFICATION_WINDOW_MS = 10 * 24 * 60 * 60 * 1000;

export interface NotificationWindow {
  /** Notifications created strictly after this (ms). */
  createdAfter?: number;
  /** Notifications changed (created or read) strictly after this (ms). */
  updatedAfter?: number;
  types: readonly NotificationType[];
}

/** The `notification_types` parameter: `:default` or absent, `:all`, or a comma list of types. */
export function notificationTypesParameter(value: string | undefined): readonly NotificationType[] {
  if (value === undefined || value === '' || value === ':default') return DEFAULT_NOTIFICATION_TYPES;
  if (value === ':all') return NOTIFICATION_TYPES;
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(NOTIFICATION_TYPES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length > NOTIFICATION_TYPES.length) {
    throw invalidField('notification_types', `'notification_types' must be :default, :all or a comma list of ${NOTIFICATION_TYPES.join(', ')}`);
  }
  return names as NotificationType[];
}

export class NotificationQueries {
  constructor(private readonly notifications: ReadOnlyCollection) {}

  /** The person's notifications in the window, newest first. */
  list(personId: number, window: NotificationWindow): Promise<Doc[]> {
    const filter: Filter = { person_id: personId, notification_type: { $in: [...window.types] } };
    if (window.createdAfter !== undefined) filter.created_at = { $gt: window.createdAfter };
    if (window.updatedAfter !== undefined) filter.updated_at = { $gt: window.updatedAfter };
    return this.notifications.find(filter, { sort: { id: -1 } });
  }

  /** One notification of the person, or null (another person's notification is not theirs to see). */
  one(personId: number, id: number): Promise<Doc | null> {
    return this.notifications.findOne({ id, person_id: personId });
  }

  /** Whether the person has a notification created at exactly `timestamp` (ms). */
  async hasTimestamp(personId: number, timestamp: number): Promise<boolean> {
    return (await this.notifications.count({ person_id: personId, created_at: timestamp })) > 0;
  }

  /** When the person's newest notification was created (ms), or null when they have none. */
  async lastTimestamp(personId: number): Promise<number | null> {
    const [newest] = await this.notifications.find({ person_id: personId }, { sort: { id: -1 }, limit: 1 });
    return typeof newest?.created_at === 'number' ? newest.created_at : null;
  }
}
