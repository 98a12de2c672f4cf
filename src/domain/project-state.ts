// Read-only accessors over a project's aggregate: the StreamState of stream `project-<id>`, whose docs
// are the stored values of every resource inside the project. Deciders read the state only through
// these accessors; they never modify it (evolve() does, after the store acknowledged an event).
//
// Lookups (labels and review types by name, tasks by story, memberships by person, the story order)
// read indexes the state keeps (resource-state.ts maintainedIndex): made on first use, then updated by
// evolve() with each change of their kind, so a lookup costs the same however many events came before.
import { projectIdOfStream } from './events.js';
import type { ResourceKind } from './events.js';
import { unfound } from './errors.js';
import type { LabelDoc, MembershipDoc, ProjectDoc, StoryDoc, TaskDoc } from './project-documents.js';
import { filledIndex, maintainedIndex } from './resource-state.js';
import type { MaintainedIndex, ResourceDoc, StreamState } from './resource-state.js';

export function projectIdOf(state: StreamState): number {
  const id = projectIdOfStream(state.stream);
  if (id === null) throw new Error(`${state.stream} is not a project stream`);
  return id;
}

/** The project document; a project that does not exist (or was deleted) is unfound. */
export function projectOf(state: StreamState): ProjectDoc {
  const project = state.docs.get('project')?.get(projectIdOf(state));
  if (!project) throw unfound();
  return project as ProjectDoc;
}

/** Every document of a kind, in no particular order. */
export function docsOfKind<T extends ResourceDoc>(state: StreamState, kind: ResourceKind): Iterable<T> {
  return (state.docs.get(kind)?.values() ?? []) as Iterable<T>;
}

export function findDoc<T extends ResourceDoc>(state: StreamState, kind: ResourceKind, id: number): T | undefined {
  return state.docs.get(kind)?.get(id) as T | undefined;
}

export function findStory(state: StreamState, id: number): StoryDoc | undefined {
  return findDoc<StoryDoc>(state, 'story', id);
}

/** The story, or unfound. */
export function storyOf(state: StreamState, id: number): StoryDoc {
  const story = findStory(state, id);
  if (!story) throw unfound();
  return story;
}

export function findLabel(state: StreamState, id: number): LabelDoc | undefined {
  return findDoc<LabelDoc>(state, 'label', id);
}

/** The label, or unfound. */
export function labelOf(state: StreamState, id: number): LabelDoc {
  const label = findLabel(state, id);
  if (!label) throw unfound();
  return label;
}

/**
 * The stored form of a label name, which is also its lookup key: label names are unique per project
 * regardless of case and surrounding white space, and stored in lower case.
 */
export function normalizedLabelName(name: string): string {
  return name.trim().toLowerCase();
}

export function findLabelByName(state: StreamState, name: string): LabelDoc | undefined {
  return findByName<LabelDoc>(state, 'label', name, normalizedLabelName);
}

/**
 * The document of a kind whose name, under `keyOf` (its uniqueness rule: case, spaces), is `name`'s;
 * from an index the state keeps current.
 */
export function findByName<T extends ResourceDoc & { name: string }>(
  state: StreamState,
  kind: ResourceKind,
  name: string,
  keyOf: (name: string) => string,
): T | undefined {
  return maintainedIndex(state, `${kind}-by-name`, () => filledIndex(state, new ByNameIndex(kind, keyOf))).get(keyOf(name)) as T | undefined;
}

/** Documents of a kind by their name's key (names are unique per project under `keyOf`). */
class ByNameIndex implements MaintainedIndex {
  private readonly byKey = new Map<string, ResourceDoc>();
  constructor(
    readonly kind: ResourceKind,
    private readonly keyOf: (name: string) => string,
  ) {}

  get(key: string): ResourceDoc | undefined {
    return this.byKey.get(key);
  }

  replace(before: ResourceDoc | undefined, after: ResourceDoc | null): void {
    if (before) {
      const key = this.keyOf(before.name as string);
      if (this.byKey.get(key)?.id === before.id) this.byKey.delete(key);
    }
    if (after) this.byKey.set(this.keyOf(after.name as string), after);
  }
}

/** The tasks of a story, by position. */
export function tasksOfStory(state: StreamState, storyId: number): readonly TaskDoc[] {
  return maintainedIndex(state, 'tasks-by-story', () => filledIndex(state, new TasksByStoryIndex())).of(storyId);
}

