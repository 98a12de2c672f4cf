// Iteration arithmetic (facts §7.1): iteration 1 starts at the project's start day; iteration N covers
// `length` weeks, the project's `iteration_length` unless an override gives it another; boundaries are
// local midnights in the project's time zone, so their UTC instants move with daylight saving time.
// Everything is counted in local calendar days (days since 1970-01-01 in the zone) and turned into
// instants only at the end, which keeps the arithmetic exact across DST changes.
import { projectStartDay, projectTimeZoneName } from '../project/project-calendar.js';
import { localDayNumber, startOfLocalDay } from '../project/time-zone.js';

/** An iteration's own settings, where they differ from the project's (spec: iteration_override). */
export interface IterationOverride {
  number: number;
  /** Weeks, 1-99; 0 for an iteration ended as it was current (it spans nothing). */
  length?: number;
  /** 1 = the full team; 0 drops the iteration from velocity. */
  team_strength?: number;
}

export interface IterationCalendar {
  zone: string;
  /** Local day of iteration 1's start. */
  startDay: number;
  /** The project's iteration_length, in weeks. */
  defaultLength: number;
  /** Sorted by number; each number at most once. */
  overrides: readonly IterationOverride[];
}

/** An iteration's place in time. `start` and `finish` are instants (ms); `finish` is the next one's start. */
export interface IterationSpan {
  number: number;
  start: number;
  finish: number;
  length: number;
  team_strength: number;
}

export function iterationCalendar(
  zone: string,
  startDay: number,
  defaultLength: number,
  overrides: readonly IterationOverride[] = [],
): IterationCalendar {
  return { zone, startDay, defaultLength, overrides: [...overrides].sort((a, b) => a.number - b.number) };
}

/**
 * The calendar of a project: its zone, iteration_length and start (moved back by an earlier acceptance,
 * `earliestAcceptedAt`), and the overrides stored for it.
 */
export function projectIterationCalendar(
  project: Readonly<Record<string, unknown>>,
  overrides: readonly IterationOverride[],
  earliestAcceptedAt?: number,
): IterationCalendar {
  const length = typeof project['iteration_length'] === 'number' ? project['iteration_length'] : 1;
  return iterationCalendar(projectTimeZoneName(project), projectStartDay(project, earliestAcceptedAt), length, overrides);
}

function lengthOverrides(calendar: IterationCalendar): IterationOverride[] {
  return calendar.overrides.filter((override) => typeof override.length === 'number');
}

/** Length in weeks of iteration `number`. */
export function iterationLength(calendar: IterationCalendar, number: number): number {
  const override = calendar.overrides.find((candidate) => candidate.number === number);
  return override?.length ?? calendar.defaultLength;
}

export function iterationTeamStrength(calendar: IterationCalendar, number: number): number {
  const override = calendar.overrides.find((candidate) => candidate.number === number);
  return override?.team_strength ?? 1;
}

/** Local day on which iteration `number` (1-based) starts. */
export function iterationStartDay(calendar: IterationCalendar, number: number): number {
  let weeks = (number - 1) * calendar.defaultLength;
  for (const override of lengthOverrides(calendar)) {
    if (override.number >= number) break;
    weeks += override.length! - calendar.defaultLength;
  }
  return calendar.startDay + 7 * weeks;
}

/** The iteration that local day `day` falls in; 1 before the start. */
export function iterationNumberOnDay(calendar: IterationCalendar, day: number): number {
  if (day < calendar.startDay) return 1;
  const uniformDays = 7 * calendar.defaultLength;
  let number = 1;
  let cursor = calendar.startDay;
  for (const override of lengthOverrides(calendar)) {
    const uniformCount = override.number - number;
    if (day < cursor + uniformCount * uniformDays) return number + Math.floor((day - cursor) / uniformDays);
    cursor += uniformCount * uniformDays;
    const overriddenDays = 7 * override.length!;
    if (day < cursor + overriddenDays) return override.number;
    cursor += overriddenDays;
    number = override.number + 1;
  }
  return number + Math.floor((day - cursor) / uniformDays);
}

/** The iteration the instant `at` falls in (e.g. the current iteration at `now`). */
export function iterationNumberAt(calendar: IterationCalendar, at: number): number {
  return iterationNumberOnDay(calendar, localDayNumber(calendar.zone, at));
}

export function iterationSpan(calendar: IterationCalendar, number: number): IterationSpan {
  const startDay = iterationStartDay(calendar, number);
  const length = iterationLength(calendar, number);
  return {
    number,
    start: startOfLocalDay(calendar.zone, startDay),
    finish: startOfLocalDay(calendar.zone, startDay + 7 * length),
    length,
    team_strength: iterationTeamStrength(calendar, number),
  };
}
