// The one reading of a datetime a client sends (query parameters such as `created_after` or
// `occurred_before`, and body attributes such as `accepted_at`), for every route:
// - integer milliseconds since the epoch (a JSON number or a string of digits);
// - ISO 8601: a date (`2024-01-31`, midnight UTC) or a date and time with an offset or `Z`
//   (`2024-01-31T09:30:00+01:00`). A date and time WITHOUT an offset is read as UTC, never in the
//   server's local zone (which JavaScript's Date.parse would use), so the answer does not depend on
//   where the server runs.
// Anything else, and dates that do not exist (`2024-02-30`), is 400 `invalid_parameter` naming the
// parameter. `null` stays null (a body clearing the attribute).
import type { SchemaObject } from 'ajv';
import { invalidField } from '../domain/errors.js';

/** A datetime parameter as the OpenAPI document states it (its value is read by datetimeParameter). */
export const DATETIME_PARAMETER: SchemaObject = {
  type: 'string',
  description: 'ISO 8601 (a date, or a date and time; UTC when no offset is given) or integer milliseconds since the epoch',
  examples: ['2024-01-31T09:30:00Z', '1706693400000'],
};

const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

export function datetimeParameter(field: string, value: unknown): number | null {
  if (value === null) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^-?[0-9]{1,16}$/.test(text)) return Number(text);
    const ms = isoMillis(text);
    if (ms !== null) return ms;
  }
  throw invalidField(field, `'${field}' must be a datetime: ISO 8601 or integer milliseconds`);
}

/** The instant an ISO 8601 text names, or null when it is not one. */
function isoMillis(text: string): number | null {
  const match = ISO_DATETIME.exec(text);
  if (!match) return null;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = match;
  const parts = [Number(year), Number(month), Number(day), Number(hour), Number(minute), Number(second)] as const;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3], parts[4], parts[5], millis);
  const check = new Date(utc);
  const exists =
    check.getUTCFullYear() === parts[0] &&
    check.getUTCMonth() === parts[1] - 1 &&
    check.getUTCDate() === parts[2] &&
    check.getUTCHours() === parts[3] &&
    check.getUTCMinutes() === parts[4] &&
    check.getUTCSeconds() === parts[5];
  const offset = offsetMillis(zone);
  return exists && offset !== null ? utc - offset : null;
}

/** `Z`, `+01`, `+0130`, `-01:30` as milliseconds east of UTC; null when out of range. */
function offsetMillis(zone: string): number | null {
  if (zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes) * 60_000;
}
