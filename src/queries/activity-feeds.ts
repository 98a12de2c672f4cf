// What the activity GETs compute (spec "Activity" and "Events", facts §2.2, §3, §9): the project stream
// rendered at read time, never a copy. The project feed pages the project stream backwards
// (activity-feed.ts); the story, epic and person feeds page the index projections. Every feed applies
// the account's history window (six months unless enterprise, operator-set). Reads go through the event
// store and read store ports only.
import type { ActivityDoc, PerformerInfo, RenderContext } from '../domain/activity/activity-doc.js';
import { activityWindowStart, type ActivityWindowConfig } from '../domain/activity/activity-window.js';
import { renderActivity } from '../domain/activity/render-activity.js';
import { DomainError } from '../domain/errors.js';
import { projectIdOfStream, streams, type RecordedEvent } from '../domain/events.js';
import type { EventStore } from '../ports/event-store.js';
import type { ReadModelChanges } from '../ports/read-model-changes.js';
import type { Doc, Filter } from '../ports/read-store.js';
import type { PersonReadDoc, ReadModelReader } from '../projections/documents.js';
import { ACTIVITY_BY_PERFORMER } from '../projections/activity/performer-activity-projection.js';
import { ACTIVITY_BY_RESOURCE } from '../projections/activity/subject-activity-projection.js';
import {
  indexFilter,
  indexedFeedPage,
  projectEventsAfter,
  projectFeedPage,
  windowFirstVersion,
  type FeedFilter,
  type FeedPage,
  type WindowFirstVersion,
} from './activity-feed.js';
import { paginationOf, type Page, type Paged } from './page.js';
import { ReadModelMemo } from './read-model-memo.js';

export interface ActivityFeedDeps {
  read: ReadModelReader;
  /** Accounts' plans (which set the window) are remembered until the accounts change. */
  readModelChanges: ReadModelChanges;
  eventStore: EventStore;
  settings: ActivityWindowConfig;
  /** Web addresses of stories and epics, for the activities' resources. */
  storyUrl(id: number): string;
  epicUrl(id: number): string;
}

/** One version of a project's stream with its activity (null: an event no feed shows, a private one). */
export interface VersionedActivity {
  version: number;
  /** The event's global position (what the read models must have applied before it is rendered). */
  position: number;
  activity: ActivityDoc | null;
}

/** The filters a client sets: `since_version`, `occurred_after`, `occurred_before` (ms, strict). */
export type FeedBounds = Pick<FeedFilter, 'sinceVersion' | 'occurredAfter' | 'occurredBefore'>;

export interface ActivityFeeds {
  /** GET /projects/:id/activity. */
  projectFeed(project: Doc, bounds: FeedBounds, page: Page, now: number): Promise<Paged<ActivityDoc>>;
  /** GET /projects/:id/stories/:id/activity and the epic feed; unfound when the resource is not in the project. */
  subjectFeed(project: Doc, subject: { kind: 'story' | 'epic'; id: number }, bounds: FeedBounds, page: Page, now: number): Promise<Paged<ActivityDoc>>;
  /** GET /my/activity: the person's own actions in the projects they are a member of now. */
  personFeed(personId: number, bounds: Omit<FeedBounds, 'sinceVersion'>, page: Page, now: number): Promise<Paged<ActivityDoc>>;
  /**
   * What decides a project's feed pages besides its version and the request: the first version of its
   * stream inside the history window at `now` ('unbounded' without a window). The cache key of those
   * pages: it moves only when the window's start passes an event, or the account's plan changes it.
   */
  windowVariant(project: Doc, now: number): Promise<string>;
  /** The first version of the project's stream inside the history window at `now` (1 without a window). */
  firstVersionInWindow(project: Doc, now: number): Promise<number>;
  /**
   * The project's versions after `afterVersion`, oldest first, at most `limit`, each rendered as the
   * project feed renders it: what the live stream and webhook deliveries send, version by version.
   */
  activitiesAfter(project: Doc, afterVersion: number, limit: number): Promise<VersionedActivity[]>;
  /** Events of the project already in hand (a batch the read models just applied), rendered the same way. */
  activitiesOf(project: Doc, events: readonly RecordedEvent[]): Promise<VersionedActivity[]>;
}

