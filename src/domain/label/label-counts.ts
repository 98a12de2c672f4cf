// Per-label story counts: for every label, how many of its stories are in each state, the sum of their
// estimates and how many are estimated at zero, per state. They are stored on the label document and
// maintained by the changes of every write that moves them (the activity feed shows them as label
// updates), so reading them never scans the stories.
import type { ProjectState } from '../project-state.js';
import type { ResourceChange } from '../events.js';
import type { CountsByState, StoryCounts, StoryState } from '../project-documents.js';
import { STORY_STATES } from '../story/story-rules.js';

/** What the counts see of a story. */
export interface CountedStory {
  current_state: StoryState;
  estimate?: number;
  label_ids: readonly number[];
}

export function emptyStoryCounts(): StoryCounts {
  return {
    kind: 'story_counts',
    number_of_stories_by_state: zeroByState(),
    sum_of_story_estimates_by_state: zeroByState(),
    number_of_zero_point_stories_by_state: zeroByState(),
  };
}

/** The counts of a label as stored (all zero for a label not yet counted or not yet created). */
export function storedCounts(state: ProjectState, labelId: number): StoryCounts {
  return state.labels.get(labelId)?.counts ?? emptyStoryCounts();
}

/** Counts with `removed` taken out and `added` put in (either may be null). */
export function recount(counts: StoryCounts, removed: CountedStory | null, added: CountedStory | null): StoryCounts {
  const next = structuredClone(counts);
  if (removed) addStory(next, removed, -1);
  if (added) addStory(next, added, 1);
  return next;
}

export interface LabelRecount {
  labelId: number;
  original: StoryCounts;
  next: StoryCounts;
}

/**
 * The labels whose counts change when a story goes from `before` to `after` (null = the story does
 * not exist on that side), with their counts before and after.
 */
export function labelRecounts(
  state: ProjectState,
  before: CountedStory | null,
  after: CountedStory | null,
): LabelRecount[] {
  const labelIds = new Set([...(before?.label_ids ?? []), ...(after?.label_ids ?? [])]);
  const recounts: LabelRecount[] = [];
  for (const labelId of labelIds) {
    const removed = before?.label_ids.includes(labelId) ? before : null;
    const added = after?.label_ids.includes(labelId) ? after : null;
    const original = storedCounts(state, labelId);
    const next = recount(original, removed, added);
    if (!sameCounts(original, next)) recounts.push({ labelId, original, next });
  }
  return recounts;
}

/** The label update change recording a recount of an existing label. */
export function labelCountsChange(state: ProjectState, recount: LabelRecount): ResourceChange<'label'> {
  const label = state.labels.get(recount.labelId);
  return {
    kind: 'label',
    change_type: 'update',
    id: recount.labelId,
    ...(label ? { name: label.name } : {}),
    original_values: { counts: recount.original },
    new_values: { counts: recount.next },
  };
}

function zeroByState(): CountsByState {
  const counts = { kind: 'counts_by_story_state' } as CountsByState;
  for (const state of STORY_STATES) counts[state] = 0;
  return counts;
}

function addStory(counts: StoryCounts, story: CountedStory, sign: 1 | -1): void {
  const state = story.current_state;
  counts.number_of_stories_by_state[state] += sign;
  if (story.estimate !== undefined) {
    // Fractional estimates (custom scales) must not leave binary rounding residue behind.
    const sum = counts.sum_of_story_estimates_by_state[state] + sign * story.estimate;
    counts.sum_of_story_estimates_by_state[state] = Math.round(sum * 1e6) / 1e6;
    if (story.estimate === 0) counts.number_of_zero_point_stories_by_state[state] += sign;
  }
}

function sameCounts(a: StoryCounts, b: StoryCounts): boolean {
  return STORY_STATES.every(
    (state) =>
      a.number_of_stories_by_state[state] === b.number_of_stories_by_state[state] &&
      a.sum_of_story_estimates_by_state[state] === b.sum_of_story_estimates_by_state[state] &&
      a.number_of_zero_point_stories_by_state[state] === b.number_of_zero_point_stories_by_state[state],
  );
}
