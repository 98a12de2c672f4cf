// The event model. Every event, in every stream, is one write request's outcome: a list of resource
// changes (create / update / delete with original and new values), exactly what the activity feed shows.
// State folding and the read projections are therefore generic over resource kinds.

import type { AccountState } from './account/account-state.js';
import type { DocumentsByKind } from './documents.js';
import type { PersonState } from './person/person-state.js';
import type { ProjectState } from './project-state.js';
import type { StreamState } from './resource-state.js';

/**
 * Version of the event data layout; bump it and add an upcaster in infra/event-codec.ts when it changes.
 * 2: every datetime is a whole second (whole-seconds.ts); schema-1 events are truncated when read.
 * 3: account memberships carry `timekeeper` / `time_enterer` and the creator is no admin by default
 *    (account/account-membership-flags.ts); schema-2 account creates are read under those rules.
 */
export const EVENT_SCHEMA = 3;

export type ResourceKind =
  | 'project'
  | 'project_membership'
  | 'story'
  | 'label'
  | 'task'
  | 'comment'
  | 'file_attachment'
  | 'blocker'
  | 'epic'
  | 'iteration_override'
  | 'person'
  | 'account'
  | 'account_membership'
  | 'saved_search'
  | 'review_type'
  | 'review'
  | 'workspace'
  | 'webhook'
  | 'notification'
  | 'id_block';

export type ChangeType = 'create' | 'update' | 'delete';

/** Attribute values as stored in events and read models: datetimes are integer milliseconds. */
export type Values = Record<string, unknown>;

/**
 * The values a change of kind K carries: its document's attributes, typed (null: the attribute is
 * cleared), and the values shown in the feed but derived when stored (resource-state.ts DERIVED_KEYS).
 */
export type ChangeValues<K extends ResourceKind = ResourceKind> = { [F in keyof DocumentsByKind[K]]?: DocumentsByKind[K][F] | null } & Values;

/** One change of one resource: its kind, and its values as V holds them. */
interface ChangeOf<K extends ResourceKind, V> {
  kind: K;
  change_type: ChangeType;
  id: number;
  /** Name of the resource at the time of the change (stories, labels, epics, projects; a task's description, a membership's person). */
  name?: string;
  story_type?: string;
  story_priority?: string;
  /** Only the attributes that changed, before the change (update and delete). */
  original_values?: V;
  /** Only the attributes that changed, after the change (create: the whole resource). */
  new_values?: V;
  /** Internal priority-order key (stories, epics). Folded into state and read models, never rendered. */
  rank?: string;
}

/** A change of a resource of kind K, its values typed by that kind. */
export type ResourceChangeOf<K extends ResourceKind> = ChangeOf<K, ChangeValues<K>>;

/** A change of any kind as an event holds it (values open: the log keeps what older schemas wrote too). */
export type AnyResourceChange = ChangeOf<ResourceKind, Values>;

/**
 * A change of a resource. With kinds given, discriminated by kind: `ResourceChange<'story'>` carries
 * story values, `ResourceChange<ResourceKind>` (DecidedChange) is a change of any kind typed by its
 * kind, what deciders make. Without, a change as the log holds it, read by projections and the feed.
 */
export type ResourceChange<K extends ResourceKind | undefined = undefined> = K extends ResourceKind ? ResourceChangeOf<K> : AnyResourceChange;

/** A change as a decider makes it: of any kind, its values typed by that kind. */
export type DecidedChange = ResourceChange<ResourceKind>;

/** A resource named by an activity's primary or secondary resources. */
export interface ResourceRef {
  kind: string;
  id: number;
  name?: string;
  story_type?: string;
  story_priority?: string;
}

export interface EventData {
  changes: ResourceChange[];
  primary_resources: ResourceRef[];
  secondary_resources?: ResourceRef[];
}

export interface EventMeta {
  schema: number;
  /** When the command was decided, in ms since the epoch. */
  occurred_at: number;
  /** The acting person, or null for operator / system commands. */
  performed_by: number | null;
  command_id: string;
}

/**
 * Every event type, in every stream: the activity kind without `_activity` for project streams, and the
 * person, account and id-allocation events. A closed list: the activity phrases are a record over it, so
 * a new type without a phrase fails to compile.
 */
export const EVENT_TYPES = [
  'project_create',
  'project_update',
  'project_delete',
  'project_membership_create',
  'project_membership_update',
  'project_membership_delete',
  'story_create',
  'story_update',
  'story_delete',
  'story_move',
  'story_move_into_project',
  'story_move_into_project_and_prioritize',
  'story_move_from_project',
  'task_create',
  'task_update',
  'task_delete',
  'label_create',
  'label_update',
  'label_delete',
  'label_merge',
  'comment_create',
  'comment_update',
  'comment_delete',
  'epic_create',
  'epic_update',
  'epic_delete',
  'epic_move',
  'blocker_create',
  'blocker_update',
  'blocker_delete',
  'file_attachment_create',
  'saved_search_create',
  'saved_search_delete',
  'review_type_create',
  'review_type_update',
  'review_type_delete',
  'review_create',
  'review_update',
  'review_delete',
  'iteration_update',
  'webhook_create',
  'webhook_update',
  'webhook_delete',
  'person_create',
  'person_update',
  'notification_update',
  'notification_mark_read',
  'workspace_create',
  'workspace_update',
  'workspace_delete',
  'account_create',
  'account_update',
  'account_membership_create',
  'account_membership_update',
  'account_membership_delete',
  'id_block_reserve',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** An event as a decider produces it: `type` is the activity kind without `_activity`. */
export interface NewEvent {
  type: EventType;
  data: EventData;
  meta: EventMeta;
}

/** An event as the event store returns it. */
export interface RecordedEvent extends NewEvent {
  /** Deterministic id derived from the command id and the event's index within its append. */
  id: string;
  stream: string;
  /** 1-based number within its stream; for a project stream this is the project version. */
  version: number;
  /** 1-based position in the global log: gap-free, never goes backwards. */
  position: number;
}

declare const stateType: unique symbol;

/**
 * A stream's name, carrying (in types only) the class of state its deciders read: the command handler
 * hands a decider of a project stream a ProjectState (decision-states.ts makes it from the name).
 */
export type StreamName<S = StreamState> = string & { readonly [stateType]?: S };

export const streams = {
  project: (id: number): StreamName<ProjectState> => `project-${id}`,
  person: (id: number): StreamName<PersonState> => `person-${id}`,
  account: (id: number): StreamName<AccountState> => `account-${id}`,
  ids: (kind: string): StreamName => `ids-${kind}`,
} as const;

/** The project id of a project stream name, or null for any other stream. */
export function projectIdOfStream(stream: string): number | null {
  if (!stream.startsWith('project-')) return null;
  const id = Number(stream.slice('project-'.length));
  return Number.isSafeInteger(id) ? id : null;
}
