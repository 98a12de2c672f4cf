// The English `highlight` and `message` of an activity (facts §9.4): message = "<performer> <highlight>
// <object phrase>", the highlight being the verb fragment. Written from the event's changes alone, so
// the same event always reads the same way. Messages are not a stable interface (spec "Events"):
// clients parse `changes`. Every event type, known or not, gets a message; nothing here throws.
import type { EventData, EventType, ResourceChange, ResourceRef, Values } from '../events.js';

export interface ActivityHeadline {
  highlight: string;
  message: string;
}

/** The verb fragment and what follows it. */
interface Phrase {
  highlight: string;
  tail: string;
}

type PhraseRule = (data: EventData) => Phrase;

/** `type` is a string: a log written by a newer build may hold types this one does not know. */
export function describeActivity(type: string, data: EventData, performerName: string): ActivityHeadline {
  const phrase = (Object.hasOwn(PHRASES, type) ? PHRASES[type as EventType] : genericPhrase)(data);
  const message = [performerName, phrase.highlight, phrase.tail].filter((part) => part !== '').join(' ');
  return { highlight: phrase.highlight, message };
}

/** One phrase per event type: a new type without one fails to compile. */
const PHRASES: Readonly<Record<EventType, PhraseRule>> = {
  story_create: (data) => storyPhrase(data, 'added'),
  story_update: storyUpdatePhrase,
  story_delete: (data) => storyPhrase(data, 'deleted'),
  story_move: (data) => storyPhrase(data, 'moved'),
  story_move_into_project: (data) => storyMoveBetweenProjects(data, 'into'),
  story_move_into_project_and_prioritize: (data) => storyMoveBetweenProjects(data, 'into'),
  story_move_from_project: (data) => storyMoveBetweenProjects(data, 'from'),
  comment_create: commentCreatePhrase,
  comment_update: () => ({ highlight: 'edited', tail: 'this comment' }),
  comment_delete: (data) =>
    quotedPhrase('deleted comment:', 'deleted a comment', textOf(changeOf(data, 'comment'), 'text')),
  task_create: (data) => quotedPhrase('added task:', 'added a task', textOf(changeOf(data, 'task'), 'description')),
  task_update: taskUpdatePhrase,
  task_delete: (data) =>
    quotedPhrase('deleted task:', 'deleted a task', textOf(changeOf(data, 'task'), 'description')),
  label_create: (data) => labelPhrase(data, 'added label'),
  label_update: labelUpdatePhrase,
  label_delete: (data) => labelPhrase(data, 'deleted label'),
  label_merge: (data) => labelPhrase(data, 'merged label'),
  blocker_create: (data) => quotedPhrase('added blocker:', 'added a blocker', textOf(changeOf(data, 'blocker'), 'description')),
  blocker_update: blockerUpdatePhrase,
  blocker_delete: (data) =>
    quotedPhrase('deleted blocker:', 'deleted a blocker', textOf(changeOf(data, 'blocker'), 'description')),
  file_attachment_create: (data) =>
    quotedPhrase('uploaded file:', 'uploaded a file', textOf(changeOf(data, 'file_attachment'), 'filename')),
  epic_create: () => ({ highlight: 'added', tail: 'this epic' }),
  epic_update: () => ({ highlight: 'edited', tail: 'this epic' }),
  epic_delete: () => ({ highlight: 'deleted', tail: 'this epic' }),
  epic_move: () => ({ highlight: 'moved', tail: 'this epic' }),
  // saved searches are private to their owner: the feeds leave their events out, so these are never shown
  saved_search_create: () => ({ highlight: 'saved', tail: 'a search' }),
  saved_search_delete: () => ({ highlight: 'deleted', tail: 'a saved search' }),
  review_type_create: (data) => quotedPhrase('added review type:', 'added a review type', textOf(changeOf(data, 'review_type'), 'name')),
  review_type_update: reviewTypeUpdatePhrase,
  review_type_delete: (data) => quotedPhrase('deleted review type:', 'deleted a review type', textOf(changeOf(data, 'review_type'), 'name')),
  review_create: (data) => quotedPhrase('added review:', 'added a review', reviewName(data)),
  review_update: reviewUpdatePhrase,
  review_delete: (data) => quotedPhrase('deleted review:', 'deleted a review', reviewName(data)),
  project_create: () => ({ highlight: 'created', tail: 'this project' }),
  project_update: () => ({ highlight: 'edited', tail: 'this project' }),
  project_delete: () => ({ highlight: 'deleted', tail: 'this project' }),
  project_membership_create: membershipCreatePhrase,
  project_membership_update: membershipUpdatePhrase,
  project_membership_delete: (data) => ({ highlight: 'removed', tail: `${memberName(data)} from this project` }),
  iteration_update: iterationUpdatePhrase,
  webhook_create: (data) => webhookPhrase(data, 'added'),
  webhook_update: (data) => webhookPhrase(data, 'edited'),
  webhook_delete: (data) => webhookPhrase(data, 'removed'),
  // Person, account and id streams have no activity feed; rendered generically should one ever be asked.
  person_create: genericPhrase,
  person_update: genericPhrase,
  notification_update: genericPhrase,
  notification_mark_read: genericPhrase,
  workspace_create: genericPhrase,
  workspace_update: genericPhrase,
  workspace_delete: genericPhrase,
  account_create: genericPhrase,
  account_update: genericPhrase,
  account_membership_create: genericPhrase,
  account_membership_update: genericPhrase,
  account_membership_delete: genericPhrase,
  id_block_reserve: genericPhrase,
};

