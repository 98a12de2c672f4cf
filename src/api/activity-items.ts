// The v5 activity item of a project version as JSON text, exactly as GET /projects/{id}/activity
// renders it: the same query (queries/activity-feeds.ts, domain/activity), the activity type and the one
// serializer, with `fields` and `date_format` as the reader chose. What the live activity stream and
// webhook deliveries send, one version at a time.
//
// Items are kept once rendered (lru-cache bounded by bytes, least recently used out first), keyed by
// project, version and format, and checked against what else they show: the project's name and the
// people's change stamp (performers' names), so a kept item is the one a GET would render now. A thousand streams or a
// hundred webhooks of one project render each version once.
import { LRUCache } from 'lru-cache';
import type { ActivityDoc } from '../domain/activity/activity-doc.js';
import type { RecordedEvent } from '../domain/events.js';
import type { ReadModelChanges } from '../ports/read-model-changes.js';
import type { Doc, ReadOnlyCollection } from '../ports/read-store.js';
import type { ActivityFeeds, VersionedActivity } from '../queries/activity-feeds.js';
import { parseFields } from './fields-selection.js';
import { RenderScope } from './render-scope.js';
import type { Serializer } from './serializer.js';

/** A project version as sent: `json` is null for an event no feed shows (the reader moves past it). */
export interface ActivityItem {
  version: number;
  json: string | null;
}

/** How items are rendered: a `fields` selection (absent: the defaults) and datetimes as ms or ISO 8601. */
export interface ItemFormat {
  fields?: string;
  millis: boolean;
}

export const DEFAULT_ITEM_FORMAT: ItemFormat = { millis: false };

export interface ActivityItemsDeps {
  feeds: Pick<ActivityFeeds, 'activitiesAfter' | 'activitiesOf'>;
  projects: ReadOnlyCollection;
  serializer: Serializer;
  readModelChanges: ReadModelChanges;
  /** Resolves once the read models have applied a global position (items read from the log wait for it). */
  waitForPosition(position: number): Promise<void>;
  clock: () => number;
  /** Bytes of rendered items kept (default 8 MiB). */
  cacheBytes?: number;
}

const DEFAULT_CACHE_BYTES = 8 * 1024 * 1024;
/** Per kept item beyond its text: key, entry, map slot. */
const ENTRY_OVERHEAD_BYTES = 160;

interface Kept {
  /** What the item shows besides its event: project name and people stamp when rendered. */
  shows: string;
  json: string | null;
  bytes: number;
}

export class ActivityItems {
  /** Least recently used out first, bounded by Kept.bytes (at least 1 byte: lru-cache needs a bound). */
  private readonly kept: LRUCache<string, Kept>;

  constructor(private readonly deps: ActivityItemsDeps) {
    this.kept = new LRUCache({ maxSize: Math.max(1, deps.cacheBytes ?? DEFAULT_CACHE_BYTES), sizeCalculation: (kept) => kept.bytes });
  }

  /**
   * Items of the project's versions after `afterVersion`, consecutive and oldest first, at most `limit`
   * (none: nothing after it yet). Kept items are served first; otherwise the log is read.
   */
  async after(projectId: number, afterVersion: number, limit: number, format: ItemFormat): Promise<ActivityItem[]> {
    const project = await this.project(projectId);
    const shows = this.showing(project);
    const items: ActivityItem[] = [];
    for (let version = afterVersion + 1; items.length < limit; version++) {
      const kept = this.lookUp(projectId, version, format, shows);
      if (!kept) break;
      items.push({ version, json: kept.json });
    }
    if (items.length > 0) return items;
    const read = await this.deps.feeds.activitiesAfter(project, afterVersion, limit);
    if (read.length === 0) return [];
    await this.deps.waitForPosition(Math.max(...read.map((entry) => entry.position)));
    return this.keep(projectId, read, format, shows);
  }

  /** Items of events in hand (a batch the read models have applied), in their order. */
  async of(projectId: number, events: readonly RecordedEvent[], format: ItemFormat): Promise<ActivityItem[]> {
    const project = await this.project(projectId);
    const shows = this.showing(project);
    const found = new Map<number, string | null>();
    const missing: RecordedEvent[] = [];
    for (const event of events) {
      const kept = this.lookUp(projectId, event.version, format, shows);
      if (kept) found.set(event.version, kept.json);
      else missing.push(event);
    }
    if (missing.length > 0) {
      for (const item of await this.keep(projectId, await this.deps.feeds.activitiesOf(project, missing), format, shows)) found.set(item.version, item.json);
    }
    return events.map((event) => ({ version: event.version, json: found.get(event.version) ?? null }));
  }

  /** The project document; a deleted project's last events render with an empty name. */
  private async project(projectId: number): Promise<Doc> {
    return (await this.deps.projects.findOne({ id: projectId })) ?? { id: projectId, name: '' };
  }

  private showing(project: Doc): string {
    return `${String(project.name ?? '')}\u0000${this.deps.readModelChanges.stampOf(['people'])}`;
  }

  private lookUp(projectId: number, version: number, format: ItemFormat, shows: string): Kept | null {
    const key = itemKey(projectId, version, format);
    const kept = this.kept.get(key);
    if (!kept) return null;
    if (kept.shows !== shows) {
      this.kept.delete(key);
      return null;
    }
    return kept;
  }

  private async keep(projectId: number, versions: readonly VersionedActivity[], format: ItemFormat, shows: string): Promise<ActivityItem[]> {
    const items: ActivityItem[] = [];
    for (const { version, activity } of versions) {
      const json = activity === null ? null : await this.render(activity, format);
      items.push({ version, json });
      this.kept.set(itemKey(projectId, version, format), { shows, json, bytes: (json?.length ?? 0) * 2 + ENTRY_OVERHEAD_BYTES });
    }
    return items;
  }

  private async render(activity: ActivityDoc, format: ItemFormat): Promise<string> {
    const value = await this.deps.serializer.render('activity', activity as unknown as Doc, parseFields(format.fields), {
      ctx: { actor: null, project: null, now: this.deps.clock(), query: {}, millis: format.millis, scope: new RenderScope() },
    });
    return JSON.stringify(value);
  }
}

function itemKey(projectId: number, version: number, format: ItemFormat): string {
  return `${projectId}:${version}:${format.millis ? 'ms' : 'iso'}:${format.fields ?? ''}`;
}
