// Where a project's iterations start, as far as its settings tell: `start_time` is the start date, or
// else the creation day moved back to the week start day; the current iteration counts whole iteration
// lengths from it. (Iteration overrides and accepted stories refine this in the iterations module.)
import { WEEKDAYS } from './project-settings.js';

const DAY = 86_400_000;

export function projectStartTime(project: Readonly<Record<string, unknown>>): number {
  if (typeof project['start_date'] === 'string') return Date.parse(`${project['start_date']}T00:00:00Z`);
  const created = typeof project['created_at'] === 'number' ? project['created_at'] : 0;
  const day = Math.floor(created / DAY) * DAY;
  const weekStart = Math.max(0, WEEKDAYS.indexOf(project['week_start_day'] as (typeof WEEKDAYS)[number]));
  const back = (new Date(day).getUTCDay() - weekStart + 7) % 7;
  return day - back * DAY;
}

/** 1 during the first iteration (and before the start date). */
export function currentIterationNumber(startTime: number, iterationLengthWeeks: number, now: number): number {
  if (now < startTime) return 1;
  return Math.floor((now - startTime) / (iterationLengthWeeks * 7 * DAY)) + 1;
}