/** Each story's tasks by position (ties by id); a list is replaced, never changed, so a reader's copy stays as read. */
class TasksByStoryIndex implements MaintainedIndex {
  readonly kind = 'task';
  private readonly byStory = new Map<number, readonly TaskDoc[]>();

  of(storyId: number): readonly TaskDoc[] {
    return this.byStory.get(storyId) ?? [];
  }

  replace(before: ResourceDoc | undefined, after: ResourceDoc | null): void {
    if (before) {
      const task = before as TaskDoc;
      const rest = this.of(task.story_id).filter((other) => other.id !== task.id);
      if (rest.length > 0) this.byStory.set(task.story_id, rest);
      else this.byStory.delete(task.story_id);
    }
    if (after) {
      const task = after as TaskDoc;
      const list = [...this.of(task.story_id), task].sort((a, b) => a.position - b.position || a.id - b.id);
      this.byStory.set(task.story_id, list);
    }
  }
}

/** The task of that story, or unfound (also when the task belongs to another story). */
export function taskOf(state: StreamState, storyId: number, taskId: number): TaskDoc {
  const task = findDoc<TaskDoc>(state, 'task', taskId);
  if (!task || task.story_id !== storyId) throw unfound();
  return task;
}

export function membershipOf(state: StreamState, personId: number): MembershipDoc | undefined {
  return maintainedIndex(state, 'memberships-by-person', () => filledIndex(state, new MembershipsByPersonIndex())).of(personId);
}

/** A project's memberships by person (a person holds at most one membership per project). */
class MembershipsByPersonIndex implements MaintainedIndex {
  readonly kind = 'project_membership';
  private readonly byPerson = new Map<number, MembershipDoc>();

  of(personId: number): MembershipDoc | undefined {
    return this.byPerson.get(personId);
  }

  replace(before: ResourceDoc | undefined, after: ResourceDoc | null): void {
    if (before) {
      const membership = before as MembershipDoc;
      if (this.byPerson.get(membership.person_id)?.id === membership.id) this.byPerson.delete(membership.person_id);
    }
    if (after) this.byPerson.set((after as MembershipDoc).person_id, after as MembershipDoc);
  }
}

export function membershipsOf(state: StreamState): MembershipDoc[] {
  return [...docsOfKind<MembershipDoc>(state, 'project_membership')];
}

export function membershipById(state: StreamState, membershipId: number): MembershipDoc {
  const membership = findDoc<MembershipDoc>(state, 'project_membership', membershipId);
  if (!membership) throw unfound();
  return membership;
}

export function ownerCount(state: StreamState): number {
  return membershipsOf(state).filter((membership) => membership.role === 'owner').length;
}

/** Kinds of documents that live inside a story (through `story_id`): deleted and moved with it. */
export const STORY_CONTENT_KINDS: readonly ResourceKind[] = ['task', 'comment', 'blocker', 'review'];

/**
 * The documents that live inside a story, by kind, and the uploaded files (metadata) of its comments,
 * which go and move with their comments.
 */
export function storyContents(state: StreamState, storyId: number): Array<{ kind: ResourceKind; doc: ResourceDoc }> {
  const contents: Array<{ kind: ResourceKind; doc: ResourceDoc }> = [];
  for (const kind of STORY_CONTENT_KINDS) {
    for (const doc of docsOfKind(state, kind)) if (doc.story_id === storyId) contents.push({ kind, doc });
  }
  const commentIds = new Set(contents.filter(({ kind }) => kind === 'comment').map(({ doc }) => doc.id));
  if (commentIds.size === 0) return contents;
  for (const doc of docsOfKind(state, 'file_attachment')) {
    if (commentIds.has(doc.comment_id as number)) contents.push({ kind: 'file_attachment', doc });
  }
  return contents;
}

export function isMember(state: StreamState, personId: number): boolean {
  return membershipOf(state, personId) !== undefined;
}

/**
 * A value derived from the state, computed once per state version. `compute` must read the state
 * only; callers must not mutate the returned value.
 */
export function memoByVersion<T>(state: StreamState, key: string, compute: () => T): T {
  const hit = state.derived.get(key);
  if (hit && hit.version === state.version) return hit.value as T;
  const value = compute();
  state.derived.set(key, { version: state.version, value });
  return value;
}
