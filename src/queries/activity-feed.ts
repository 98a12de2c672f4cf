// Pages of the activity feeds, read at a cost that depends on the page size, not on the history:
//
// - Project feed: the project stream itself, read BACKWARDS. The page's versions are computed: events
//   of a stream are numbered 1..head without gaps, so the feed is the version range [low, high] that
//   the filters leave, and page k is [high - offset - limit + 1, high - offset] within it. The time
//   filters (history window, occurred_after, occurred_before) become version bounds by a binary search
//   on occurred_at (events are appended in time order), so a page costs O(limit + log(history)) reads.
// - Story, epic and `/my` feeds: an index read model (activity_by_resource, activity_by_performer) gives
//   the page's (project, version) pairs newest first; each event is then read by its version.
import type { RecordedEvent } from '../domain/events.js';
import { streams } from '../domain/events.js';
import type { EventStore } from '../ports/event-store.js';
import type { Filter, ReadCollection } from '../ports/read-store.js';
import type { Page } from './page.js';

/** Which events a feed shows. Time bounds are ms since the epoch. */
export interface FeedFilter {
  /** Only events with a greater version (`since_version`); 0 for all. */
  sinceVersion: number;
  /** The history window: only events that occurred at or after this time, null for no limit. */
  windowStart: number | null;
  /** `occurred_after`: only events that occurred strictly after this time. */
  occurredAfter: number | null;
  /** `occurred_before`: only events that occurred strictly before this time. */
  occurredBefore: number | null;
}


export interface FeedPage {
  /** Newest first. */
  events: RecordedEvent[];
  /** How many events the feed holds in all (the pagination total). */
  total: number;
}

/** A page of a project's feed, read backwards from the project's version `head`. */
export async function projectFeedPage(
  store: EventStore,
  projectId: number,
  head: number,
  filter: FeedFilter,
  page: Page,
): Promise<FeedPage> {
  const stream = streams.project(projectId);
  const occurredAt = occurredAtOf(store, projectId);
  let low = Math.max(1, filter.sinceVersion + 1);
  let high = head;
  if (low <= high && (filter.windowStart !== null || filter.occurredAfter !== null)) {
    low = await firstVersionWhere(low, high, async (version) => isAfterLowerBounds(await occurredAt(version), filter));
  }
  if (low <= high && filter.occurredBefore !== null) {
    const before = filter.occurredBefore;
    high = (await firstVersionWhere(low, high, async (version) => (await occurredAt(version)) >= before)) - 1;
  }
  const total = Math.max(0, high - low + 1);
  const top = high - page.offset;
  const bottom = Math.max(low, top - page.limit + 1);
  if (page.limit === 0 || top < low) return { events: [], total };
  const events = await store.readStream(stream, { direction: 'backwards', from: top, limit: top - bottom + 1 });
  return { events, total };
}

/** The events of a project's stream after `afterVersion`, oldest first, at most `limit` (the live stream and webhooks). */
export function projectEventsAfter(store: EventStore, projectId: number, afterVersion: number, limit: number): Promise<RecordedEvent[]> {
  return store.readStream(streams.project(projectId), { from: afterVersion + 1, limit });
}

/** When the event at a version of the project's stream occurred (+Infinity past the head). */
function occurredAtOf(store: EventStore, projectId: number): (version: number) => Promise<number> {
  const stream = streams.project(projectId);
  return async (version) => {
    const [event] = await store.readStream(stream, { from: version, limit: 1 });
    return event?.meta.occurred_at ?? Number.POSITIVE_INFINITY;
  };
}

/** The first version of a project's stream inside a history window, and the window starts it holds for. */
export interface WindowFirstVersion {
  /** The first version whose event occurred at or after the window's start (head + 1 when none did). */
  first: number;
  /** It is the first for every window start in (after, until]: when the events before and at it occurred. */
  after: number;
  until: number;
}

/** The first version of the project's stream, up to `head`, whose event occurred at or after `windowStart`. */
export async function windowFirstVersion(store: EventStore, projectId: number, head: number, windowStart: number): Promise<WindowFirstVersion> {
  const occurredAt = occurredAtOf(store, projectId);
  const first = head < 1 ? 1 : await firstVersionWhere(1, head, async (version) => (await occurredAt(version)) >= windowStart);
  return {
    first,
    after: first > 1 ? await occurredAt(first - 1) : Number.NEGATIVE_INFINITY,
    until: first <= head ? await occurredAt(first) : Number.POSITIVE_INFINITY,
  };
}

function isAfterLowerBounds(occurredAt: number, filter: FeedFilter): boolean {
  if (filter.windowStart !== null && occurredAt < filter.windowStart) return false;
  if (filter.occurredAfter !== null && occurredAt <= filter.occurredAfter) return false;
  return true;
}

/**
 * The smallest version in [low, high] whose event satisfies `holds`, or high + 1 when none does;
 * `holds` must be monotonic over versions (false ... false true ... true). Checks `low` first, so a
 * bound that cuts nothing costs one read.
 */
async function firstVersionWhere(low: number, high: number, holds: (version: number) => Promise<boolean>): Promise<number> {
  if (await holds(low)) return low;
  let lo = low + 1; // first candidate
  let hi = high + 1; // known to hold (or past the end)
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (await holds(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The read-model filter of an index (activity_by_resource, activity_by_performer) for a feed filter. */
export function indexFilter(base: Filter, filter: FeedFilter): Filter {
  const result: Filter = { ...base };
  if (filter.sinceVersion > 0) result.version = { $gt: filter.sinceVersion };
  const occurred: Record<string, number> = {};
  if (filter.windowStart !== null) occurred['$gte'] = filter.windowStart;
  if (filter.occurredAfter !== null) occurred['$gt'] = filter.occurredAfter;
  if (filter.occurredBefore !== null) occurred['$lt'] = filter.occurredBefore;
  if (Object.keys(occurred).length > 0) result.occurred_at = occurred;
  return result;
}

/** A page of an index whose entries are `{ id: <global position>, project_id, version }`, newest first. */
export async function indexedFeedPage(
  store: EventStore,
  index: Pick<ReadCollection<{ id: number; project_id: number; version: number }>, 'find' | 'count'>,
  filter: Filter,
  page: Page,
): Promise<FeedPage> {
  const [total, entries] = await Promise.all([
    index.count(filter),
    page.limit === 0 ? Promise.resolve([]) : index.find(filter, { sort: { id: -1 }, skip: page.offset, limit: page.limit }),
  ]);
  const events = await Promise.all(
    entries.map(async (entry) => {
      const [event] = await store.readStream(streams.project(entry.project_id), {
        from: entry.version,
        limit: 1,
      });
      return event;
    }),
  );
  return { events: events.filter((event): event is RecordedEvent => event !== undefined), total };
}
