// Where a project's iterations start: `start_time` is local midnight (in the project's time zone) of the
// start date, or else of the creation day moved back to the week start day; an accepted story whose
// `accepted_at` is earlier moves it back to the week start day on or before that acceptance (spec,
// Projects rules). Iteration boundaries and numbers are in src/domain/iteration/iteration-calendar.ts.
import { WEEKDAYS } from './project-settings.js';
import { DEFAULT_TIME_ZONE_NAME, dayNumberOfDate, localDayNumber, startOfLocalDay, weekdayOfDayNumber } from './time-zone.js';

/** The IANA name of the project's time zone (stored as a time_zone hash). */
export function projectTimeZoneName(project: Readonly<Record<string, unknown>>): string {
  const zone = project['time_zone'] as { olson_name?: unknown } | undefined;
  return typeof zone?.olson_name === 'string' ? zone.olson_name : DEFAULT_TIME_ZONE_NAME;
}

/** 0 = Sunday ... 6 = Saturday. */
export function projectWeekStart(project: Readonly<Record<string, unknown>>): number {
  return Math.max(0, WEEKDAYS.indexOf(project['week_start_day'] as (typeof WEEKDAYS)[number]));
}

/** The week start day on or before local day `day`. */
export function weekStartOnOrBefore(day: number, weekStart: number): number {
  return day - ((weekdayOfDayNumber(day) - weekStart + 7) % 7);
}

/**
 * The local day (days since 1970-01-01 in the project's zone) on which iteration 1 starts, given the
 * earliest `accepted_at` of the project's accepted stories (undefined when none is accepted).
 */
export function projectStartDay(project: Readonly<Record<string, unknown>>, earliestAcceptedAt?: number): number {
  const zone = projectTimeZoneName(project);
  const weekStart = projectWeekStart(project);
  const nominal =
    typeof project['start_date'] === 'string'
      ? dayNumberOfDate(project['start_date'])
      : weekStartOnOrBefore(localDayNumber(zone, typeof project['created_at'] === 'number' ? project['created_at'] : 0), weekStart);
  if (earliestAcceptedAt === undefined) return nominal;
  return Math.min(nominal, weekStartOnOrBefore(localDayNumber(zone, earliestAcceptedAt), weekStart));
}

/** `start_time`: the first instant of the start day in the project's zone. */
export function projectStartTime(project: Readonly<Record<string, unknown>>, earliestAcceptedAt?: number): number {
  return startOfLocalDay(projectTimeZoneName(project), projectStartDay(project, earliestAcceptedAt));
}
