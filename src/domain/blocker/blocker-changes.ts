// A story's blockers: something that keeps the story from moving on, described in words or by naming
// another story of the project as `#<id>` (the first such reference counts). While a blocker that names
// story B is unresolved, B's `blocked_story_ids` lists the blocked story: every blocker write records the
// recount of the stories it names, before and after. Every blocker write touches the blocked story's
// updated_at. Blockers go and move with their story (project-state.ts). The deciders are
// create-blocker.ts, update-blocker.ts and delete-blocker.ts; what they share with the story deciders
// is here.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, unfound } from '../errors.js';
import type { EventType, DecidedChange, ResourceChange } from '../events.js';
import type { StoryDoc } from '../project-documents.js';
import type { ResourceDoc } from '../resource-state.js';
import { storyRef, storyUpdateChange } from '../story/story-changes.js';

export const MAX_BLOCKER_DESCRIPTION = 1000;
/** The most blockers one story create may carry (bounds the loop over them). */
export const MAX_NESTED_BLOCKERS = 100;

export interface BlockerDoc extends ResourceDoc {
  story_id: number;
  person_id: number;
  description: string;
  resolved: boolean;
  created_at: number;
  updated_at: number;
}

/** How a request names a blocker: by its story and its id. */
export interface BlockerAddress {
  story_id: number;
  blocker_id: number;
}

/** A blocker as a request creates it (alone, or nested in a story create). */
export interface NewBlocker {
  description: string;
  resolved?: boolean;
}

/** The delete change of a blocker, whether it goes alone or with its story. */
export function blockerDeleteChange(blocker: BlockerDoc): ResourceChange<'blocker'> {
  return { ...blockerHead(blocker), change_type: 'delete', original_values: { ...blocker } };
}

/** New blockers of a story (which may be created in the same event); `field` names the request key. */
export function newBlockers(storyId: number, inputs: readonly NewBlocker[], field: string, context: DecisionContext): BlockerDoc[] {
  if (inputs.length > MAX_NESTED_BLOCKERS) throw invalidField(field || 'blockers', `At most ${MAX_NESTED_BLOCKERS} blockers per request.`);
  if (context.actorId === null) throw invalidField(field || 'person_id', 'A blocker needs a person to record it.');
  const actor = context.actorId;
  return inputs.map((input) => ({
    id: context.nextId('blocker'),
    story_id: storyId,
    person_id: actor,
    description: blockerDescription(input?.description, field || 'description'),
    resolved: input.resolved === undefined ? false : blockerResolved(input.resolved, field || 'resolved'),
    created_at: context.now,
    updated_at: context.now,
  }));
}

export function blockerCreateChange(blocker: BlockerDoc): ResourceChange<'blocker'> {
  return { ...blockerHead(blocker), change_type: 'create', new_values: { ...blocker } };
}

/** The story a blocker's description names (`#<id>`), if any. */
export function blockingStoryId(description: string): number | null {
  const match = /#(\d{1,15})\b/.exec(description);
  return match ? Number(match[1]) : null;
}

/** A blocker write: the blocker before (null when created) and after (null when deleted). */
export interface BlockerWrite {
  before: BlockerDoc | null;
  after: BlockerDoc | null;
}

/**
 * The `blocked_story_ids` updates of the stories that blockers being written name (before or after),
 * other than the blocked story itself: ids still blocking keep their place, new ones follow by id.
 */
