// Small presentation helpers: dates the way the board shows them, and points.

const DAY = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const MOMENT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** An iteration's span, e.g. "Jan 8 – Jan 15"; the API's start and finish are the project's local midnights. */
export function iterationDates(start: string, finish: string, zoneOffset: string | undefined): string {
  const shift = offsetMs(zoneOffset);
  const first = new Date(Date.parse(start) + shift);
  const last = new Date(Date.parse(finish) + shift - 1);
  return `${DAY.format(first)} – ${DAY.format(last)}`;
}

export function moment(datetime: string): string {
  const time = Date.parse(datetime);
  return Number.isNaN(time) ? datetime : MOMENT.format(new Date(time));
}

export function points(value: number | undefined): string {
  if (value === undefined || value === null) return '0';
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** "+05:30" -> ms */
function offsetMs(offset: string | undefined): number {
  const match = /^([+-])(\d{2}):(\d{2})$/.exec(offset ?? '');
  if (!match) return 0;
  const ms = (Number(match[2]) * 60 + Number(match[3])) * 60_000;
  return match[1] === '-' ? -ms : ms;
}
