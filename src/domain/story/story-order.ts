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
//
// The rules need only a few stories (a neighbour, the last story of some states, the first of the
// Icebox): they ask the order index the project state keeps (story-order-index.ts: all stories and each
// state's, in order, updated with every story change), so a placement costs O(log n), not a scan of the
// project. A story moving up below the last one in progress takes a rank just after it (rank.ts
// keyAfter), leaving the gap below for the next ones: a long run of them keeps ranks short.
import { DomainError, invalidField } from '../errors.js';
import { keyAfter, keyBetween } from '../rank.js';
import type { ProjectState } from '../project-state.js';
import type { StoryDoc, StoryState } from '../project-documents.js';
import type { SortedBlocks } from '../sorted-blocks.js';
import { StoryOrderIndex } from './story-order-index.js';
import { IN_PROGRESS_STATES } from './story-rules.js';

export type Band = 'S' | 'U';

export function bandOf(state: StoryState): Band {
  return state === 'unscheduled' ? 'U' : 'S';
}

/** The stories of the project from the top of the order to the bottom (for reads and tests; deciders ask for the few stories they need). */
export function orderedStories(state: ProjectState): StoryDoc[] {
  return [...state.storyOrder().all];
}

const inOrder = StoryOrderIndex.inOrder;

/** The story directly above (`direction` 'above') or below `pivot` in the order, passing over `skipId`. */
function adjacent(state: ProjectState, direction: 'above' | 'below', pivot: StoryDoc, skipId: number | null): StoryDoc | null {
  const { all } = state.storyOrder();
  const step = (story: StoryDoc) => (direction === 'above' ? all.before(story) : all.after(story));
  let found = step(pivot);
  if (found && found.id === skipId) found = step(found);
  return found ?? null;
}

/** The first or the last story across `lists` (ordered lists of stories), passing over `skipId`. */
function endOf(lists: readonly SortedBlocks<StoryDoc>[], end: 'first' | 'last', skipId: number | null): StoryDoc | null {
  let best: StoryDoc | null = null;
  for (const list of lists) {
    let candidate = end === 'first' ? list.first() : list.last();
    if (candidate && candidate.id === skipId) candidate = end === 'first' ? list.after(candidate) : list.before(candidate);
    if (!candidate) continue;
    if (!best || (end === 'first' ? inOrder(candidate, best) < 0 : inOrder(candidate, best) > 0)) best = candidate;
  }
  return best;
}

/** The ids around a story: `after_id` is the story directly above it, `before_id` the one below. */
export interface Neighbours {
  before_id: number | null;
  after_id: number | null;
}

export function neighbours(state: ProjectState, storyId: number): Neighbours {
  const story = state.stories.get(storyId);
  if (!story) return { before_id: null, after_id: null };
  return {
    after_id: adjacent(state, 'above', story, null)?.id ?? null,
    before_id: adjacent(state, 'below', story, null)?.id ?? null,
  };
}

/** A gap in the order, between two stories (null = an end), ignoring the story being moved. */
export interface Slot {
  above: StoryDoc | null;
  below: StoryDoc | null;
  /**
   * The rules will place the next stories of this kind directly below this one (stories moving up below
   * the last one in progress or accepted): its rank is taken just after `above`, keeping the gap below
   * it for them (rank.ts keyAfter), so a long run of them keeps short ranks.
   */
  runContinuesBelow?: boolean;
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
export function requestedSlot(state: ProjectState, movingId: number | null, request: PositionRequest): Slot {
  const field = typeof request.before_id === 'number' ? 'before_id' : 'after_id';
  const targetId = request[field] as number;
  const target = state.stories.get(targetId);
  if (!target) throw invalidField(field, `Story ${targetId} does not exist in this project.`);
  if (targetId === movingId) throw invalidField(field, 'A story cannot be placed next to itself.');
  if (field === 'before_id') return { above: adjacent(state, 'above', target, movingId), below: target };
  return { above: target, below: adjacent(state, 'below', target, movingId) };
}

/** The slot the placement rules above choose, or null to keep the current position. */
export function ruledSlot(state: ProjectState, moving: StoryDoc | null, nextState: StoryState): Slot | null {
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
  return band + (slot.runContinuesBelow && above !== null && below !== null ? keyAfter(above, below) : keyBetween(above, below));
}

function keyOf(story: StoryDoc): string {
  if (typeof story.rank !== 'string' || story.rank.length < 2) {
    throw new DomainError('api_internal_error', { general_problem: `story ${story.id} has no rank` });
  }
  return story.rank.slice(1);
}

/** The gap between the last scheduled story and the first unscheduled one, ignoring `skipId`. */
function iceboxBoundary(state: ProjectState, skipId: number | null): Slot {
  const index = state.storyOrder();
  return {
    above: endOf(index.statesWhere((storyState) => bandOf(storyState) === 'S'), 'last', skipId),
    below: endOf(index.statesWhere((storyState) => bandOf(storyState) === 'U'), 'first', skipId),
  };
}

/**
 * Directly below the last story in one of `states` (the top when there is none), but only when the
 * moving story is lower than that; otherwise null (it stays).
 */
function moveUpBelowLast(state: ProjectState, moving: StoryDoc | null, states: readonly StoryState[]): Slot | null {
  const skipId = moving?.id ?? null;
  const index = state.storyOrder();
  const anchor = endOf(index.statesWhere((storyState) => states.includes(storyState)), 'last', skipId);
  if (anchor) {
    if (moving && inOrder(moving, anchor) < 0) return null;
    return { above: anchor, below: adjacent(state, 'below', anchor, skipId), runContinuesBelow: true };
  }
  const first = endOf([index.all], 'first', skipId);
  if (moving && first && inOrder(first, moving) > 0) return null;
  return { above: null, below: first };
}
