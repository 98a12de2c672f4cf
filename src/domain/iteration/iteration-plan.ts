// Planning of the Current and Backlog iterations (facts §7.4), recomputed from the ordered stories on
// every read:
// - Current holds the stories accepted during it, every story in progress (started, finished,
//   delivered, rejected) and every `planned` story, wherever they sit in the order: starting a story
//   pulls it into Current regardless of capacity, and these stories count against Current's capacity.
// - Unstarted stories then flow in priority order, first into Current (automatic planning only), then
//   into Backlog iterations, each taking stories while their points fit its capacity; the first story
//   that would overflow opens the next iteration (no skipping ahead, no negative carry-over).
//   Unestimated stories cost nothing, so they flow while an iteration is not over.
// - A Backlog iteration always takes at least one story, so a story bigger than the velocity (or any
//   story when the velocity is 0) gets an iteration of its own and planning always ends. A Backlog
//   iteration ended with length 0 (iteration-override.ts) spans nothing and takes nothing.
// - With automatic planning off, Current keeps only what is accepted, in progress or planned; the
//   unstarted stories start in the next iteration.
// Within an iteration, accepted stories come first by `accepted_at` (a back-dated acceptance moves up),
// ties by priority, then the rest by priority.
import { compareKeys } from '../rank.js';
import type { StoryState } from '../project-documents.js';
import { iterationLength, iterationSpan, type IterationCalendar } from './iteration-calendar.js';
import { iterationCapacity } from './velocity.js';

/** What planning needs of a story. */
export interface PlanStory {
  id: number;
  current_state: StoryState;
  estimate?: number;
  accepted_at?: number;
  rank: string;
}

export interface PlanRequest {
  calendar: IterationCalendar;
  currentNumber: number;
  velocity: number;
  automaticPlanning: boolean;
  /** Scheduled stories that are not accepted, in any order. */
  open: readonly PlanStory[];
  /** Stories accepted since the start of the Current iteration. */
  acceptedInCurrent: readonly PlanStory[];
}

export interface PlannedIteration {
  number: number;
  /** In the iteration's display order. */
  stories: PlanStory[];
}

/** States that hold a story in Current whatever the capacity. */
const COMMITTED_STATES: ReadonlySet<StoryState> = new Set<StoryState>(['started', 'finished', 'delivered', 'rejected', 'planned']);

/** The story's points: its estimate, 0 when unestimated. */
export function pointsOf(story: { estimate?: number }): number {
  return typeof story.estimate === 'number' ? story.estimate : 0;
}

export function totalPoints(stories: readonly { estimate?: number }[]): number {
  let points = 0;
  for (const story of stories) points += pointsOf(story);
  return points;
}

export function byPriority(a: PlanStory, b: PlanStory): number {
  return compareKeys(a.rank, b.rank) || a.id - b.id;
}

/** Accepted stories by acceptance time, ties by priority. */
export function byAcceptance(a: PlanStory, b: PlanStory): number {
  return (a.accepted_at ?? 0) - (b.accepted_at ?? 0) || byPriority(a, b);
}

/** A capacity comparison that tolerates the float error of scaled capacities. */
const EPSILON = 1e-9;

/** Current first, then the Backlog iterations in order. */
export function planIterations(request: PlanRequest): PlannedIteration[] {
  const ordered = [...request.open].sort(byPriority);
  const current: PlannedIteration = {
    number: request.currentNumber,
    stories: [...[...request.acceptedInCurrent].sort(byAcceptance), ...ordered.filter((story) => COMMITTED_STATES.has(story.current_state))],
  };
  const planned: PlannedIteration[] = [current];
  const capacityOf = (number: number) => {
    const span = iterationSpan(request.calendar, number);
    return iterationCapacity(request.velocity, span.length, span.team_strength, request.calendar.defaultLength);
  };
  let target = current;
  let capacity = capacityOf(current.number);
  let points = totalPoints(current.stories);
  const openNext = () => {
    // an iteration ended with length 0 spans nothing: it stays empty (bounded: only overrides are 0)
    target = { number: target.number + 1, stories: [] };
    while (iterationLength(request.calendar, target.number) === 0) {
      planned.push(target);
      target = { number: target.number + 1, stories: [] };
    }
    planned.push(target);
    capacity = capacityOf(target.number);
    points = 0;
  };
  if (!request.automaticPlanning) openNext();
  for (const story of ordered) {
    if (story.current_state !== 'unstarted') continue;
    const cost = pointsOf(story);
    const takesAnything = target !== current && target.stories.length === 0;
    if (points + cost > capacity + EPSILON && !takesAnything) openNext();
    target.stories.push(story);
    points += cost;
  }
  while (planned.length > 1 && planned.at(-1)!.stories.length === 0) planned.pop();
  const acceptedCount = request.acceptedInCurrent.length;
  current.stories = [...current.stories.slice(0, acceptedCount), ...current.stories.slice(acceptedCount).sort(byPriority)];
  return planned;
}
