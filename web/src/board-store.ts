// One project's board data and every write the board makes to it. The panels show what the API answers
// (`/iterations?scope=current_backlog` for Current and the Backlog, the unscheduled stories for the
// Icebox): the browser never plans iterations itself. A move is shown at once (optimistically) and then
// the panels are read again, so what the server decided replaces the guess. Every write names the
// version the board shows; when the answer says the project had changed meanwhile, the board says so.
import { ApiClient, ApiError, type Answer } from './api';
import { moveBody, type Move } from './placement';
import type { Activity, Epic, Iteration, Label, Membership, Project, Story } from './types';

/** Story attributes every card needs, nested in the iteration and list answers. */
export const CARD_FIELDS = ':default,comment_ids,blockers(resolved)';
const ITERATION_FIELDS = `:default,velocity,points,effective_points,accepted_points,stories(${CARD_FIELDS})`;
const PAGE = 500;
/** How long after a live event the board is read again (the events of a burst share one read). */
const CATCH_UP_DELAY_MS = 60;
/** Bounds the pages read for one list (500 stories or iterations each). */
const MAX_PAGES = 200;

export interface BoardData {
  project: Project;
  /** Current first, then the Backlog's iterations, as the server planned them. */
  iterations: Iteration[];
  icebox: Story[];
  labels: Label[];
  members: Membership[];
  epics: Epic[];
}

export interface Notice {
  kind: 'stale' | 'error' | 'info';
  text: string;
}

type Listener = () => void;

export class BoardStore {
  data: BoardData | null = null;
  /** The project version the shown data reflects (the stream resumes after it). */
  version = 0;
  loadError: string | null = null;
  notice: Notice | null = null;
  live: 'connecting' | 'live' | 'reconnecting' | 'unavailable' = 'connecting';
  /** Bumped after each refresh, so open details reload. */
  generation = 0;
  private listeners = new Set<Listener>();
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private firstLoad: Promise<void> | null = null;
  /** The newest version the live stream announced. */
  private announced = 0;
  private writesInFlight = 0;
  /**
   * A card is being dragged: data read meanwhile waits until the drop, since a list rendered again under
   * SortableJS puts the dragged card back and the drop would do nothing.
   */
  dragging = false;
  /** Drags ended so far (what paused during a drag watches it to go on). */
  dragsEnded = 0;
  private readWhileDragging: { data: BoardData; version: number } | null = null;

