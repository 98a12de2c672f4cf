// The state of a project's stream (`project-<id>`), as its deciders read it: one typed collection per
// kind of document the project holds, and named look-ups (labels and review types by name, tasks by
// story, memberships by person, the story and epic orders, commits recorded per story). The look-ups
// read indexes the state keeps private: made on first use, then updated with each change of their kind
// as events are folded (changed()), so a look-up costs the same however many events came before.
// Deciders never change the state; folding an acknowledged event does.
import type { CommentDoc } from './comment/comment-writes.js';
import type { EpicDoc } from './epic/epic-state.js';
import { unfound } from './errors.js';
import { projectIdOfStream } from './events.js';
import type { FileAttachmentDoc } from './file-attachment/upload-file.js';
import type { BlockerDoc } from './blocker/blocker-changes.js';
import type { LabelDoc, MembershipDoc, ProjectDoc, StoryDoc, TaskDoc } from './project-documents.js';
import { compareKeys } from './rank.js';
import { filledIndex, StreamState, type MaintainedIndex, type ResourceDoc } from './resource-state.js';
import type { ReviewDoc, ReviewTypeDoc } from './review/review-state.js';
import type { SavedSearchDoc } from './saved-search/saved-search-rules.js';
import { SortedBlocks } from './sorted-blocks.js';
import { StoryOrderIndex } from './story/story-order-index.js';
import type { WebhookDoc } from './webhook/webhook-rules.js';

/**
 * The stored form of a label name, which is also its lookup key: label names are unique per project
 * regardless of case and surrounding white space, and stored in lower case.
 */
export function normalizedLabelName(name: string): string {
  return name.trim().toLowerCase();
}

/** The key a review type's name is unique by within its project: case and surrounding spaces ignored. */
export function reviewTypeKey(name: string): string {
  return name.trim().toLowerCase();
}

/** A document inside a story (through `story_id`, or its comment's), with its kind: deleted and moved with it. */
export type StoryContent =
  | { kind: 'task'; doc: TaskDoc }
  | { kind: 'comment'; doc: CommentDoc }
  | { kind: 'blocker'; doc: BlockerDoc }
  | { kind: 'review'; doc: ReviewDoc }
  | { kind: 'file_attachment'; doc: FileAttachmentDoc };

/** An iteration override as stored: its iteration's number and the attributes it overrides. */
export interface IterationOverrideDoc extends ResourceDoc {
  number: number;
}

export class ProjectState extends StreamState {
  readonly projects = this.collection<ProjectDoc>('project');
  readonly memberships = this.collection<MembershipDoc>('project_membership');
  readonly stories = this.collection<StoryDoc>('story');
  readonly labels = this.collection<LabelDoc>('label');
  readonly tasks = this.collection<TaskDoc>('task');
  readonly comments = this.collection<CommentDoc>('comment');
  readonly fileAttachments = this.collection<FileAttachmentDoc>('file_attachment');
  readonly blockers = this.collection<BlockerDoc>('blocker');
  readonly epics = this.collection<EpicDoc>('epic');
  readonly iterationOverrides = this.collection<IterationOverrideDoc>('iteration_override');
  readonly savedSearches = this.collection<SavedSearchDoc>('saved_search');
  readonly reviewTypes = this.collection<ReviewTypeDoc>('review_type');
  readonly reviews = this.collection<ReviewDoc>('review');
  readonly webhooks = this.collection<WebhookDoc>('webhook');

  get projectId(): number {
    const id = projectIdOfStream(this.stream);
    if (id === null) throw new Error(`${this.stream} is not a project stream`);
    return id;
  }

  /** The project document; a project that does not exist (or was deleted) is unfound. */
  project(): ProjectDoc {
    return this.projects.required(this.projectId);
  }

  /** The label of that name (under normalizedLabelName), if any. */
  labelNamed(name: string): LabelDoc | undefined {
    return this.indexed('label', () => filledIndex(this.labels, new ByNameIndex<LabelDoc>(normalizedLabelName))).get(name);
  }

  /** The review type of that name (under reviewTypeKey), if any. */
  reviewTypeNamed(name: string): ReviewTypeDoc | undefined {
    return this.indexed('review_type', () => filledIndex(this.reviewTypes, new ByNameIndex<ReviewTypeDoc>(reviewTypeKey))).get(name);
  }

  /** The tasks of a story, by position. */
  tasksOf(storyId: number): readonly TaskDoc[] {
    return this.indexed('task', () => filledIndex(this.tasks, new TasksByStoryIndex())).of(storyId);
  }

  /** The task of that story, or unfound (also when the task belongs to another story). */
  taskOf(storyId: number, taskId: number): TaskDoc {
    const task = this.tasks.get(taskId);
    if (!task || task.story_id !== storyId) throw unfound();
    return task;
  }

  /** The person's membership of the project, if any. */
  membershipOf(personId: number): MembershipDoc | undefined {
    return this.indexed('project_membership', () => filledIndex(this.memberships, new ByPersonIndex<MembershipDoc>())).of(personId);
  }

  isMember(personId: number): boolean {
    return this.membershipOf(personId) !== undefined;
  }

  ownerCount(): number {
    return this.memberships.filter((membership) => membership.role === 'owner').length;
  }

