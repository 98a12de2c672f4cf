// Date values of the search grammar (facts §5.2): `YYYY-MM-DD`, `today`, `yesterday`, relative `-2w`,
// `-3d`, `-5h` (units also spelled out), and ranges `a..b` with open sides. Each value is a half-open
// interval [start, end) in ms, computed in the searcher's time zone:
//   a day, today, yesterday      -> that local calendar day
//   -N days / weeks / months / years -> the local calendar day that long before today
//   -N hours                     -> the local clock hour N hours before the current one
// So a query's dates depend on the clock only through the local day (and, with an hour term, the local
// hour): `clockDependence` names what they read, for caching answers.
import { localDayNumber, utcOffsetMs } from '../project/time-zone.js';
import type { DateSpan, DateUnit, DateValue, SearchNode, SearchQuery } from './search-ast.js';

const HOUR = 3_600_000;

const UNITS: ReadonlyMap<string, DateUnit> = new Map<string, DateUnit>([
  ['h', 'hour'], ['hour', 'hour'], ['hours', 'hour'],
  ['d', 'day'], ['day', 'day'], ['days', 'day'],
  ['w', 'week'], ['week', 'week'], ['weeks', 'week'],
  ['month', 'month'], ['months', 'month'],
  ['y', 'year'], ['year', 'year'], ['years', 'year'],
]);

/** Dates reach back at most to this year (and relative ones at most about this far back), so every
 * date the grammar accepts is one the calendar arithmetic below handles. */
export const EARLIEST_YEAR = 1900;
const MAX_DAYS_BACK = 200 * 366;
const APPROXIMATE_DAYS: Readonly<Record<DateUnit, number>> = { hour: 1 / 24, day: 1, week: 7, month: 31, year: 366 };

/** The value a date text denotes, or null when it is not a date of the grammar. */
export function parseDateValue(text: string): DateValue | null {
  const lower = text.toLowerCase();
  if (lower === 'today') return { kind: 'today' };
  if (lower === 'yesterday') return { kind: 'yesterday' };
  const relative = /^-([0-9]{1,5})([a-z]+)$/.exec(lower);
  if (relative) {
    const unit = UNITS.get(relative[2]!);
    const amount = Number(relative[1]);
    return unit && amount * APPROXIMATE_DAYS[unit] <= MAX_DAYS_BACK ? { kind: 'ago', amount, unit } : null;
  }
  const day = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text);
  if (!day) return null;
  const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
  const check = new Date(Date.UTC(year, month - 1, date));
  const real = check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === date;
  return real && year >= EARLIEST_YEAR ? { kind: 'day', date: text } : null;
}

/** A date text or range `a..b` (either side may be empty, not both); null when malformed. */
export function parseDateSpan(text: string): DateSpan | null {
  const dots = text.indexOf('..');
  if (dots < 0) {
    const at = parseDateValue(text);
    return at ? { kind: 'single', at } : null;
  }
  const [fromText, toText] = [text.slice(0, dots), text.slice(dots + 2)];
  if (fromText === '' && toText === '') return null;
  const from = fromText === '' ? null : parseDateValue(fromText);
  const to = toText === '' ? null : parseDateValue(toText);
  if ((fromText !== '' && !from) || (toText !== '' && !to)) return null;
  return { kind: 'range', from, to };
}

export function printDateValue(value: DateValue): string {
  switch (value.kind) {
    case 'day':
      return value.date;
    case 'today':
    case 'yesterday':
      return value.kind;
    case 'ago':
      return `-${value.amount}${value.unit}s`;
  }
}

export function printDateSpan(span: DateSpan): string {
  if (span.kind === 'single') return printDateValue(span.at);
  return `${span.from ? printDateValue(span.from) : ''}..${span.to ? printDateValue(span.to) : ''}`;
}

/** Where the searcher is: the clock and their time zone (an IANA name). */
export interface SearchClock {
  now: number;
  timeZone: string;
}

export interface Interval {
  start: number;
  end: number;
}

