// Which notifications one project event gives, and to whom (spec: notification; facts §10). Pure: the
// event and the audiences of the stories and epics it touches (as they were before it) in, the audiences
// after it and the notifications out. The rules (recorded in docs/decisions.md):
//
//   story owners added (create or update)  -> each new owner      story   / ownership
//   story moved to rejected                -> its owners          story   / rejection
//   story moved to accepted                -> its owners          story   / acceptance
//   story moved to delivered               -> its requester       story   / delivery
//   comment mentioning `@username`         -> each mentioned one  comment_with_mention / create
//   comment on a story or epic             -> requester, owners and followers not told otherwise by
//                                             this event          comment / create
//   blocker added to a story               -> its requester and owners   blocker / create
//
// Never to the person who performed the event, nor to the writer of the comment. One person gets at
// most one notification of a type and action per event; recipients come in ascending id order.
import type { RecordedEvent, ResourceChange } from '../events.js';
import { foldAudience, isAudienceChange, type Audience, type AudienceKind } from './notification-audience.js';

export const NOTIFICATION_TYPES = ['story', 'epic', 'comment', 'comment_with_mention', 'blocker'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];
/** The types `:default` (or no filter) gives; `:all` adds the others (spec). */
export const DEFAULT_NOTIFICATION_TYPES: readonly NotificationType[] = ['story', 'epic', 'comment', 'comment_with_mention'];

export type NotificationAction = 'ownership' | 'rejection' | 'acceptance' | 'delivery' | 'create';

/** A notification before it has an id: what it says, to whom, about what. */
export interface NotificationDraft {
  person_id: number;
  notification_type: NotificationType;
  action: NotificationAction;
  subject: { kind: AudienceKind; id: number; name: string };
  comment_id?: number;
  /** The comment's text or the blocker's description. */
  context?: string;
  new_attachment_count: number;
}

/** Audiences by `audienceKey`. */
export type AudienceBook = ReadonlyMap<string, Audience | null>;

export function audienceKey(kind: AudienceKind, id: number): string {
  return `${kind}:${id}`;
}

/** The stories and epics an event's notifications depend on: those it changes, comments on, blocks. */
export function audiencesTouched(changes: readonly ResourceChange[]): Array<{ kind: AudienceKind; id: number }> {
  const keys = new Map<string, { kind: AudienceKind; id: number }>();
  const add = (kind: AudienceKind, id: unknown) => {
    if (typeof id === 'number') keys.set(audienceKey(kind, id), { kind, id });
  };
  for (const change of changes) {
    if (isAudienceChange(change)) add(change.kind, change.id);
    const values = change.new_values ?? {};
    if (change.kind === 'comment' || change.kind === 'blocker') {
      add('story', values['story_id']);
      add('epic', values['epic_id']);
    }
  }
  return [...keys.values()];
}

export interface EventNotifications {
  /** Every audience the event touched, as it is after the event (null: deleted). */
  audiences: Map<string, Audience | null>;
  drafts: NotificationDraft[];
}

export function notificationsOf(event: RecordedEvent, projectId: number, before: AudienceBook): EventNotifications {
  const audiences = new Map(before);
  const drafts: NotificationDraft[] = [];
  const performer = event.meta.performed_by;
  const tell = (draft: NotificationDraft) => {
    if (draft.person_id === performer) return;
    const told = drafts.some(
      (other) => other.person_id === draft.person_id && other.notification_type === draft.notification_type && other.action === draft.action,
    );
    if (!told) drafts.push(draft);
  };

  for (const change of event.data.changes) {
    if (!isAudienceChange(change)) continue;
    const key = audienceKey(change.kind, change.id);
    const previous = audiences.get(key) ?? null;
    const next = foldAudience(previous, change, projectId);
    audiences.set(key, next);
    if (next && change.kind === 'story') storyDrafts(previous, next, change).forEach(tell);
  }
  for (const change of event.data.changes) {
    if (change.change_type !== 'create') continue;
    if (change.kind === 'comment') commentDrafts(change, audiences, drafts).forEach(tell);
    if (change.kind === 'blocker') blockerDrafts(change, audiences).forEach(tell);
  }
  return { audiences, drafts };
}

