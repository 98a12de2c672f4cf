// The caller's notifications (issue 13; spec: Notifications; facts §10). They are made by the
// notifications reaction (src/reactions/notifications.ts) behind the log, within a second of the write
// that caused them; read state is a write by the reader on their own person stream (no project version
// moves), applied by the same reaction.
//
//   GET /my/notifications                 `created_after` (default: 10 days before the request) and/or
//                                         `updated_after`; `notification_types` (`:default`, `:all`, or a
//                                         comma list); newest first, not paginated; header / envelope
//                                         `last_notification_timestamp` (ms)
//   PUT /my/notifications/mark_read       body `before`: a notification id of the caller; it and every
//                                         earlier unread one are marked read now; 204
//   PUT /my/notifications/:id             body `read_at` (datetime, or null for unread); the notification
//   GET /people/:person_id/notifications/since/:timestamp
//                                         the caller's own only (403 otherwise); `timestamp` (ms) must be
//                                         the created_at of one of their notifications; those created
//                                         after it; always enveloped, always ms
import { decideMarkNotificationsRead } from '../../domain/notification/mark-notifications-read.js';
import { decideReadNotification } from '../../domain/notification/read-notification.js';
import { notificationMessage } from '../../domain/notification/notification-message.js';
import { invalidField } from '../../domain/errors.js';
import { streams } from '../../domain/events.js';
import type { Doc, ReadOnlyCollection } from '../../ports/read-store.js';
import { DEFAULT_NOTIFICATION_WINDOW_MS, notificationTypesParameter, type NotificationWindow } from '../../queries/notifications.js';
import { NOTIFICATION_TYPES } from '../../domain/notification/notification-rules.js';
import { commandMeta } from '../command-meta.js';
import { DATETIME_PARAMETER, datetimeParameter } from '../datetime-parameter.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { requestSchema } from '../request-schema.js';
import type { ResourceType } from '../resource-type.js';
import type { ApiRequest, ApiResult, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

const NOTIFICATION_KEYS = [
  'kind', 'id', 'project', 'performer', 'message', 'context', 'notification_type', 'new_attachment_count', 'action',
  'story', 'epic', 'comment_id', 'created_at', 'updated_at', 'read_at',
];

/** `notification_types` (read by notificationTypesParameter). */
const NOTIFICATION_TYPES_PARAMETER = {
  type: 'string',
  default: ':default',
  description: `:default, :all, or a comma list of ${NOTIFICATION_TYPES.join(', ')}`,
} as const;

/** The window of GET /my/notifications (read by windowOf). */
const NOTIFICATION_LIST_PARAMETERS = {
  type: 'object',
  properties: {
    created_after: { ...DATETIME_PARAMETER, description: `Created after this instant (default: ${DEFAULT_NOTIFICATION_WINDOW_MS / 86_400_000} days ago): ${String(DATETIME_PARAMETER.description)}` },
    updated_after: { ...DATETIME_PARAMETER, description: `Updated after this instant: ${String(DATETIME_PARAMETER.description)}` },
    notification_types: NOTIFICATION_TYPES_PARAMETER,
  },
} as const;

const checkReadBody = requestSchema<{ read_at: unknown }>({
  type: 'object',
  properties: { read_at: { type: ['string', 'integer', 'null'] } },
  required: ['read_at'],
  additionalProperties: false,
});
const checkMarkReadBody = requestSchema<{ before: number }>({
  type: 'object',
  properties: { before: { type: 'integer', minimum: 1 } },
  required: ['before'],
  additionalProperties: false,
});

/** A story or epic a notification is about. */
const NAMED_REFERENCE = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } as const;