// ---- stories ----

/** State verbs: a state change reads "<verb> this feature" and wins over an estimate change. */
const STATE_VERBS: Readonly<Record<string, string>> = {
  unscheduled: 'unscheduled',
  unstarted: 'unstarted',
  planned: 'planned',
  started: 'started',
  finished: 'finished',
  delivered: 'delivered',
  accepted: 'accepted',
  rejected: 'rejected',
};

function storyPhrase(data: EventData, highlight: string): Phrase {
  return { highlight, tail: storiesObject(data) };
}

function storyUpdatePhrase(data: EventData): Phrase {
  const stories = changesOf(data, 'story');
  if (stories.length !== 1) return storyPhrase(data, 'edited');
  const values = stories[0]!.new_values ?? {};
  if (has(values, 'current_state')) return { highlight: stateVerb(stories[0]!), tail: storiesObject(data) };
  if (has(values, 'estimate') && changedAttributes(values).length === 1) {
    const estimate = values['estimate'];
    if (typeof estimate !== 'number') return storyPhrase(data, 'unestimated');
    return { highlight: 'estimated', tail: `${storiesObject(data)} as ${points(estimate)}` };
  }
  return storyPhrase(data, 'edited');
}

/** What an update changed, without the `updated_at` every change carries. */
function changedAttributes(values: Record<string, unknown>): string[] {
  return Object.keys(values).filter((key) => key !== 'updated_at');
}

function stateVerb(change: ResourceChange): string {
  const state = change.new_values?.['current_state'];
  const before = change.original_values?.['current_state'];
  if (state === 'started' && before === 'rejected') return 'restarted';
  return typeof state === 'string' ? (STATE_VERBS[state] ?? 'edited') : 'edited';
}

function points(estimate: number): string {
  return `${estimate} ${estimate === 1 ? 'point' : 'points'}`;
}

/** "this feature" for one story, "3 stories" for several. */
function storiesObject(data: EventData): string {
  const stories = storyRefs(data);
  if (stories.length > 1) return `${stories.length} stories`;
  return `this ${stories[0]?.story_type ?? 'story'}`;
}

/** The stories an event is about: its primary story resources, else its story changes. */
function storyRefs(data: EventData): Array<{ id: number; story_type?: string }> {
  const primary = data.primary_resources.filter((ref) => ref.kind === 'story');
  if (primary.length > 0) return primary;
  return changesOf(data, 'story');
}

function storyMoveBetweenProjects(data: EventData, direction: 'into' | 'from'): Phrase {
  const other = (data.secondary_resources ?? []).find((ref) => ref.kind === 'project');
  const otherName = other?.name === undefined ? '' : ` "${other.name}"`;
  const tail =
    direction === 'into'
      ? `${storiesObject(data)} into this project${otherName ? ` from project${otherName}` : ''}`
      : `${storiesObject(data)} from this project${otherName ? ` into project${otherName}` : ''}`;
  return { highlight: 'moved', tail };
}

