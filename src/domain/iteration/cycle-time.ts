// Cycle time of a story (facts §8, verified on recordings): for each of started, finished, delivered and
// rejected, how many times the story entered the state and the total time it spent there, summing every
// interval; an interval still open counts up to `now`. `total_cycle_time` is the sum of the four times
// (time unstarted or accepted is excluded), omitted for a story that never entered any of them.
// Iteration analytics aggregate these (spec "analytics").

export const CYCLE_STATES = ['started', 'finished', 'delivered', 'rejected'] as const;
export type CycleState = (typeof CYCLE_STATES)[number];

/** A story entering a state. */
export interface StateEntry {
  state: string;
  occurred_at: number;
}

export interface CycleTimeDetails {
  kind: 'cycle_time_details';
  story_id: number;
  total_cycle_time?: number;
  started_time: number;
  started_count: number;
  finished_time: number;
  finished_count: number;
  delivered_time: number;
  delivered_count: number;
  rejected_time: number;
  rejected_count: number;
}

function isCycleState(state: string): state is CycleState {
  return (CYCLE_STATES as readonly string[]).includes(state);
}

/** `entries` in the order they happened (ties keep their order). */
export function cycleTimeDetails(storyId: number, entries: readonly StateEntry[], now: number): CycleTimeDetails {
  const time: Record<CycleState, number> = { started: 0, finished: 0, delivered: 0, rejected: 0 };
  const count: Record<CycleState, number> = { started: 0, finished: 0, delivered: 0, rejected: 0 };
  entries.forEach((entry, index) => {
    if (!isCycleState(entry.state)) return;
    count[entry.state]++;
    const left = entries[index + 1]?.occurred_at ?? now;
    time[entry.state] += Math.max(0, left - entry.occurred_at);
  });
  const entered = CYCLE_STATES.some((state) => count[state] > 0);
  return {
    kind: 'cycle_time_details',
    story_id: storyId,
    ...(entered ? { total_cycle_time: time.started + time.finished + time.delivered + time.rejected } : {}),
    started_time: time.started,
    started_count: count.started,
    finished_time: time.finished,
    finished_count: count.finished,
    delivered_time: time.delivered,
    delivered_count: count.delivered,
    rejected_time: time.rejected,
    rejected_count: count.rejected,
  };
}

/** The iteration's analytics (spec "analytics"). */
export interface IterationAnalytics {
  kind: 'analytics';
  stories_accepted: number;
  bugs_created: number;
  /** Mean total cycle time of the stories accepted in the iteration, whole ms; 0 when none. */
  cycle_time: number;
  /** Rejections ÷ (acceptances + rejections) during the iteration; 0 when there were none. */
  rejection_rate: number;
}

export function iterationAnalytics(input: {
  acceptedCycleTimes: readonly CycleTimeDetails[];
  bugsCreated: number;
  acceptances: number;
  rejections: number;
}): IterationAnalytics {
  const totals = input.acceptedCycleTimes.map((details) => details.total_cycle_time).filter((total): total is number => total !== undefined);
  const verdicts = input.acceptances + input.rejections;
  return {
    kind: 'analytics',
    stories_accepted: input.acceptedCycleTimes.length,
    bugs_created: input.bugsCreated,
    cycle_time: totals.length === 0 ? 0 : Math.round(totals.reduce((sum, total) => sum + total, 0) / totals.length),
    rejection_rate: verdicts === 0 ? 0 : input.rejections / verdicts,
  };
}