  constructor(
    readonly api: ApiClient,
    readonly projectId: number,
  ) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.listeners.clear();
  }

  private changed(): void {
    // Nothing is rendered again under a drag (endDrag renders).
    if (this.closed || this.dragging) return;
    for (const listener of [...this.listeners]) listener();
  }

  /** The first load, started once (perhaps before the board is shown: prefetchBoard). */
  start(): Promise<void> {
    this.firstLoad ??= this.load();
    return this.firstLoad;
  }

  async load(): Promise<void> {
    try {
      const base = `/projects/${this.projectId}`;
      const [project, iterations, icebox, labels, members, epics] = await Promise.all([
        this.api.get<Project>(base, { query: { fields: ':default,current_velocity' } }),
        this.pages<Iteration>(`${base}/iterations`, { scope: 'current_backlog', fields: ITERATION_FIELDS }),
        this.pages<Story>(`${base}/stories`, { with_state: 'unscheduled', fields: CARD_FIELDS }),
        this.api.get<Label[]>(`${base}/labels`),
        this.api.get<Membership[]>(`${base}/memberships`),
        this.api.get<Epic[]>(`${base}/epics`),
      ]);
      const data = { project: project.data, iterations: iterations.items, icebox: icebox.items, labels: labels.data, members: members.data, epics: epics.data };
      const version = Math.min(...[project.version, iterations.version, icebox.version, labels.version].filter((v): v is number => v !== null));
      this.loadError = null;
      if (this.dragging) this.readWhileDragging = { data, version };
      else this.show(data, version);
      performance.mark('storyline:board-loaded');
    } catch (error) {
      this.loadError = error instanceof ApiError ? error.describe() : String(error instanceof Error ? error.message : error);
    }
    this.changed();
  }

  private show(data: BoardData, version: number): void {
    this.data = data;
    this.version = version;
    this.generation += 1;
  }

  beginDrag(): void {
    this.dragging = true;
  }

  /** The drop (or a cancelled drag): what was read meanwhile is shown now. */
  endDrag(): void {
    if (!this.dragging) return;
    this.dragging = false;
    this.dragsEnded += 1;
    const read = this.readWhileDragging;
    this.readWhileDragging = null;
    if (read) this.show(read.data, read.version);
    this.changed();
  }

  /** Reads the panels again (coalesced: one refresh at a time, one more queued at most). */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      try {
        do {
          this.refreshAgain = false;
          await this.load();
        } while (this.refreshAgain && !this.closed);
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /**
   * A version from the live stream. The board is read again soon (several events in a row cost one
   * read) when the version is newer than the shown data and no write of this board is under way: a
   * write's own version is in its answer, and the write reads the board again itself.
   */
  applyActivity(_activity: Activity, version: number): void {
    this.announced = Math.max(this.announced, version);
    this.catchUpSoon();
  }

  private catchUpSoon(): void {
    if (this.refreshTimer || this.announced <= this.version) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      if (this.writesInFlight > 0 || this.announced <= this.version) return;
      void this.refresh();
    }, CATCH_UP_DELAY_MS);
  }

  setLive(status: 'live' | 'reconnecting' | 'unavailable'): void {
    this.live = status;
    this.changed();
  }

  dismissNotice(): void {
    this.notice = null;
    this.changed();
  }

  showNotice(notice: Notice): void {
    this.notice = notice;
    this.changed();
  }

  /**
   * A write that names the shown version. Its answer's version becomes the shown one when nobody else
   * wrote in between; otherwise the person is told and the board is read again.
   */
  async write<T>(send: (knownVersion: number) => Promise<Answer<T>>): Promise<Answer<T>> {
    const known = this.version;
    this.writesInFlight += 1;
    try {
      const answer = await send(known);
      if (!answer.stale && answer.version !== null) this.version = Math.max(this.version, answer.version);
      if (answer.stale) {
        this.notice = {
          kind: 'stale',
          text: `Someone else changed this project while you were looking at it (it was at version ${known}, it is now at ${answer.version ?? 'a newer one'}). Your change was saved; the board now shows the latest state — check that it is what you meant.`,
        };
      }
      await this.refresh();
      return answer;
    } catch (error) {
      this.notice = { kind: 'error', text: error instanceof ApiError ? error.describe() : error instanceof Error ? error.message : String(error) };
      this.changed();
      // What the server refused may have been shown optimistically: show what it holds.
      void this.refresh();
      throw error;
    } finally {
      this.writesInFlight -= 1;
      // Someone else's versions announced while this write ran.
      this.catchUpSoon();
    }
  }

  updateStory(storyId: number, body: Record<string, unknown>): Promise<Answer<Story>> {
    return this.write((knownVersion) => this.api.put<Story>(`/projects/${this.projectId}/stories/${storyId}`, body, { knownVersion }));
  }

  /** Shows the move at once, then asks the server and shows what it decided. */
  async moveStory(storyId: number, move: Move, shownOrder: (data: BoardData) => BoardData): Promise<void> {
    if (!this.data) return;
    const body = moveBody(move, { automaticPlanning: this.data.project.automatic_planning });
    if (!body) return;
    this.data = shownOrder(this.data);
    this.changed();
    performance.mark('storyline:move-sent');
    try {
      await this.write(async (knownVersion) => {
        const answer = await this.api.put<Story>(`/projects/${this.projectId}/stories/${storyId}`, body, { knownVersion });
        performance.mark('storyline:move-confirmed');
        return answer;
      });
    } catch {
      // told through the notice; the refresh shows the server's order
    }
  }

  async createStory(body: Record<string, unknown>): Promise<Answer<Story>> {
    return this.write((knownVersion) => this.api.post<Story>(`/projects/${this.projectId}/stories`, body, { knownVersion }));
  }

  /** Every page of a paginated list (bounded), with the smallest project version its pages carried. */
  private async pages<T>(path: string, query: Record<string, string>): Promise<{ items: T[]; version: number | null }> {
    const items: T[] = [];
    let version: number | null = null;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await this.api.get<T[]>(path, { query: { ...query, limit: PAGE, offset: page * PAGE } });
      items.push(...answer.data);
      if (answer.version !== null) version = version === null ? answer.version : Math.min(version, answer.version);
      if (answer.data.length < PAGE || (answer.total !== null && items.length >= answer.total)) break;
    }
    return { items, version };
  }
}

/** The board's order of a project's open stories, panel by panel (what keyboard moves step through). */
export function boardOrder(data: BoardData, currentNumber: number): Array<{ id: number; panel: 'current' | 'backlog' | 'icebox' }> {
  const scheduled = data.iterations.flatMap((iteration) =>
    iteration.stories.map((story) => ({ id: story.id, panel: iteration.number === currentNumber ? ('current' as const) : ('backlog' as const), accepted: story.current_state === 'accepted' })),
  );
  return [...scheduled.filter((entry) => !entry.accepted).map(({ id, panel }) => ({ id, panel })), ...data.icebox.map((story) => ({ id: story.id, panel: 'icebox' as const }))];
}

/** The board data with a story taken out of its list and put in another at an index (an optimistic move). */
export function withStoryAt(data: BoardData, storyId: number, target: { iteration: number } | 'icebox', index: number): BoardData {
  let moving: Story | undefined;
  const iterations = data.iterations.map((iteration) => {
    const found = iteration.stories.find((story) => story.id === storyId);
    if (!found) return iteration;
    moving = found;
    return { ...iteration, stories: iteration.stories.filter((story) => story.id !== storyId) };
  });
  let icebox = data.icebox;
  const inIcebox = icebox.find((story) => story.id === storyId);
  if (inIcebox) {
    moving = inIcebox;
    icebox = icebox.filter((story) => story.id !== storyId);
  }
  if (!moving) return data;
  const insert = (stories: Story[]) => [...stories.slice(0, index), moving!, ...stories.slice(index)];
  if (target === 'icebox') return { ...data, iterations, icebox: insert(icebox) };
  return { ...data, icebox, iterations: iterations.map((iteration) => (iteration.number === target.iteration ? { ...iteration, stories: insert(iteration.stories) } : iteration)) };
}

let prefetched: BoardStore | null = null;

/** Starts reading a project's board at once, while the page around it is still getting ready. */
export function prefetchBoard(api: ApiClient, projectId: number): void {
  prefetched = new BoardStore(api, projectId);
  void prefetched.start();
}

/** The store a board shows: the prefetched one for that project, or a new one. */
export function boardStoreFor(api: ApiClient, projectId: number): BoardStore {
  const store = prefetched?.projectId === projectId ? prefetched : new BoardStore(api, projectId);
  prefetched = null;
  return store;
}
