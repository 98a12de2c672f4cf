// Datetimes as Pivotal Tracker's CSV exports wrote them over the years: "Feb 11, 2016" (a date), with a
// time ("Feb 11, 2016 3:04 PM", "Feb 11, 2016 15:04"), or ISO 8601 ("2016-02-11", "2016-02-11T15:04:05Z").
// A value without a zone is a wall time in the project's time zone; all are cut to whole seconds, as
// every recorded datetime is.
import { timeZoneAt } from '../../domain/project/time-zone.js';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const TRACKER_DATE = /^([A-Za-z]{3})[a-z]*\.? (\d{1,2}), (\d{4})(?:,? (\d{1,2}):(\d{2})(?::(\d{2}))? ?([AaPp][Mm])?)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** ms since the epoch (whole seconds), or null when the text is not a date in a known format. */
export function parsePivotalDate(text: string, timeZone: string): number | null {
  const value = text.trim();
  const tracker = TRACKER_DATE.exec(value);
  if (tracker) {
    const month = MONTHS.indexOf(tracker[1]!.toLowerCase());
    if (month === -1) return null;
    let hour = tracker[4] === undefined ? 0 : Number(tracker[4]);
    const meridiem = tracker[7]?.toLowerCase();
    if (meridiem !== undefined) {
      if (hour < 1 || hour > 12) return null;
      hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
    }
    const wall = { year: Number(tracker[3]), month, day: Number(tracker[2]), hour, minute: Number(tracker[5] ?? 0), second: Number(tracker[6] ?? 0) };
    return isValidWallTime(wall) ? inZone(wall, timeZone) : null;
  }
  const iso = ISO_DATE.exec(value);
  if (!iso) return null;
  const wall = {
    year: Number(iso[1]), month: Number(iso[2]) - 1, day: Number(iso[3]),
    hour: Number(iso[4] ?? 0), minute: Number(iso[5] ?? 0), second: Number(iso[6] ?? 0),
  };
  if (!isValidWallTime(wall)) return null;
  const zone = iso[7];
  if (zone === undefined) return inZone(wall, timeZone);
  const utc = Date.UTC(wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second);
  return zone === 'Z' ? utc : utc - offsetMinutes(zone) * 60_000;
}

function isValidWallTime(wall: WallTime): boolean {
  const date = new Date(Date.UTC(wall.year, wall.month, wall.day));
  return (
    date.getUTCMonth() === wall.month && date.getUTCDate() === wall.day &&
    wall.hour < 24 && wall.minute < 60 && wall.second < 60
  );
}

/** `+05:30`, `-0700` -> minutes east of UTC. */
function offsetMinutes(offset: string): number {
  const digits = offset.replace(':', '');
  const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
  return digits.startsWith('-') ? -minutes : minutes;
}

/** The instant a wall time names in a zone (the zone's offset at that instant, found in two steps). */
function inZone(wall: WallTime, timeZone: string): number {
  const asUtc = Date.UTC(wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second);
  const first = asUtc - offsetMinutes(timeZoneAt(timeZone, asUtc).offset) * 60_000;
  return asUtc - offsetMinutes(timeZoneAt(timeZone, first).offset) * 60_000;
}
