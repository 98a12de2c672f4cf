// The project's priority order: ONE order over all of a project's stories, stored as a sortable
// string `rank` on each story. A rank is a band character followed by a fractional key (rank.ts):
// band 'S' holds every scheduled story (any state but unscheduled), band 'U' the Icebox. Because
// 'S' < 'U', every scheduled story ranks above every unscheduled one by construction, and a story
// changes band exactly when it enters or leaves the Icebox.
//
// Placement rules (which slot a story moves to when a request gives no position):
// - a new unscheduled story, or a story sent back to the Icebox: the top of the Icebox;
// - a story leaving the Icebox for unstarted: the bottom of the Backlog (just above the Icebox);
// - entering an in-progress state (started, finished, delivered, rejected) or planned: directly below
//   the last story that is accepted, in progress or planned, when the story was lower than that;
// - entering accepted: directly below the last accepted story, when the story was lower than that
//   (accepted stories move up);
// - any other change keeps the position.
// An explicit before_id / after_id places the story directly above / below that story.
import { DomainError, invalidField } from '../errors.js';
import { compareKeys, keyBetween } from '../rank.js';
import { docsOfKind, findStory, memoByVersion } from '../project-state.js';
import type { StoryDoc, StoryState } from '../project-state.js';
import type { StreamState } from '../resource-state.js';
import { IN_PROGRESS_STATES } from './story-rules.js';

export type Band = 'S' | 'U';

export function bandOf(state: StoryState): Band {
  return state === 'unscheduled' ? 'U' : 'S';
}

/**
 * The stories of the project from the top of the order to the bottom (memoized per version). For
 * reads; deciders find the few stories they need with linear scans (`closest`), so a write never
 * sorts the project.
 */
export function orderedStories(state: StreamState): readonly StoryDoc[] {
  return memoByVersion(state, 'story-order', () => [...docsOfKind<StoryDoc>(state, 'story')].sort(inOrder));
}

/** The one order: by rank, ties (never produced by rankInSlot) broken by id. */
function inOrder(a: StoryDoc, b: StoryDoc): number {
  return compareKeys(a.rank, b.rank) || a.id - b.id;
}

/**
 * The nearest story above (`direction` 'above') or below `pivot` that satisfies `accepts`, skipping
 * `skipId`; one pass over the project's stories. Without a pivot, 'above' finds the last such story
 * of the whole order and 'below' the first.
 */
function closest(
  state: StreamState,
  direction: 'above' | 'below',
  pivot: StoryDoc | null,
  skipId: number | null,
  accepts: (story: StoryDoc) => boolean = () => true,
): StoryDoc | null {
  let best: StoryDoc | null = null;
  for (const story of docsOfKind<StoryDoc>(state, 'story')) {
    if (story.id === skipId || story === pivot || !accepts(story)) continue;
    if (direction === 'above') {
      if (pivot && inOrder(story, pivot) >= 0) continue;
      if (!best || inOrder(story, best) > 0) best = story;
    } else {
      if (pivot && inOrder(story, pivot) <= 0) continue;
      if (!best || inOrder(story, best) < 0) best = story;
    }
  }
  return best;
}

/** The ids around a story: `after_id` is the story directly above it, `before_id` the one below. */
export interface Neighbours {
  before_id: number | null;
  after_id: number | null;
}

export function neighbours(state: StreamState, storyId: number): Neighbours {
  const story = findStory(state, storyId);
  if (!story) return { before_id: null, after_id: null };
  return {
    after_id: closest(state, 'above', story, null)?.id ?? null,
    before_id: closest(state, 'below', story, null)?.id ?? null,
  };
}

/** A gap in the order, between two stories (null = an end), ignoring the story being moved. */
export interface Slot {
  above: StoryDoc | null;
  below: StoryDoc | null;
}

/** Neighbours of a story the write does not move: equal before and after, so no change records them. */
export const UNMOVED: Neighbours = Object.freeze({ before_id: null, after_id: null });

export function slotNeighbours(slot: Slot): Neighbours {
  return { after_id: slot.above?.id ?? null, before_id: slot.below?.id ?? null };
}

/** What a request asked for: a story to sit directly above (before_id) or below (after_id). */
export interface PositionRequest {
  before_id?: number | null;
  after_id?: number | null;
}