function storyDrafts(before: Audience | null, after: Audience, change: ResourceChange): NotificationDraft[] {
  const subject = { kind: 'story' as const, id: after.id, name: after.name };
  const about = (person_id: number, action: NotificationAction): NotificationDraft => ({
    person_id, notification_type: 'story', action, subject, new_attachment_count: 0,
  });
  const drafts = ascending(after.owner_ids.filter((id) => !(before?.owner_ids ?? []).includes(id))).map((id) => about(id, 'ownership'));
  const state = change.new_values?.['current_state'];
  if (change.change_type === 'update' && typeof state === 'string' && state !== before?.current_state) {
    if (state === 'rejected') drafts.push(...ascending(after.owner_ids).map((id) => about(id, 'rejection')));
    if (state === 'accepted') drafts.push(...ascending(after.owner_ids).map((id) => about(id, 'acceptance')));
    if (state === 'delivered' && after.requested_by_id !== undefined) drafts.push(about(after.requested_by_id, 'delivery'));
  }
  return drafts;
}

function commentDrafts(change: ResourceChange, audiences: AudienceBook, earlier: readonly NotificationDraft[]): NotificationDraft[] {
  const values = change.new_values ?? {};
  const parent = parentOf(values, audiences);
  if (!parent) return [];
  const writer = values['person_id'];
  const mentioned = ascending(numbers(values['mentioned_person_ids']).filter((id) => id !== writer));
  const text = typeof values['text'] === 'string' ? values['text'] : undefined;
  const base = {
    action: 'create' as const,
    subject: { kind: parent.kind, id: parent.audience.id, name: parent.audience.name },
    comment_id: change.id,
    ...(text !== undefined ? { context: text } : {}),
    new_attachment_count: numbers(values['file_attachment_ids']).length + numbers(values['ext_attachment_ids']).length,
  };
  const toldAlready = new Set([...mentioned, ...earlier.map((draft) => draft.person_id)]);
  const followers = ascending(concerned(parent.audience)).filter((id) => id !== writer && !toldAlready.has(id));
  return [
    ...mentioned.map((person_id) => ({ ...base, person_id, notification_type: 'comment_with_mention' as const })),
    ...followers.map((person_id) => ({ ...base, person_id, notification_type: 'comment' as const })),
  ];
}

function blockerDrafts(change: ResourceChange, audiences: AudienceBook): NotificationDraft[] {
  const values = change.new_values ?? {};
  const story = typeof values['story_id'] === 'number' ? audiences.get(audienceKey('story', values['story_id'])) : null;
  if (!story) return [];
  const description = typeof values['description'] === 'string' ? values['description'] : undefined;
  const people = ascending([...(story.requested_by_id !== undefined ? [story.requested_by_id] : []), ...story.owner_ids]);
  return people.map((person_id) => ({
    person_id,
    notification_type: 'blocker' as const,
    action: 'create' as const,
    subject: { kind: 'story' as const, id: story.id, name: story.name },
    ...(description !== undefined ? { context: description } : {}),
    new_attachment_count: 0,
  }));
}

function parentOf(values: Record<string, unknown>, audiences: AudienceBook): { kind: AudienceKind; audience: Audience } | null {
  for (const kind of ['story', 'epic'] as const) {
    const id = values[`${kind}_id`];
    const audience = typeof id === 'number' ? audiences.get(audienceKey(kind, id)) : null;
    if (audience) return { kind, audience };
  }
  return null;
}

/** Everyone a story or epic concerns: requester, owners, followers (facts §10: the followers). */
function concerned(audience: Audience): number[] {
  return [...(audience.requested_by_id !== undefined ? [audience.requested_by_id] : []), ...audience.owner_ids, ...audience.follower_ids];
}

function numbers(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((id): id is number => typeof id === 'number') : [];
}

function ascending(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}