// ---- comments and tasks ----

function commentCreatePhrase(data: EventData): Phrase {
  const text = textOf(changeOf(data, 'comment'), 'text');
  if (text) return { highlight: 'added comment:', tail: `"${text}"` };
  return { highlight: 'added a comment', tail: `to ${subjectObject(data)}` };
}

function taskUpdatePhrase(data: EventData): Phrase {
  const task = changeOf(data, 'task');
  const values = task?.new_values ?? {};
  const description = textOf(task, 'description');
  if (has(values, 'complete')) return flagPhrase(values['complete'], 'completed', 'task', description);
  if (has(values, 'description')) return quotedPhrase('rewrote task:', 'rewrote a task', description);
  if (has(values, 'position')) return quotedPhrase('moved task:', 'moved a task', description);
  return quotedPhrase('edited task:', 'edited a task', description);
}

function blockerUpdatePhrase(data: EventData): Phrase {
  const blocker = changeOf(data, 'blocker');
  const values = blocker?.new_values ?? {};
  const description = textOf(blocker, 'description');
  if (has(values, 'resolved')) return flagPhrase(values['resolved'], 'resolved', 'blocker', description);
  return quotedPhrase('edited blocker:', 'edited a blocker', description);
}

/** "<verb> <noun>:" when a flag became true ("completed task:"), "un<verb> <noun>:" when it became false. */
function flagPhrase(value: unknown, verb: string, noun: string, text: string | null): Phrase {
  const done = value === true ? verb : `un${verb}`;
  return quotedPhrase(`${done} ${noun}:`, `${done} a ${noun}`, text);
}

/** `<highlight> "<text>"` when the text is known, else a phrase that needs no text. */
function quotedPhrase(highlight: string, withoutText: string, text: string | null): Phrase {
  return text === null ? { highlight: withoutText, tail: '' } : { highlight, tail: `"${text}"` };
}

// ---- reviews ----

/** A review change is named by its type's name (review-state.ts). */
function reviewName(data: EventData): string | null {
  const name = changeOf(data, 'review')?.name;
  return typeof name === 'string' && name !== '' ? name : null;
}

/** "set review "Code" to pass", else "edited review: "Code"". */
function reviewUpdatePhrase(data: EventData): Phrase {
  const status = changeOf(data, 'review')?.new_values?.['status'];
  const name = reviewName(data);
  if (typeof status === 'string') {
    return { highlight: 'set review', tail: `${name === null ? '' : `"${name}" `}to ${status.replace(/_/g, ' ')}` };
  }
  return quotedPhrase('edited review:', 'edited a review', name);
}

function reviewTypeUpdatePhrase(data: EventData): Phrase {
  const type = changeOf(data, 'review_type');
  const before = type?.original_values?.['name'];
  const after = type?.new_values?.['name'];
  if (typeof before === 'string' && typeof after === 'string') return { highlight: 'renamed review type', tail: `"${before}" to "${after}"` };
  const hidden = type?.new_values?.['hidden'];
  if (typeof hidden === 'boolean') return quotedPhrase(hidden ? 'hid review type:' : 'showed review type:', hidden ? 'hid a review type' : 'showed a review type', textOf(type, 'name'));
  return quotedPhrase('edited review type:', 'edited a review type', textOf(type, 'name'));
}

// ---- labels ----

function labelPhrase(data: EventData, highlight: string): Phrase {
  const label = changeOf(data, 'label');
  const name = textOf(label, 'name');
  return name === null ? { highlight, tail: '' } : { highlight, tail: `"${name}"` };
}

function labelUpdatePhrase(data: EventData): Phrase {
  const label = changeOf(data, 'label');
  const before = label?.original_values?.['name'];
  const after = label?.new_values?.['name'];
  if (typeof before === 'string' && typeof after === 'string') {
    return { highlight: 'renamed label', tail: `"${before}" to "${after}"` };
  }
  return labelPhrase(data, 'edited label');
}

// ---- memberships ----

