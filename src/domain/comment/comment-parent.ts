// What a comment belongs to: a story or an epic (exactly one). Every comment write touches its parent's
// updated_at, and people who start following it through the comment (the commenter, mentioned members)
// are added to the parent's follower_ids in the same change, as the real feed showed (facts §9.2).
import type { ProjectState } from '../project-state.js';
import { invalidParameter, unfound } from '../errors.js';
import type { DecidedChange, ResourceRef, Values } from '../events.js';
import { epicRef, epicUpdateChange } from '../epic/epic-state.js';
import type { EpicDoc } from '../epic/epic-state.js';
import type { StoryDoc } from '../project-documents.js';
import { storyRef, storyUpdateChange } from '../story/story-changes.js';
import { unique } from '../story/story-people.js';

/** How a command names a comment's parent: one of the two ids. */
export interface CommentParentRef {
  story_id?: number;
  epic_id?: number;
}

export type CommentParent = { kind: 'story'; doc: StoryDoc } | { kind: 'epic'; doc: EpicDoc };

/** The parent a command names (unfound when it does not exist). */
export function commentParentOf(state: ProjectState, ref: CommentParentRef): CommentParent {
  const hasStory = typeof ref.story_id === 'number';
  const hasEpic = typeof ref.epic_id === 'number';
  if (hasStory === hasEpic) {
    throw invalidParameter([{ field: hasStory ? 'epic_id' : 'story_id', problem: 'A comment belongs to one story or one epic.' }]);
  }
  return hasStory ? { kind: 'story', doc: state.stories.required(ref.story_id!) } : { kind: 'epic', doc: state.epics.required(ref.epic_id!) };
}

/** The attribute a comment of this parent carries: `story_id` or `epic_id`. */
export function parentKey(parent: { kind: 'story' | 'epic'; id: number }): { story_id: number } | { epic_id: number } {
  return parent.kind === 'story' ? { story_id: parent.id } : { epic_id: parent.id };
}

/** The comment must belong to this parent; unfound otherwise (a comment reached by the wrong path). */
export function assertCommentOf(parent: CommentParent, comment: { story_id?: number; epic_id?: number }): void {
  const owner = parent.kind === 'story' ? comment.story_id : comment.epic_id;
  if (owner !== parent.doc.id) throw unfound();
}

export function parentRef(parent: CommentParent): ResourceRef {
  return parent.kind === 'story' ? storyRef(parent.doc) : epicRef(parent.doc);
}

/** The parent's touch: updated_at, and follower_ids when `newFollowers` adds anyone. */
export function parentTouchChange(parent: CommentParent, now: number, newFollowers: readonly number[]): DecidedChange {
  const before = parent.doc.follower_ids;
  const after = unique([...before, ...newFollowers]);
  const original: Values = {};
  const next: Values = {};
  if (after.length !== before.length) {
    original.follower_ids = before;
    next.follower_ids = after;
  }
  original.updated_at = parent.doc.updated_at;
  next.updated_at = now;
  return parent.kind === 'story' ? storyUpdateChange(parent.doc, original, next) : epicUpdateChange(parent.doc, original, next);
}
