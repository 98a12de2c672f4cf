// The daily history of an iteration (facts §8, the burn-up chart's data): for each day of the iteration
// up to today, the points and the number of the iteration's stories in each state at the end of that
// day (the project's local day). A story's state at an instant is the fold of its history entries before
// it (projections/analytics/story-history.ts): its creation in the project, the changes of its state,
// estimate and acceptance time, its leaving. Pure.
import { dateOfDayNumber, startOfLocalDay } from '../project/time-zone.js';
import type { IterationSpan } from './iteration-calendar.js';

/** The states in the recorded header's order. */
export const DAILY_HISTORY_STATES = ['accepted', 'delivered', 'finished', 'started', 'rejected', 'planned', 'unstarted', 'unscheduled'] as const;

/** The recorded header: the date, the points per state, the counts per state. */
export const DAILY_HISTORY_HEADER: readonly string[] = [
  'date',
  ...DAILY_HISTORY_STATES.map((state) => `points_${state}`),
  ...DAILY_HISTORY_STATES.map((state) => `counts_${state}`),
];

/** What one history entry set: null clears (an estimate removed, an acceptance undone). */
export interface StoryHistoryValues {
  current_state?: string | null;
  estimate?: number | null;
  accepted_at?: number | null;
}

export interface StoryHistoryEntry {
  /** ms */
  at: number;
  values: StoryHistoryValues;
  /** The story came into the project here: the entry's values are its whole starting state. */
  created?: boolean;
  /** The story left the project here. */
  deleted?: boolean;
}

/** A story as the project held it at an instant. */
export interface StoryThen {
  current_state: string;
  estimate?: number;
  accepted_at?: number;
}

/** One row: the date (`YYYY-MM-DD`), 8 point sums (floats), 8 counts, in the header's order. */
export type DailyHistoryRow = [string, ...number[]];

/** A story's entries folded, in log order, up to the first one at or after `until`. */
export class StoryHistoryFold {
  private next = 0;
  private current: StoryThen | null = null;

  constructor(private readonly entries: readonly StoryHistoryEntry[]) {}

  /** The story as the project held it just before `until` (null: not in the project then); `until` must not decrease between calls. */
  before(until: number): StoryThen | null {
    while (this.next < this.entries.length && this.entries[this.next]!.at < until) this.apply(this.entries[this.next++]!);
    return this.current;
  }

  private apply(entry: StoryHistoryEntry): void {
    if (entry.deleted) {
      this.current = null;
      return;
    }
    const base: Record<string, unknown> = entry.created || this.current === null ? {} : { ...this.current };
    for (const [key, value] of Object.entries(entry.values)) {
      if (value === null || value === undefined) delete base[key];
      else base[key] = value;
    }
    this.current = typeof base['current_state'] === 'string' ? (base as unknown as StoryThen) : null;
  }
}

/** Whether a story, as the entries tell, was accepted at `span.finish` with an acceptance time within the span. */
export function acceptedWithin(entries: readonly StoryHistoryEntry[], span: IterationSpan): boolean {
  const then = new StoryHistoryFold(entries).before(span.finish);
  return then !== null && then.current_state === 'accepted' && typeof then.accepted_at === 'number' && then.accepted_at >= span.start && then.accepted_at < span.finish;
}

/**
 * The rows of local days `firstDay`..`lastDay` (day numbers in `zone`) for the stories whose entries are
 * given (each in log order): each day's row tallies the stories at the end of that day.
 */
export function dailyHistoryRows(zone: string, firstDay: number, lastDay: number, stories: readonly (readonly StoryHistoryEntry[])[]): DailyHistoryRow[] {
  const folds = stories.map((entries) => new StoryHistoryFold(entries));
  const rows: DailyHistoryRow[] = [];
  for (let day = firstDay; day <= lastDay; day++) {
    const end = startOfLocalDay(zone, day + 1);
    const points = DAILY_HISTORY_STATES.map(() => 0);
    const counts = DAILY_HISTORY_STATES.map(() => 0);
    for (const fold of folds) {
      const story = fold.before(end);
      const index = story === null ? -1 : (DAILY_HISTORY_STATES as readonly string[]).indexOf(story.current_state);
      if (index < 0) continue;
      counts[index]! += 1;
      points[index]! += typeof story!.estimate === 'number' ? story!.estimate : 0;
    }
    rows.push([dateOfDayNumber(day), ...points, ...counts]);
  }
  return rows;
}