export function activityFeeds(deps: ActivityFeedDeps): ActivityFeeds {
  const projects = deps.read('projects');
  const accounts = deps.read('accounts');
  const people = deps.read('people');
  const memberships = deps.read('project_memberships');
  const subjects = { story: deps.read('stories'), epic: deps.read('epics') };
  const byResource = deps.read(ACTIVITY_BY_RESOURCE);
  const byPerformer = deps.read(ACTIVITY_BY_PERFORMER);

  const rememberedPlans = new ReadModelMemo<number, string | null>(deps.readModelChanges, { dependsOn: ['accounts'] });

  const planOf = (accountId: number) => rememberedPlans.get(accountId, async () => stringOrNull((await accounts.findOne({ id: accountId }))?.plan));

  /** The history window start of each project, from its account's plan. */
  async function windowStarts(projectDocs: readonly Doc[], now: number): Promise<Map<number, number | null>> {
    const accountIds = [...new Set(projectDocs.map((project) => project.account_id).filter(isInteger))];
    const plans = new Map(await Promise.all(accountIds.map(async (id) => [id, await planOf(id)] as const)));
    return new Map(
      projectDocs.map((project) => {
        const plan = isInteger(project.account_id) ? (plans.get(project.account_id) ?? null) : null;
        return [project.id, activityWindowStart(now, plan, deps.settings)];
      }),
    );
  }

  /** The history window start of one project (what every hot feed request asks, as its cache key). */
  async function windowStartOf(project: Doc, now: number): Promise<number | null> {
    const accountId = project.account_id;
    return activityWindowStart(now, isInteger(accountId) ? await planOf(accountId) : null, deps.settings);
  }

  /** Per project, the last first-in-window version found (one entry per project). */
  const windowFirsts = new Map<number, WindowFirstVersion & { head: number }>();

  /** The first version in the window, remembered while the window's start stays between the same two events. */
  async function firstInWindow(project: Doc, windowStart: number): Promise<number> {
    const head = await headOf(project);
    const known = windowFirsts.get(project.id);
    // Past the head, the first version is head + 1 only until the next event: then it must be found again.
    if (known && known.after < windowStart && windowStart <= known.until && (known.first <= known.head || known.head === head)) return known.first;
    const found = await windowFirstVersion(deps.eventStore, project.id, head, windowStart);
    windowFirsts.set(project.id, { ...found, head });
    return found.first;
  }

  async function headOf(project: Doc): Promise<number> {
    return isInteger(project.version) ? project.version : deps.eventStore.streamVersion(streams.project(project.id));
  }

  async function projectFilter(project: Doc, bounds: FeedBounds, now: number): Promise<FeedFilter> {
    return { ...bounds, windowStart: await windowStartOf(project, now) };
  }

  /** Each event's activity (null for events no feed shows), the performers read in one query. */
  async function renderEach(events: readonly RecordedEvent[], projectNames: ReadonlyMap<number, string>): Promise<Array<ActivityDoc | null>> {
    const performerIds = [...new Set(events.map((event) => event.meta.performed_by).filter(isInteger))];
    const performerDocs = performerIds.length ? await people.find({ id: { $in: performerIds } }) : [];
    const performers = new Map(performerDocs.map((person) => [person.id, performerInfo(person)]));
    return events.map((event) => {
      const projectId = projectIdOfStream(event.stream);
      return projectId === null ? null : renderActivity(event, renderContext(event, projectId, projectNames, performers));
    });
  }

  async function render(feed: FeedPage, projectNames: ReadonlyMap<number, string>, page: Page): Promise<Paged<ActivityDoc>> {
    const activities = (await renderEach(feed.events, projectNames)).filter((activity): activity is ActivityDoc => activity !== null);
    return { value: activities, pagination: paginationOf(feed.total, page, activities.length) };
  }

  async function versioned(project: Doc, events: readonly RecordedEvent[]): Promise<VersionedActivity[]> {
    const ofProject = events.filter((event) => projectIdOfStream(event.stream) === project.id);
    const activities = await renderEach(ofProject, projectNameMap(project));
    return ofProject.map((event, index) => ({ version: event.version, position: event.position, activity: activities[index]! }));
  }

  function renderContext(
    event: RecordedEvent,
    projectId: number,
    projectNames: ReadonlyMap<number, string>,
    performers: ReadonlyMap<number, PerformerInfo>,
  ): RenderContext {
    const performedBy = event.meta.performed_by;
    return {
      projectId,
      projectName: projectNames.get(projectId) ?? '',
      performer: performedBy === null ? null : (performers.get(performedBy) ?? null),
      storyUrl: deps.storyUrl,
      epicUrl: deps.epicUrl,
    };
  }

  return {
    async projectFeed(project, bounds, page, now) {
      const { windowStart, ...rest } = await projectFilter(project, bounds, now);
      // The window as a version bound: the first version inside it is already known (the cache key
      // asked for it), so the page is not searched for it a second time.
      const sinceVersion = windowStart === null ? rest.sinceVersion : Math.max(rest.sinceVersion, (await firstInWindow(project, windowStart)) - 1);
      const feed = await projectFeedPage(deps.eventStore, project.id, await headOf(project), { ...rest, sinceVersion, windowStart: null }, page);
      return render(feed, projectNameMap(project), page);
    },

    async subjectFeed(project, subject, bounds, page, now) {
      const filter = await projectFilter(project, bounds, now);
      const exists = await subjects[subject.kind].findOne({ id: subject.id, project_id: project.id });
      if (!exists) throw new DomainError('unfound_resource');
      const query = indexFilter({ subjects: `${subject.kind}-${subject.id}`, project_id: project.id }, filter);
      const feed = await indexedFeedPage(deps.eventStore, byResource, query, page);
      return render(feed, projectNameMap(project), page);
    },

    async personFeed(personId, bounds, page, now) {
      const memberProjectIds = (await memberships.find({ person_id: personId })).map((membership) => membership.project_id).filter(isInteger);
      const projectDocs = memberProjectIds.length ? await projects.find({ id: { $in: memberProjectIds } }) : [];
      const windows = await windowStarts(projectDocs, now);
      const byWindow = new Map<number | null, number[]>();
      for (const [projectId, start] of windows) byWindow.set(start, [...(byWindow.get(start) ?? []), projectId]);
      const inWindow: Filter[] = [...byWindow].map(([start, ids]) =>
        start === null ? { project_id: { $in: ids } } : { project_id: { $in: ids }, occurred_at: { $gte: start } },
      );
      if (inWindow.length === 0) return render({ events: [], total: 0 }, new Map(), page);
      const query = indexFilter({ person_id: personId, $or: inWindow }, { sinceVersion: 0, windowStart: null, ...bounds });
      const feed = await indexedFeedPage(deps.eventStore, byPerformer, query, page);
      const names = new Map(projectDocs.map((project) => [project.id, stringOrNull(project.name) ?? '']));
      return render(feed, names, page);
    },

    async windowVariant(project, now) {
      const start = await windowStartOf(project, now);
      return start === null ? 'unbounded' : String(await firstInWindow(project, start));
    },

    async firstVersionInWindow(project, now) {
      const start = (await windowStarts([project], now)).get(project.id) ?? null;
      return start === null ? 1 : firstInWindow(project, start);
    },

    async activitiesAfter(project, afterVersion, limit) {
      return versioned(project, await projectEventsAfter(deps.eventStore, project.id, afterVersion, limit));
    },

    activitiesOf: versioned,
  };
}

function projectNameMap(project: Doc): Map<number, string> {
  return new Map([[project.id, stringOrNull(project.name) ?? '']]);
}

function performerInfo(person: PersonReadDoc): PerformerInfo {
  return { id: person.id, name: stringOrNull(person.name) ?? '', initials: stringOrNull(person.initials) ?? '' };
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