export function blockedStoryChanges(state: ProjectState, writes: readonly BlockerWrite[], now: number): DecidedChange[] {
  const named = new Set<number>();
  for (const { before, after } of writes) {
    for (const blocker of [before, after]) {
      const id = blocker ? blockingStoryId(blocker.description) : null;
      if (id !== null && id !== blocker!.story_id) named.add(id);
    }
  }
  const changes: DecidedChange[] = [];
  for (const storyId of named) {
    const story = state.stories.get(storyId);
    if (!story) continue;
    const blocked = storiesBlockedBy(state, storyId, writes);
    const current = story.blocked_story_ids ?? [];
    const next = [...current.filter((id) => blocked.has(id)), ...[...blocked].filter((id) => !current.includes(id)).sort((a, b) => a - b)];
    if (next.length === current.length && next.every((id, i) => id === current[i])) continue;
    changes.push(
      storyUpdateChange(story, { blocked_story_ids: current, updated_at: story.updated_at }, { blocked_story_ids: next, updated_at: now }),
    );
  }
  return changes;
}

/** The `blocked_story_ids` updates when a story goes: its own blockers no longer block anything. */
export function blockedStoryChangesForDeletedStory(state: ProjectState, storyId: number, now: number): DecidedChange[] {
  const writes: BlockerWrite[] = [];
  for (const blocker of state.blockers) {
    if (blocker.story_id === storyId) writes.push({ before: blocker, after: null });
  }
  return blockedStoryChanges(state, writes, now);
}

/** The stories with an unresolved blocker naming `storyId`, once `writes` are applied. */
function storiesBlockedBy(state: ProjectState, storyId: number, writes: readonly BlockerWrite[]): Set<number> {
  const written = new Map<number, BlockerDoc | null>();
  for (const { before, after } of writes) written.set((after ?? before)!.id, after);
  const blocked = new Set<number>();
  for (const blocker of state.blockers) {
    if (!written.has(blocker.id) && blocks(blocker, storyId)) blocked.add(blocker.story_id);
  }
  for (const after of written.values()) if (after && blocks(after, storyId)) blocked.add(after.story_id);
  return blocked;
}

function blocks(blocker: BlockerDoc, storyId: number): boolean {
  return !blocker.resolved && blocker.story_id !== storyId && blockingStoryId(blocker.description) === storyId;
}

/** The blocker of that story, or unfound (also when it belongs to another story). */
export function blockerOf(state: ProjectState, storyId: number, blockerId: number): BlockerDoc {
  const blocker = state.blockers.get(blockerId);
  if (!blocker || blocker.story_id !== storyId) throw unfound();
  return blocker;
}

/** Every change of a blocker starts with its kind, id and description as name. */
export function blockerHead(blocker: BlockerDoc): Pick<ResourceChange<'blocker'>, 'kind' | 'id' | 'name'> {
  return { kind: 'blocker', id: blocker.id, name: blocker.description };
}

/** The one way every blocker decision is built: the blocker's changes, the recounts, the story's touch. */
export function blockerDecision(
  type: EventType,
  state: ProjectState,
  story: StoryDoc,
  after: BlockerDoc | null,
  changes: DecidedChange[],
  context: DecisionContext,
  before: BlockerDoc | null = null,
): Decision {
  const recounts = blockedStoryChanges(state, [{ before, after }], context.now);
  const touch = storyUpdateChange(story, { updated_at: story.updated_at }, { updated_at: context.now });
  const subject = { kind: 'blocker' as const, id: (after ?? before)!.id };
  return { type, data: { changes: [...changes, ...recounts, touch], primary_resources: [storyRef(story)] }, subject };
}

/** A blocker's description as a request gives it: non-blank, at most MAX_BLOCKER_DESCRIPTION characters. */
export function blockerDescription(description: unknown, field: string): string {
  if (typeof description !== 'string' || description.trim() === '') throw invalidField(field, "Description can't be blank");
  if (description.length > MAX_BLOCKER_DESCRIPTION) {
    throw invalidField(field, `'description' parameter must be ${MAX_BLOCKER_DESCRIPTION} characters or less.`);
  }
  return description;
}

/** A blocker's `resolved` as a request gives it: a boolean. */
export function blockerResolved(resolved: unknown, field: string): boolean {
  if (typeof resolved !== 'boolean') throw invalidField(field, 'resolved must be true or false.');
  return resolved;
}
