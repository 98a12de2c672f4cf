// A project's (or person's) native time zone: an IANA (Olson) name, rendered with its UTC offset at a
// given instant (the offset changes with daylight saving time, so it is computed, never trusted from input).

export interface TimeZone {
  kind: 'time_zone';
  olson_name: string;
  /** Sign, hours, colon, minutes: `-07:00`. */
  offset: string;
}

/**
 * Default zone of new projects. The real service defaulted to Pacific time; a self-hosted server has no
 * reason to prefer one zone, so Storyline uses UTC.
 */
export const DEFAULT_TIME_ZONE_NAME = 'Etc/UTC';

/** True when the runtime knows the zone name (case-sensitive, like the IANA database). */
export function isKnownTimeZone(name: string): boolean {
  if (name.trim() !== name || name === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** One formatter per zone (making one costs far more than using it; the zones are the IANA database's few hundred). */
const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

function offsetFormatter(olsonName: string): Intl.DateTimeFormat {
  let formatter = offsetFormatters.get(olsonName);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: olsonName, timeZoneName: 'longOffset' });
    offsetFormatters.set(olsonName, formatter);
  }
  return formatter;
}

/** The zone with its UTC offset at `at` (ms since the epoch). */
export function timeZoneAt(olsonName: string, at: number): TimeZone {
  const part = offsetFormatter(olsonName)
    .formatToParts(new Date(at))
    .find((p) => p.type === 'timeZoneName')?.value;
  // `GMT` alone means +00:00; otherwise `GMT-07:00`.
  const offset = !part || part === 'GMT' ? '+00:00' : part.slice(3);
  return { kind: 'time_zone', olson_name: olsonName, offset };
}

/** The zone name a request gave: a bare name or a time_zone hash with `olson_name`; undefined otherwise. */
export function requestedTimeZoneName(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { olson_name?: unknown }).olson_name === 'string') {
    return (value as { olson_name: string }).olson_name;
  }
  return undefined;
}

// ---- local calendar days (iteration boundaries are local midnights) ----

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const wallClockFormatters = new Map<string, Intl.DateTimeFormat>();

function wallClockFormatter(olsonName: string): Intl.DateTimeFormat {
  let formatter = wallClockFormatters.get(olsonName);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: olsonName,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallClockFormatters.set(olsonName, formatter);
  }
  return formatter;
}

/** A pure function's answers by key, all forgotten at once past `limit` entries. */
function boundedMemo(limit: number): (key: string, compute: () => number) => number {
  const known = new Map<string, number>();
  return (key, compute) => {
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    if (known.size >= limit) known.clear();
    const value = compute();
    known.set(key, value);
    return value;
  };
}

const rememberedOffset = boundedMemo(50_000);

/**
 * The zone's offset from UTC at `at`, in ms (positive east of Greenwich). Memoized per zone and whole
 * second (a pure function of them): formatting the wall clock costs microseconds, and a request asks for
 * the same instants many times (now, the project's start, iteration boundaries).
 */
export function utcOffsetMs(olsonName: string, at: number): number {
  const wholeSecond = Math.floor(at / 1000) * 1000;
  return rememberedOffset(`${olsonName}|${wholeSecond}`, () => wallClockOffsetMs(olsonName, wholeSecond));
}

function wallClockOffsetMs(olsonName: string, wholeSecond: number): number {
  const fields: Record<string, number> = {};
  for (const part of wallClockFormatter(olsonName).formatToParts(new Date(wholeSecond))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const wallClock = Date.UTC(fields['year']!, fields['month']! - 1, fields['day']!, fields['hour']!, fields['minute']!, fields['second']!);
  return wallClock - wholeSecond;
}

/** The local calendar day at `at`, counted in days since 1970-01-01. */
export function localDayNumber(olsonName: string, at: number): number {
  return Math.floor((at + utcOffsetMs(olsonName, at)) / DAY_MS);
}

/** The day number of a calendar date `YYYY-MM-DD`. */
export function dayNumberOfDate(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

/** The calendar date `YYYY-MM-DD` of a day number (the inverse of dayNumberOfDate). */
export function dateOfDayNumber(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** 0 = Sunday ... 6 = Saturday (1970-01-01 was a Thursday). */
export function weekdayOfDayNumber(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

const rememberedDayStart = boundedMemo(50_000);

/**
 * The first instant (ms) of local day `day` in the zone: its local midnight, DST-exact. Where a
 * daylight-saving change skips midnight (some zones change clocks at 00:00), the day starts when the
 * clocks jump, the first instant whose local date is that day. Memoized (a pure function of its inputs).
 */
export function startOfLocalDay(olsonName: string, day: number): number {
  return rememberedDayStart(`${olsonName}|${day}`, () => computeStartOfLocalDay(olsonName, day));
}

function computeStartOfLocalDay(olsonName: string, day: number): number {
  const wallMidnight = day * DAY_MS;
  const offsetBefore = utcOffsetMs(olsonName, wallMidnight - DAY_MS);
  const offsetAfter = utcOffsetMs(olsonName, wallMidnight + DAY_MS);
  let earliest = Infinity;
  for (const offset of new Set([offsetBefore, offsetAfter, utcOffsetMs(olsonName, wallMidnight)])) {
    const candidate = wallMidnight - offset;
    if (candidate + utcOffsetMs(olsonName, candidate) === wallMidnight) earliest = Math.min(earliest, candidate);
  }
  if (earliest !== Infinity) return earliest;
  // Midnight falls in a gap: the first second whose wall clock is at or past midnight.
  let low = wallMidnight - Math.max(offsetBefore, offsetAfter) - HOUR_MS;
  let high = wallMidnight - Math.min(offsetBefore, offsetAfter) + HOUR_MS;
  while (high - low > 1000) {
    const middle = Math.floor((low + high) / 2000) * 1000;
    if (middle + utcOffsetMs(olsonName, middle) >= wallMidnight) high = middle;
    else low = middle;
  }
  return high;
}