function membershipCreatePhrase(data: EventData): Phrase {
  const role = changeOf(data, 'project_membership')?.new_values?.['role'];
  const as = typeof role === 'string' ? ` as ${withArticle(role)}` : '';
  return { highlight: 'added', tail: `${memberName(data)} to this project${as}` };
}

function membershipUpdatePhrase(data: EventData): Phrase {
  const role = changeOf(data, 'project_membership')?.new_values?.['role'];
  if (typeof role === 'string') return { highlight: 'changed', tail: `the role of ${memberName(data)} to ${role}` };
  return { highlight: 'edited', tail: `the membership of ${memberName(data)}` };
}

/** The member's name: a named person or membership resource of the event, else the change's name. */
function memberName(data: EventData): string {
  const refs = [...data.primary_resources, ...(data.secondary_resources ?? [])];
  const named = (kind: string) => refs.find((ref) => ref.kind === kind && typeof ref.name === 'string')?.name;
  return named('person') ?? named('project_membership') ?? changeOf(data, 'project_membership')?.name ?? 'a person';
}

function withArticle(role: string): string {
  return /^[aeiou]/i.test(role) ? `an ${role}` : `a ${role}`;
}

// ---- iteration overrides ----

function iterationUpdatePhrase(data: EventData): Phrase {
  const override = changeOf(data, 'iteration_override');
  if (!override) return genericPhrase(data);
  const number = iterationNumber(override);
  const before = override.original_values ?? {};
  const after = override.new_values ?? {};
  const parts: string[] = [];
  if (has(after, 'length')) {
    parts.push(`iteration ${number} length from ${weeks(before['length'])} to ${weeks(after['length'])}`);
  }
  if (has(after, 'team_strength')) {
    const from = strength(before['team_strength']);
    const to = strength(after['team_strength']);
    parts.push(`${parts.length ? '' : `iteration ${number} `}team strength from ${from} to ${to}`);
  }
  if (parts.length === 0) return { highlight: 'edited', tail: `iteration ${number}` };
  return { highlight: 'changed', tail: parts.join(' and ') };
}

function iterationNumber(change: ResourceChange): number {
  const number = change.new_values?.['number'] ?? change.original_values?.['number'];
  return typeof number === 'number' ? number : change.id;
}

/** An override's length: weeks, or the project's default when unset (the real service wrote "default"). */
function weeks(length: unknown): string {
  if (typeof length !== 'number') return 'default';
  return `${length} ${length === 1 ? 'week' : 'weeks'}`;
}

function strength(value: unknown): string {
  return typeof value === 'number' ? `${Math.round(value * 100)}%` : '100%';
}

// ---- webhooks ----

/** "added a webhook to https://hooks.example.com": the origin only (the change's name), never the path. */
function webhookPhrase(data: EventData, highlight: string): Phrase {
  const origin = changeOf(data, 'webhook')?.name;
  return { highlight, tail: origin ? `a webhook to ${origin}` : 'a webhook' };
}

// ---- anything else ----

/** Unknown or future event types: "<performer> updated <what the event is about>". */
function genericPhrase(data: EventData): Phrase {
  return { highlight: 'updated', tail: subjectObject(data) };
}

/** What an event is about, as an object phrase: "this feature", "this epic", "label", "this project". */
function subjectObject(data: EventData): string {
  const primary: ResourceRef | undefined = data.primary_resources[0];
  if (primary?.kind === 'story') return storiesObject(data);
  if (primary?.kind === 'epic') return 'this epic';
  if (primary?.kind === 'project') return 'this project';
  const kind = primary?.kind ?? data.changes[0]?.kind;
  return kind === undefined ? 'this project' : kind.replace(/_/g, ' ');
}

// ---- reading changes ----

function changesOf(data: EventData, kind: string): ResourceChange[] {
  return data.changes.filter((change) => change.kind === kind);
}

function changeOf(data: EventData, kind: string): ResourceChange | undefined {
  return data.changes.find((change) => change.kind === kind);
}

/** A text attribute of a change: its new value, else its value before, else the change's name, else null. */
function textOf(change: ResourceChange | undefined, key: string): string | null {
  const value = change?.new_values?.[key] ?? change?.original_values?.[key] ?? change?.name;
  return typeof value === 'string' && value !== '' ? value : null;
}

function has(values: Values, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(values, key);
}
