// How far back the activity feed reaches (spec "Limits"): the most recent six months for projects in
// accounts on non-enterprise plans, at least the last 25 months for enterprise plans; the operator sets
// both (STORYLINE_ACTIVITY_WINDOW_MONTHS, STORYLINE_ENTERPRISE_ACTIVITY_WINDOW_MONTHS; 0 or `unlimited`
// = no limit). The window only hides events from the feed: the events themselves are never deleted.

export interface ActivityWindowConfig {
  /** Months shown for non-enterprise accounts; null = no limit. */
  activityWindowMonths: number | null;
  /** Months shown for enterprise accounts; null = no limit. */
  enterpriseActivityWindowMonths: number | null;
}

/** Account plans whose name contains "enterprise" (any case) are enterprise plans. */
export function isEnterprisePlan(plan: string | null | undefined): boolean {
  return typeof plan === 'string' && /enterprise/i.test(plan);
}

/**
 * The earliest `occurred_at` (ms) the feed shows for a project of an account on `plan`, or null when
 * there is no limit. An enterprise plan never sees less than a non-enterprise one.
 */
export function activityWindowStart(now: number, plan: string | null | undefined, config: ActivityWindowConfig): number | null {
  const months = isEnterprisePlan(plan)
    ? longerWindow(config.enterpriseActivityWindowMonths, config.activityWindowMonths)
    : config.activityWindowMonths;
  return months === null ? null : monthsBefore(now, months);
}

function longerWindow(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.max(a, b);
}

/**
 * The same UTC time of day `months` calendar months earlier; a day that does not exist in the target
 * month becomes that month's last day (31 August minus six months is 28 or 29 February).
 */
export function monthsBefore(now: number, months: number): number {
  const date = new Date(now);
  const monthIndex = date.getUTCFullYear() * 12 + date.getUTCMonth() - months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(
    year,
    month,
    Math.min(date.getUTCDate(), lastDay),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
    date.getUTCMilliseconds(),
  );
}