/** The half-open interval of one date value. */
export function intervalOf(value: DateValue, clock: SearchClock): Interval {
  if (value.kind === 'ago' && value.unit === 'hour') {
    const start = startOfLocalHour(clock.now, clock.timeZone) - value.amount * HOUR;
    return { start, end: start + HOUR };
  }
  const today = localDate(clock.now, clock.timeZone);
  const day = value.kind === 'day' ? parseIsoDay(value.date) : shiftDay(today, value);
  return { start: startOfLocalDay(day, clock.timeZone), end: startOfLocalDay(nextDay(day), clock.timeZone) };
}

/**
 * What the date terms of `query` read from the clock, as a string: two clocks giving the same string
 * give every date term of the query the same interval. The searcher's local day, and the start of the
 * local hour when the query holds an hour term (`-5h`).
 */
export function clockDependence(query: SearchQuery, clock: SearchClock): string {
  const date = `${localDayNumber(clock.timeZone, clock.now)} ${clock.timeZone}`;
  return query !== null && holdsHourTerm(query) ? `${date} ${startOfLocalHour(clock.now, clock.timeZone)}` : date;
}

/** Whether a date term of the query counts hours back (depth bounded by the parser's limits). */
function holdsHourTerm(node: SearchNode): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return holdsHourTerm(node.left) || holdsHourTerm(node.right);
    case 'not':
      return holdsHourTerm(node.operand);
    case 'date': {
      const { span } = node;
      const values = span.kind === 'single' ? [span.at] : [span.from, span.to];
      return values.some((value) => value?.kind === 'ago' && value.unit === 'hour');
    }
    default:
      return false;
  }
}

/** The instant the local clock hour holding `at` began (zones ahead by 30 or 45 minutes included). */
function startOfLocalHour(at: number, timeZone: string): number {
  const local = at + utcOffsetMs(timeZone, at);
  return at - (((local % HOUR) + HOUR) % HOUR);
}

/** The interval a span covers: [start of its first day, end of its last day); open sides unbounded. */
export function spanInterval(span: DateSpan, clock: SearchClock): { start: number | null; end: number | null } {
  if (span.kind === 'single') return intervalOf(span.at, clock);
  return {
    start: span.from ? intervalOf(span.from, clock).start : null,
    end: span.to ? intervalOf(span.to, clock).end : null,
  };
}

interface CalendarDay {
  year: number;
  month: number; // 1-12
  day: number;
}

function parseIsoDay(text: string): CalendarDay {
  return { year: Number(text.slice(0, 4)), month: Number(text.slice(5, 7)), day: Number(text.slice(8, 10)) };
}

function fromUtcDate(date: Date): CalendarDay {
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

function nextDay(day: CalendarDay): CalendarDay {
  return fromUtcDate(new Date(Date.UTC(day.year, day.month - 1, day.day + 1)));
}

/** today, yesterday or N days / weeks / months / years before today (month ends clamp, as calendars do). */
function shiftDay(today: CalendarDay, value: DateValue): CalendarDay {
  if (value.kind === 'today') return today;
  if (value.kind === 'yesterday') return fromUtcDate(new Date(Date.UTC(today.year, today.month - 1, today.day - 1)));
  if (value.kind !== 'ago') return today;
  const { amount, unit } = value;
  if (unit === 'day' || unit === 'week') {
    const days = unit === 'day' ? amount : amount * 7;
    return fromUtcDate(new Date(Date.UTC(today.year, today.month - 1, today.day - days)));
  }
  const months = unit === 'month' ? amount : amount * 12;
  const first = new Date(Date.UTC(today.year, today.month - 1 - months, 1));
  const lastDay = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return { year: first.getUTCFullYear(), month: first.getUTCMonth() + 1, day: Math.min(today.day, lastDay) };
}

function localDate(at: number, timeZone: string): CalendarDay {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date(at));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day') };
}

/** ms the zone is ahead of UTC at `at`. */
function offsetAt(at: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  }).formatToParts(new Date(at));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The instant the local day begins (local midnight, or the first instant after a skipped one). */
function startOfLocalDay(day: CalendarDay, timeZone: string): number {
  const midnightUtc = Date.UTC(day.year, day.month - 1, day.day);
  const guess = midnightUtc - offsetAt(midnightUtc, timeZone);
  return midnightUtc - offsetAt(guess, timeZone);
}
