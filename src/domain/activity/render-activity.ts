// One project event rendered as the activity the feed shows (spec "Events", facts §9). Pure: the same
// event and context always give the same JSON, key order included. Never throws: events of unknown
// types render generically, so a feed keeps working when newer servers add event types.
import { projectIdOfStream, type RecordedEvent, type ResourceChange, type ResourceRef, type Values } from '../events.js';
import type { ActivityChange, ActivityDoc, ActivityPerformer, ActivityResource, RenderContext } from './activity-doc.js';
import { describeActivity } from './activity-message.js';
import { webhookName } from '../webhook/webhook-rules.js';

/** Shown as the performer of events written without an acting person (operator and system commands). */
const SYSTEM_PERFORMER = { name: 'Storyline', initials: 'SL' } as const;
/** Shown when the acting person is not (or no longer) known to the people read model. */
const UNKNOWN_PERFORMER = { name: 'Unknown person', initials: '?' } as const;

/**
 * Events of a project stream that no feed shows: a saved search is private to its owner (its name and
 * query must not reach the other members), so its writes are activities of nobody.
 */
const PRIVATE_EVENT_TYPES: ReadonlySet<string> = new Set(['saved_search_create', 'saved_search_delete']);

/** Only events of project streams are activities (person, account and id streams are not), private ones left out. */
export function isActivityEvent(event: RecordedEvent): boolean {
  return projectIdOfStream(event.stream) !== null && !PRIVATE_EVENT_TYPES.has(event.type);
}

/** The activity of a project event, or null for events of other streams. */
export function renderActivity(event: RecordedEvent, context: RenderContext): ActivityDoc | null {
  if (!isActivityEvent(event)) return null;
  const performedBy = performerOf(event, context);
  const headline = describeActivity(event.type, event.data, performedBy.name);
  return {
    kind: `${event.type}_activity`,
    guid: `${context.projectId}_${event.version}`,
    project_version: event.version,
    message: headline.message,
    highlight: headline.highlight,
    changes: (event.data.changes ?? []).map(renderChange),
    primary_resources: (event.data.primary_resources ?? []).map((ref) => renderResource(ref, context)),
    secondary_resources: (event.data.secondary_resources ?? []).map((ref) => renderResource(ref, context)),
    project: { kind: 'project', id: context.projectId, name: context.projectName },
    performed_by: performedBy,
    occurred_at: event.meta.occurred_at,
    project_id: context.projectId,
    performed_by_id: event.meta.performed_by,
  };
}

function performerOf(event: RecordedEvent, context: RenderContext): ActivityPerformer {
  const id = event.meta.performed_by;
  if (id === null) return { kind: 'person', ...SYSTEM_PERFORMER };
  const known = context.performer;
  if (known && known.id === id) return { kind: 'person', id, name: known.name, initials: known.initials };
  return { kind: 'person', id, ...UNKNOWN_PERFORMER };
}

/** The change without its internal `rank`, keys in a fixed order, values copied (nulls kept). */
function renderChange(change: ResourceChange): ActivityChange {
  const rendered: ActivityChange = { kind: change.kind, change_type: change.change_type, id: change.id };
  if (change.name !== undefined) rendered.name = change.name;
  if (change.story_type !== undefined) rendered.story_type = change.story_type;
  if (change.story_priority !== undefined) rendered.story_priority = change.story_priority;
  if (change.original_values !== undefined) rendered.original_values = shownValues(change.kind, copyValues(change.original_values));
  if (change.new_values !== undefined) rendered.new_values = shownValues(change.kind, copyValues(change.new_values));
  return rendered;
}

/**
 * What every reader of the project may see of a change's values: a webhook's address by its origin only
 * (the path is often the receiver's credential) and never the key of its secret.
 */
function shownValues(kind: string, values: Values): Values {
  if (kind !== 'webhook') return values;
  const { secret_ref: _secretRef, ...shown } = values;
  if (typeof shown['webhook_url'] === 'string') shown['webhook_url'] = webhookName(shown['webhook_url']);
  return shown;
}

function renderResource(ref: ResourceRef, context: RenderContext): ActivityResource {
  const rendered: ActivityResource = { kind: ref.kind, id: ref.id };
  if (ref.name !== undefined) rendered.name = ref.name;
  if (ref.story_type !== undefined) rendered.story_type = ref.story_type;
  if (ref.kind === 'story') rendered.url = context.storyUrl(ref.id);
  if (ref.kind === 'epic') rendered.url = context.epicUrl(ref.id);
  if (ref.story_priority !== undefined) rendered.story_priority = ref.story_priority;
  return rendered;
}

/** A deep copy, so that nothing downstream can change the event (read models share decoded events). */
function copyValues(values: Values): Values {
  return JSON.parse(JSON.stringify(values)) as Values;
}