  /** The project's stories in the one order, all of them and per state (story/story-order.ts reads it). */
  storyOrder(): StoryOrderIndex {
    // filled in order, after one sort: each insert then lands at an end
    return this.indexed('story', () => filledIndex([...this.stories].sort(StoryOrderIndex.inOrder), new StoryOrderIndex()));
  }

  /** The project's epics in their order (epic/epic-order.ts reads it). */
  epicOrder(): SortedBlocks<EpicDoc> {
    return this.indexed('epic', () => filledIndex(this.epics, new EpicOrderIndex())).all;
  }

  /** Whether a comment of the story already records that commit (its `commit_identifier`). */
  recordsCommit(storyId: number, commitId: string): boolean {
    return this.indexed('comment', () => filledIndex(this.comments, new CommitsByStoryIndex())).records(storyId, commitId);
  }

  /**
   * The documents that live inside a story, by kind, and the uploaded files (metadata) of its comments,
   * which go and move with their comments.
   */
  storyContents(storyId: number): StoryContent[] {
    const contents: StoryContent[] = [];
    for (const doc of this.tasks) if (doc.story_id === storyId) contents.push({ kind: 'task', doc });
    for (const doc of this.comments) if (doc.story_id === storyId) contents.push({ kind: 'comment', doc });
    for (const doc of this.blockers) if (doc.story_id === storyId) contents.push({ kind: 'blocker', doc });
    for (const doc of this.reviews) if (doc.story_id === storyId) contents.push({ kind: 'review', doc });
    const commentIds = new Set(contents.filter(({ kind }) => kind === 'comment').map(({ doc }) => doc.id));
    if (commentIds.size === 0) return contents;
    for (const doc of this.fileAttachments) {
      if (doc.comment_id !== undefined && commentIds.has(doc.comment_id)) contents.push({ kind: 'file_attachment', doc });
    }
    return contents;
  }
}

/** Documents by their name's key (names are unique per project under `keyOf`). */
class ByNameIndex<D extends ResourceDoc & { name: string }> implements MaintainedIndex<D> {
  private readonly byKey = new Map<string, D>();
  constructor(private readonly keyOf: (name: string) => string) {}

  get(name: string): D | undefined {
    return this.byKey.get(this.keyOf(name));
  }

  replace(before: D | undefined, after: D | null): void {
    if (before) {
      const key = this.keyOf(before.name);
      if (this.byKey.get(key)?.id === before.id) this.byKey.delete(key);
    }
    if (after) this.byKey.set(this.keyOf(after.name), after);
  }
}

/** Memberships by person (a person holds at most one membership per project, or per account). */
export class ByPersonIndex<D extends ResourceDoc & { person_id: number }> implements MaintainedIndex<D> {
  private readonly byPerson = new Map<number, D>();

  of(personId: number): D | undefined {
    return this.byPerson.get(personId);
  }

  replace(before: D | undefined, after: D | null): void {
    if (before && this.byPerson.get(before.person_id)?.id === before.id) this.byPerson.delete(before.person_id);
    if (after) this.byPerson.set(after.person_id, after);
  }
}

/** Each story's tasks by position (ties by id); a list is replaced, never changed, so a reader's copy stays as read. */
class TasksByStoryIndex implements MaintainedIndex<TaskDoc> {
  private readonly byStory = new Map<number, readonly TaskDoc[]>();

  of(storyId: number): readonly TaskDoc[] {
    return this.byStory.get(storyId) ?? [];
  }

  replace(before: TaskDoc | undefined, after: TaskDoc | null): void {
    if (before) {
      const rest = this.of(before.story_id).filter((other) => other.id !== before.id);
      if (rest.length > 0) this.byStory.set(before.story_id, rest);
      else this.byStory.delete(before.story_id);
    }
    if (after) {
      const list = [...this.of(after.story_id), after].sort((a, b) => a.position - b.position || a.id - b.id);
      this.byStory.set(after.story_id, list);
    }
  }
}

/** The epics by rank, ties by id. */
class EpicOrderIndex implements MaintainedIndex<EpicDoc> {
  readonly all = new SortedBlocks<EpicDoc>((a, b) => compareKeys(a.rank, b.rank) || a.id - b.id);

  replace(before: EpicDoc | undefined, after: EpicDoc | null): void {
    if (before) this.all.delete(before);
    if (after) this.all.insert(after);
  }
}

/** The commit ids recorded on each story, counted (two comments may quote one commit). */
class CommitsByStoryIndex implements MaintainedIndex<CommentDoc> {
  private readonly byStory = new Map<number, Map<string, number>>();

  records(storyId: number, commitId: string): boolean {
    return this.byStory.get(storyId)?.has(commitId) ?? false;
  }

  replace(before: CommentDoc | undefined, after: CommentDoc | null): void {
    if (before) this.count(before, -1);
    if (after) this.count(after, 1);
  }

  private count(comment: CommentDoc, step: 1 | -1): void {
    if (comment.story_id === undefined || comment.commit_identifier === undefined) return;
    let commits = this.byStory.get(comment.story_id);
    if (!commits) this.byStory.set(comment.story_id, (commits = new Map()));
    const count = (commits.get(comment.commit_identifier) ?? 0) + step;
    if (count > 0) commits.set(comment.commit_identifier, count);
    else commits.delete(comment.commit_identifier);
    if (commits.size === 0) this.byStory.delete(comment.story_id);
  }
}
