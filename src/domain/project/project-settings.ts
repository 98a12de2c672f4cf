// A project's settings: their defaults, and the validation of requested values (create and update share
// it: an update is validated against the settings it would produce). Messages follow what the real
// service answered where it is known (tracker-v5-facts §4.3).
import type { Values } from '../events.js';
import type { ValidationError } from '../errors.js';
import { DEFAULT_POINT_SCALE, parsePointScale } from './point-scale.js';
import { DEFAULT_TIME_ZONE_NAME, isKnownTimeZone, requestedTimeZoneName, timeZoneAt } from './time-zone.js';

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const PROJECT_NAME_MAX_LENGTH = 50;
export const DESCRIPTION_MAX_LENGTH = 140;
export const PROFILE_CONTENT_MAX_LENGTH = 65535;
/** Start dates before this day are "too far in the past" (the service did not exist yet). */
export const EARLIEST_START_DATE = '2005-01-01';

export type JoinRole = 'member' | 'viewer';

/** Settings a request may set, with their defaults on create. */
export const PROJECT_SETTING_DEFAULTS = {
  iteration_length: 1,
  week_start_day: 'Monday' as Weekday,
  point_scale: DEFAULT_POINT_SCALE,
  bugs_and_chores_are_estimatable: false,
  automatic_planning: true,
  enable_tasks: true,
  show_story_priority: true,
  show_priority_icon: false,
  show_priority_icon_in_all_panels: false,
  velocity_averaged_over: 3,
  number_of_done_iterations_to_show: 12,
  initial_velocity: 10,
  enable_incoming_emails: true,
  public: false,
  atom_enabled: false,
  join_as: 'member' as JoinRole,
} as const;

const BOOLEAN_SETTINGS = [
  'bugs_and_chores_are_estimatable',
  'automatic_planning',
  'enable_tasks',
  'show_story_priority',
  'show_priority_icon',
  'show_priority_icon_in_all_panels',
  'enable_incoming_emails',
  'public',
  'atom_enabled',
] as const;

/** Integer settings with their inclusive bounds and the problem reported outside them. */
const INTEGER_SETTINGS: Record<string, { min: number; max: number; problem: string }> = {
  iteration_length: { min: 1, max: 4, problem: 'iteration_length can only be between 1 and 4.' },
  velocity_averaged_over: { min: 1, max: 4, problem: 'velocity_averaged_over can only be between 1 and 4.' },
  number_of_done_iterations_to_show: {
    min: 1,
    max: 1000,
    problem: 'number_of_done_iterations_to_show can only be between 1 and 1000.',
  },
  initial_velocity: { min: 1, max: 10000, problem: 'initial_velocity can only be between 1 and 10000.' },
};

export interface SettingsOutcome {
  /** The complete settings after applying the request (create) or only the changed ones (update). */
  values: Values;
  problems: ValidationError[];
}

/**
 * Validates `request` over `current` (the project's stored settings, or the defaults on create) and
 * returns the resulting values of every key the request set, derived attributes included.
 */
