// The notifications reaction (issue 13; spec: notification; facts §10): turns project events into
// notifications per person (domain/notification/notification-rules.ts) and applies the readers' read
// state (person streams, domain/notification/notification-read.ts), behind the log; writes never wait.
//
// It keeps three collections of its own in the read store, written together with its position in one
// atomic write per batch of events:
//   notifications                  one document per notification; `id` = global position × 1,000,000 +
//                                  the recipient's index in the event, so ids follow the log and a replay
//                                  gives the same ids; created_at / updated_at = the event's occurred_at
//   notification_story_audiences,  the requester, owners, followers and state of each story / epic,
//   notification_epic_audiences    folded from the log (never read from the live read models, which may
//                                  be ahead of or behind this reaction)
//   notification_progress          { id: 1, position }: the last event applied. Events at or before it
//                                  are skipped (idempotent redelivery); when the collections are lost
//                                  (read models in memory, readmodels.sqlite deleted) it is 0 and the
//                                  runner replays the log from the start (`resumeAfter`).
import { projectIdOfStream, type EventType, type RecordedEvent } from '../domain/events.js';
import type { Audience, AudienceKind } from '../domain/notification/notification-audience.js';
import { audienceKey, audiencesTouched, notificationsOf, type NotificationDraft } from '../domain/notification/notification-rules.js';
import type { CollectionWrites, Doc, WriteOp } from '../ports/read-store.js';
import type { Reaction, ReactionDeps, ReactionFactory } from './reaction.js';
import { reactionProgress } from './reaction-progress.js';

export const NOTIFICATIONS = 'notifications';
const AUDIENCES: Readonly<Record<AudienceKind, string>> = {
  story: 'notification_story_audiences',
  epic: 'notification_epic_audiences',
};
const PROGRESS = 'notification_progress';

/** Notification ids per event: ids are position × this + the recipient's index. */
export const NOTIFICATIONS_PER_EVENT = 1_000_000;

const HANDLED: readonly EventType[] = [
  'story_create', 'story_update', 'story_delete', 'story_move', 'story_move_into_project',
  'story_move_into_project_and_prioritize', 'story_move_from_project', 'comment_create', 'blocker_create',
  'epic_create', 'epic_update', 'epic_delete', 'notification_update', 'notification_mark_read',
];

/** The stored notification (rendered by src/api/resources/notifications.ts). */
export function notificationDoc(draft: NotificationDraft, event: RecordedEvent, projectId: number, index: number): Doc {
  return {
    id: event.position * NOTIFICATIONS_PER_EVENT + index,
    person_id: draft.person_id,
    project_id: projectId,
    performer_id: event.meta.performed_by,
    notification_type: draft.notification_type,
    action: draft.action,
    [draft.subject.kind]: { kind: draft.subject.kind, id: draft.subject.id, name: draft.subject.name },
    ...(draft.comment_id !== undefined ? { comment_id: draft.comment_id } : {}),
    ...(draft.context !== undefined ? { context: draft.context } : {}),
    new_attachment_count: draft.new_attachment_count,
    created_at: event.meta.occurred_at,
    updated_at: event.meta.occurred_at,
  };
}

export const notificationsReaction: ReactionFactory = (deps: ReactionDeps): Reaction => {
  const progress = reactionProgress(deps.own, PROGRESS, {
    collection: NOTIFICATIONS,
    fields: [{ field: 'person_id' }, { field: 'created_at' }, { field: 'updated_at' }],
  });


  /**
   * The audiences as a batch leaves them: read from the store once, then kept here, so each event of the
   * batch sees what the events before it made of them; `changes()` are the writes to store at the end.
   */
  function audienceBook() {
    const known = new Map<string, Audience | null>();
    const changed = new Set<string>();
    return {
      async before(event: RecordedEvent): Promise<Map<string, Audience | null>> {
        const book = new Map<string, Audience | null>();
        for (const { kind, id } of audiencesTouched(event.data.changes)) {
          const key = audienceKey(kind, id);
          if (!known.has(key)) known.set(key, (await deps.own.collection(AUDIENCES[kind]).findOne({ id })) as Audience | null);
          book.set(key, known.get(key)!);
        }
        return book;
      },
      record(audiences: Map<string, Audience | null>): void {
        for (const [key, audience] of audiences) {
          known.set(key, audience);
          changed.add(key);
        }
      },
      changes(): CollectionWrites[] {
        const writes = (['story', 'epic'] as const).map((kind) => ({ collection: AUDIENCES[kind], ops: [] as WriteOp[] }));
        for (const key of changed) {
          const [kind, id] = key.split(':') as [AudienceKind, string];
          const audience = known.get(key);
          const ops = writes.find((write) => write.collection === AUDIENCES[kind])!.ops;
          ops.push(audience ? { op: 'replace', filter: { id: Number(id) }, doc: { ...audience }, upsert: true } : { op: 'delete', filter: { id: Number(id) } });
        }
        return writes;
      },
    };
  }

  /** The notifications a project event gives; the audiences it changed go to `book`. */
  async function projectWrites(event: RecordedEvent, projectId: number, book: ReturnType<typeof audienceBook>): Promise<CollectionWrites[]> {
    const { audiences, drafts } = notificationsOf(event, projectId, await book.before(event));
    if (drafts.length >= NOTIFICATIONS_PER_EVENT) throw new Error(`event ${event.position} notifies more than ${NOTIFICATIONS_PER_EVENT} people`);
    book.record(audiences);
    return [{ collection: NOTIFICATIONS, ops: drafts.map((draft, index) => ({ op: 'insert', doc: notificationDoc(draft, event, projectId, index) })) }];
  }

  /** The writes of a reader's read state (their person stream). */
  function readStateWrites(event: RecordedEvent, personId: number): CollectionWrites[] {
    const ops: WriteOp[] = event.data.changes
      .filter((change) => change.kind === 'notification')
      .map((change) => {
        const readAt = change.new_values?.['read_at'];
        const updatedAt = change.new_values?.['updated_at'];
        const marksEarlier = event.type === 'notification_mark_read';
        const filter = marksEarlier
          ? { person_id: personId, id: { $lte: change.id }, read_at: { $exists: false } }
          : { person_id: personId, id: change.id };
        const update = typeof readAt === 'number' ? { $set: { read_at: readAt, updated_at: updatedAt } } : { $set: { updated_at: updatedAt }, $unset: { read_at: '' } };
        return { op: 'update', filter, update, many: marksEarlier };
      });
    return [{ collection: NOTIFICATIONS, ops }];
  }

  return {
    name: 'notifications',
    types: HANDLED,
    resumeAfter: () => progress.applied(),
    async handle(events) {
      const fresh = await progress.fresh(events);
      if (fresh.length === 0) return;
      const book = audienceBook();
      const writes: CollectionWrites[] = [];
      for (const event of fresh) {
        const projectId = projectIdOfStream(event.stream);
        const personId = event.stream.startsWith('person-') ? Number(event.stream.slice('person-'.length)) : null;
        if (projectId !== null) writes.push(...(await projectWrites(event, projectId, book)));
        else if (personId !== null) writes.push(...readStateWrites(event, personId));
      }
      const position = fresh.at(-1)!.position;
      await deps.own.writeAtomically([...writes, ...book.changes(), progress.recorded(position)]);
    },
  };
};
