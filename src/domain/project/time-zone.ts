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

/** The zone with its UTC offset at `at` (ms since the epoch). */
export function timeZoneAt(olsonName: string, at: number): TimeZone {
  const part = new Intl.DateTimeFormat('en-US', { timeZone: olsonName, timeZoneName: 'longOffset' })
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