export function applySettings(current: Values, request: Record<string, unknown>, now: number): SettingsOutcome {
  const problems: ValidationError[] = [];
  const next: Values = {};
  const problem = (field: string, text: string) => problems.push({ field, problem: text });

  if ('name' in request) {
    const name = validName(request['name']);
    if (typeof name === 'string') next['name'] = name;
    else problem('name', name.problem);
  }
  for (const key of BOOLEAN_SETTINGS) {
    if (!(key in request)) continue;
    if (typeof request[key] === 'boolean') next[key] = request[key];
    else problem(key, `'${key}' must be a boolean value`);
  }
  for (const [key, bounds] of Object.entries(INTEGER_SETTINGS)) {
    if (!(key in request)) continue;
    const value = request[key];
    if (typeof value !== 'number' || !Number.isInteger(value)) problem(key, `'${key}' must be an integer value`);
    else if (value < bounds.min || value > bounds.max) problem(key, bounds.problem);
    else next[key] = value;
  }
  if ('week_start_day' in request) {
    const day = weekdayNamed(request['week_start_day']);
    if (day) next['week_start_day'] = day;
    else problem('week_start_day', `week_start_day must be one of ${WEEKDAYS.join(', ')}.`);
  }
  if ('point_scale' in request) {
    const scale = parsePointScale(request['point_scale']);
    if (scale.ok) {
      next['point_scale'] = scale.scale;
      next['point_scale_is_custom'] = scale.isCustom;
    } else problem('point_scale', scale.problem);
  }
  if ('time_zone' in request) {
    const name = requestedTimeZoneName(request['time_zone']);
    if (name !== undefined && isKnownTimeZone(name)) next['time_zone'] = timeZoneAt(name, now);
    else problem('time_zone', 'time_zone must name a known time zone, such as America/Los_Angeles.');
  }
  if ('start_date' in request) {
    const date = request['start_date'];
    if (date === null) next['start_date'] = null;
    else if (typeof date !== 'string' || !isCalendarDate(date)) problem('start_date', "'start_date' must be a date (YYYY-MM-DD)");
    else if (date < EARLIEST_START_DATE) problem('start_date', 'start_date is too far in the past.');
    else next['start_date'] = date;
  }
  for (const [key, max] of [
    ['description', DESCRIPTION_MAX_LENGTH],
    ['profile_content', PROFILE_CONTENT_MAX_LENGTH],
  ] as const) {
    if (!(key in request)) continue;
    const text = request[key];
    if (text === null || text === '') next[key] = null;
    else if (typeof text !== 'string') problem(key, `'${key}' must be a string`);
    else if ([...text].length > max) problem(key, `'${key}' parameter must be ${max} characters or less.`);
    else next[key] = text;
  }
  if ('join_as' in request) {
    const role = request['join_as'];
    if (role === 'member' || role === 'viewer') next['join_as'] = role;
    else problem('join_as', "join_as must be 'member' or 'viewer'.");
  }
  if ('project_type' in request) {
    const type = request['project_type'];
    if (type !== 'public' && type !== 'private') problem('project_type', "project_type must be 'public' or 'private'.");
    else if ('public' in next && next['public'] !== (type === 'public')) {
      problem('project_type', 'project_type contradicts public.');
    } else next['public'] = type === 'public';
  }
  if ('public' in next) next['project_type'] = next['public'] ? 'public' : 'private';

  const merged = { ...current, ...next };
  const startDate = merged['start_date'];
  if (typeof startDate === 'string' && ('start_date' in next || 'week_start_day' in next)) {
    const weekday = weekdayOf(startDate);
    if (weekday !== merged['week_start_day']) {
      problem('start_date', `start_date falls on a ${weekday}, but the project's week_start_day is ${String(merged['week_start_day'])}.`);
    }
  }
  return { values: next, problems };
}

/** The values of a new project before its request is applied. */
export function defaultSettings(now: number): Values {
  return {
    ...PROJECT_SETTING_DEFAULTS,
    point_scale_is_custom: false,
    time_zone: timeZoneAt(DEFAULT_TIME_ZONE_NAME, now),
    project_type: 'private',
    enable_following: true,
    has_ext_domain: false,
  };
}

/** A valid project name (trimmed), or the problem with it. */
export function validName(value: unknown): string | ValidationError {
  if (typeof value !== 'string' || value.trim() === '') return { field: 'name', problem: "Name can't be blank" };
  const name = value.trim();
  if ([...name].length > PROJECT_NAME_MAX_LENGTH) {
    return { field: 'name', problem: `'name' parameter must be ${PROJECT_NAME_MAX_LENGTH} characters or less.` };
  }
  return name;
}

function weekdayNamed(value: unknown): Weekday | undefined {
  if (typeof value !== 'string') return undefined;
  return WEEKDAYS.find((day) => day.toLowerCase() === value.toLowerCase());
}

function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

function weekdayOf(date: string): Weekday {
  return WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()]!;
}