export function hasPositionRequest(request: PositionRequest): boolean {
  return typeof request.before_id === 'number' || typeof request.after_id === 'number';
}

/**
 * The slot an explicit position names. `before_id` wins when both are given (clients that send both
 * name the same gap; if the order changed in between, the story the client put its story above is
 * the better guide).
 */
export function requestedSlot(state: StreamState, movingId: number | null, request: PositionRequest): Slot {
  const field = typeof request.before_id === 'number' ? 'before_id' : 'after_id';
  const targetId = request[field] as number;
  const target = findStory(state, targetId);
  if (!target) throw invalidField(field, `Story ${targetId} does not exist in this project.`);
  if (targetId === movingId) throw invalidField(field, 'A story cannot be placed next to itself.');
  if (field === 'before_id') return { above: closest(state, 'above', target, movingId), below: target };
  return { above: target, below: closest(state, 'below', target, movingId) };
}

/** The slot the placement rules above choose, or null to keep the current position. */
export function ruledSlot(state: StreamState, moving: StoryDoc | null, nextState: StoryState): Slot | null {
  const previousState = moving?.current_state;
  if (previousState === nextState) return null;
  const leavesBand = !moving || bandOf(previousState!) !== bandOf(nextState);
  // The top of the Icebox and the bottom of the Backlog are the same gap; the band picks the side.
  if (nextState === 'unscheduled' || nextState === 'unstarted') {
    return leavesBand ? iceboxBoundary(state, moving?.id ?? null) : null;
  }
  const slot =
    nextState === 'accepted'
      ? moveUpBelowLast(state, moving, ['accepted'])
      : moveUpBelowLast(state, moving, [...IN_PROGRESS_STATES, 'planned', 'accepted']);
  // An Icebox story that already tops the whole order leaves the Icebox where it stands.
  return slot ?? (leavesBand ? iceboxBoundary(state, moving?.id ?? null) : null);
}

/** The rank a story of `band` takes in `slot`; invalid_parameter when the slot is in the other band. */
export function rankInSlot(band: Band, slot: Slot, field = 'before_id'): string {
  const aboveBand = slot.above ? bandOf(slot.above.current_state) : null;
  const belowBand = slot.below ? bandOf(slot.below.current_state) : null;
  if (band === 'S' && aboveBand === 'U') {
    throw invalidField(field, 'Only unscheduled stories can be placed in the Icebox; send group "unscheduled" to move it there.');
  }
  if (band === 'U' && belowBand === 'S') {
    throw invalidField(field, 'Unscheduled stories must stay below scheduled ones; send group "scheduled" to schedule it.');
  }
  const above = aboveBand === band ? keyOf(slot.above!) : null;
  const below = belowBand === band ? keyOf(slot.below!) : null;
  return band + keyBetween(above, below);
}

function keyOf(story: StoryDoc): string {
  if (typeof story.rank !== 'string' || story.rank.length < 2) {
    throw new DomainError('api_internal_error', { general_problem: `story ${story.id} has no rank` });
  }
  return story.rank.slice(1);
}

/** The gap between the last scheduled story and the first unscheduled one, ignoring `skipId`. */
function iceboxBoundary(state: StreamState, skipId: number | null): Slot {
  return {
    above: closest(state, 'above', null, skipId, (story) => bandOf(story.current_state) === 'S'),
    below: closest(state, 'below', null, skipId, (story) => bandOf(story.current_state) === 'U'),
  };
}

/**
 * Directly below the last story in one of `states` (the top when there is none), but only when the
 * moving story is lower than that; otherwise null (it stays).
 */
function moveUpBelowLast(state: StreamState, moving: StoryDoc | null, states: readonly StoryState[]): Slot | null {
  const skipId = moving?.id ?? null;
  const anchor = closest(state, 'above', null, skipId, (story) => states.includes(story.current_state));
  if (anchor) {
    if (moving && inOrder(moving, anchor) < 0) return null;
    return { above: anchor, below: closest(state, 'below', anchor, skipId) };
  }
  const first = closest(state, 'below', null, skipId);
  if (moving && first && inOrder(first, moving) > 0) return null;
  return { above: null, below: first };
}