export function notificationResources(deps: ResourceDeps): ResourceModule {
  const projects = deps.read('projects');
  const people = deps.read('people');
  const { notifications } = deps.queries;

  async function byId(collection: ReadOnlyCollection<{ id: number; name: string }>, docs: readonly Doc[], attribute: string): Promise<Array<Doc | null>> {
    const ids = [...new Set(docs.map((doc) => doc[attribute]).filter((id) => typeof id === 'number'))];
    const found = new Map((ids.length ? await collection.find({ id: { $in: ids } }) : []).map((doc) => [doc.id, doc]));
    return docs.map((doc) => found.get(Number(doc[attribute])) ?? null);
  }

  const reference = (doc: Doc | null) => (doc ? { id: doc.id, name: doc.name } : null);

  const notificationType: ResourceType = {
    name: 'notification',
    kind: 'notification',
    attributes: {
      id: 'integer', context: 'string', notification_type: { enum: NOTIFICATION_TYPES }, new_attachment_count: 'integer', action: 'string',
      story: NAMED_REFERENCE, epic: NAMED_REFERENCE, comment_id: 'integer', created_at: 'datetime', updated_at: 'datetime', read_at: 'datetime',
      message: 'string',
    },
    defaults: NOTIFICATION_KEYS,
    associations: {
      project: { type: 'notification_project', async load(docs) { return (await byId(projects, docs, 'project_id')).map(reference); } },
      performer: { type: 'notification_performer', async load(docs) { return (await byId(people, docs, 'performer_id')).map(reference); } },
    },
    computed: {
      async message(docs) {
        const performers = await byId(people, docs, 'performer_id');
        return docs.map((doc, index) => notificationMessage(
          { notification_type: String(doc.notification_type), action: String(doc.action), subject_kind: doc.epic ? 'epic' : 'story' },
          String(performers[index]?.name ?? 'Someone'),
        ));
      },
    },
  };
  const referenceType = (name: string, kind: string): ResourceType => ({ name, kind, attributes: { id: 'integer', name: 'string' }, defaults: ['kind', 'id', 'name'] });

  function windowOf(req: ApiRequest): NotificationWindow {
    const types = notificationTypesParameter(req.query['notification_types']);
    const updated = req.query['updated_after'];
    const created = req.query['created_after'];
    const window: NotificationWindow = { types };
    if (created !== undefined && created !== '') window.createdAfter = datetimeParameter('created_after', created)!;
    if (updated !== undefined && updated !== '') window.updatedAfter = datetimeParameter('updated_after', updated)!;
    if (window.createdAfter === undefined && window.updatedAfter === undefined) window.createdAfter = req.now - DEFAULT_NOTIFICATION_WINDOW_MS;
    return window;
  }

  async function ownNotification(req: ApiRequest): Promise<Doc> {
    const doc = await notifications.one(req.actor!.id, idParam(req.params['notification_id']));
    if (!doc) throw apiError('unfound_resource');
    return doc;
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/my/notifications',
      access: 'person',
      input: { query: NOTIFICATION_LIST_PARAMETERS },
      answers: { type: 'notification', list: true },
      summary: "The caller's notifications, newest first",
      async handle(req) {
        const personId = req.actor!.id;
        const value = await notifications.list(personId, windowOf(req));
        return withLastTimestamp({ kind: 'resource', type: 'notification', value }, await notifications.lastTimestamp(personId));
      },
    },
    {
      method: 'PUT',
      path: '/my/notifications/mark_read',
      access: 'person',
      input: { body: checkMarkReadBody },
      answers: 'empty',
      summary: 'Mark a notification and every earlier one read',
      async handle(req) {
        const { before } = checkMarkReadBody.read(req);
        if (!(await notifications.one(req.actor!.id, before))) throw invalidField('before', `'before' must be the id of one of your notifications`);
        await deps.writer.execute(streams.person(req.actor!.id), decideMarkNotificationsRead, { before }, commandMeta(req));
        return { kind: 'empty' };
      },
    },
    {
      method: 'PUT',
      path: '/my/notifications/:notification_id',
      access: 'person',
      input: { body: checkReadBody },
      answers: { type: 'notification' },
      summary: 'Mark a notification read (read_at) or unread (null)',
      async handle(req) {
        const current = await ownNotification(req);
        const readAt = datetimeParameter('read_at', checkReadBody.read(req).read_at);
        const command = { notification_id: current.id, read_at: readAt === null ? null : wholeSeconds(readAt) };
        await deps.writer.execute(streams.person(req.actor!.id), decideReadNotification, command, commandMeta(req));
        // The reaction applies the read state behind the log; the answer is the notification as it will hold it.
        const { read_at: _previous, ...rest } = current;
        const value = { ...rest, updated_at: req.now, ...(command.read_at === null ? {} : { read_at: command.read_at }) };
        return { kind: 'resource', type: 'notification', value };
      },
    },
    {
      method: 'GET',
      path: '/people/:person_id/notifications/since/:timestamp',
      access: 'person',
      alwaysEnvelope: true,
      alwaysMillis: true,
      input: { query: { type: 'object', properties: { notification_types: NOTIFICATION_TYPES_PARAMETER } } },
      answers: { type: 'notification', list: true },
      summary: "The caller's notifications created after one of theirs (timestamp: its created_at in ms); always enveloped",
      async handle(req) {
        const personId = req.actor!.id;
        if (req.params['person_id'] !== String(personId)) throw apiError('unauthorized_operation');
        const raw = req.params['timestamp'] ?? '';
        const timestamp = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : NaN;
        if (!Number.isSafeInteger(timestamp) || !(await notifications.hasTimestamp(personId, timestamp))) {
          throw invalidField('timestamp', `'timestamp' must be the created_at (integer ms) of one of your notifications`);
        }
        const value = await notifications.list(personId, { createdAfter: timestamp, types: notificationTypesParameter(req.query['notification_types']) });
        return withLastTimestamp({ kind: 'resource', type: 'notification', value }, await notifications.lastTimestamp(personId));
      },
    },
  ];
  return {
    reference: { tag: 'Notifications', description: "The caller's notifications and their read state." },
    routes,
    types: [notificationType, referenceType('notification_project', 'project'), referenceType('notification_performer', 'person')],
  };
}

/** Adds the newest notification's timestamp as header and envelope member (absent while there is none). */
function withLastTimestamp(result: ApiResult, last: number | null): ApiResult {
  if (last === null) return result;
  return { ...result, serviceHeaders: { 'Last-Notification-Timestamp': String(last) }, envelopeExtras: { last_notification_timestamp: last } };
}

/** Recorded datetimes have whole-second precision (DESIGN.md). */
function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}
