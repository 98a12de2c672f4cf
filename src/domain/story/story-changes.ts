// The resource changes a story write records: the story's own create / update / delete change (with
// what the activity feed shows: only changed keys plus updated_at, nulls explicit, label names beside
// label ids, neighbours when the position moved), the labels it created and the label recounts.
import type { ProjectState } from '../project-state.js';
import type { DecidedChange, ResourceRef, ResourceChange, ChangeValues } from '../events.js';
import { emptyStoryCounts, labelCountsChange, labelRecounts } from '../label/label-counts.js';
import { labelCreateChange } from '../label/label-references.js';
import type { LabelDoc, StoryDoc } from '../project-documents.js';
import type { Neighbours } from './story-order.js';

/** A story write as the deciders settled it. */
export interface StoryWrite {
  /** The story as stored now; null when the write creates it. */
  before: StoryDoc | null;
  /** The story as it will be stored, rank included; null when the write deletes it. */
  after: StoryDoc | null;
  /** Labels created by this write (they are not in the state yet). */
  createdLabels: readonly LabelDoc[];
  /** Neighbours before and after the write (equal when the story did not move). */
  positionBefore: Neighbours;
  positionAfter: Neighbours;
}

/** Keys that are bookkeeping, not attributes to diff. */
const NOT_DIFFED = new Set(['id', 'rank', 'updated_at']);

export function storyRef(story: StoryDoc): ResourceRef {
  return {
    kind: 'story',
    id: story.id,
    name: story.name,
    story_type: story.story_type,
    story_priority: story.story_priority,
  };
}

/** The fields every change of a story starts with (activity: kind, id, name, story_type, story_priority). */
function storyChangeHead(story: StoryDoc): Pick<ResourceChange<'story'>, 'kind' | 'id' | 'name' | 'story_type' | 'story_priority'> {
  return { kind: 'story', id: story.id, name: story.name, story_type: story.story_type, story_priority: story.story_priority };
}

/** An update of some of a story's values, as another resource's write records it (a touch, a relabel). */
export function storyUpdateChange(story: StoryDoc, originalValues: ChangeValues<'story'>, newValues: ChangeValues<'story'>): ResourceChange<'story'> {
  return { ...storyChangeHead(story), change_type: 'update', original_values: originalValues, new_values: newValues };
}

/** The stored attributes of a story as change values (the internal rank left out). */
export function storyValues(story: StoryDoc): ChangeValues<'story'> {
  const { rank: _rank, ...values } = story;
  return values;
}

/** The changes of a story write: the story's change first, then created labels, then recounts. */
export function storyWriteChanges(state: ProjectState, write: StoryWrite): DecidedChange[] {
  const story = write.after ?? write.before;
  if (!story) throw new Error('a story write needs a story on at least one side');
  const recounts = labelRecounts(state, write.before, write.after);
  const created = new Set(write.createdLabels.map((label) => label.id));
  const changes: DecidedChange[] = [storyChange(state, write)];
  for (const label of write.createdLabels) {
    const counts = recounts.find((r) => r.labelId === label.id)?.next ?? emptyStoryCounts();
    changes.push(labelCreateChange(label, counts));
  }
  for (const labelRecount of recounts) {
    if (!created.has(labelRecount.labelId)) changes.push(labelCountsChange(state, labelRecount));
  }
  return changes;
}

/** Whether a story change only moved the story (the event is then a story_move). */
export function isMoveOnly(change: DecidedChange): boolean {
  const keys = Object.keys(change.new_values ?? {}).filter((key) => key !== 'updated_at');
  return keys.length > 0 && keys.every((key) => key === 'before_id' || key === 'after_id');
}

function storyChange(state: ProjectState, write: StoryWrite): ResourceChange<'story'> {
  const { before, after } = write;
  const head = storyChangeHead((after ?? before)!);
  if (!before) {
    return {
      ...head,
      change_type: 'create',
      new_values: {
        ...storyValues(after!),
        ...write.positionAfter,
        labels: labelNames(state, after!.label_ids, write.createdLabels),
      },
      rank: after!.rank,
    };
  }
  if (!after) {
    return { ...head, change_type: 'delete', original_values: storyValues(before) };
  }
  const original: ChangeValues<'story'> = {};
  const next: ChangeValues<'story'> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (NOT_DIFFED.has(key) || sameValue(before[key], after[key])) continue;
    original[key] = before[key] ?? null;
    next[key] = after[key] ?? null;
  }
  if ('label_ids' in next) {
    original.labels = labelNames(state, before.label_ids, []);
    next.labels = labelNames(state, after.label_ids, write.createdLabels);
  }
  for (const key of ['before_id', 'after_id'] as const) {
    if (write.positionBefore[key] !== write.positionAfter[key]) {
      original[key] = write.positionBefore[key];
      next[key] = write.positionAfter[key];
    }
  }
  original.updated_at = before.updated_at;
  next.updated_at = after.updated_at;
  return {
    ...head,
    change_type: 'update',
    original_values: original,
    new_values: next,
    ...(after.rank !== before.rank ? { rank: after.rank } : {}),
  };
}

/** The names of labels, for the `labels` key the activity shows beside `label_ids`. */
export function labelNames(state: ProjectState, labelIds: readonly number[], created: readonly LabelDoc[] = []): string[] {
  return labelIds.map((id) => (state.labels.get(id) ?? created.find((label) => label.id === id))?.name ?? '');
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => item === b[i]);
  return a === b;
}
