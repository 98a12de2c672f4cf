// The live activity streams (`GET /projects/{id}/activity/stream`): every open stream, fed from the one
// place the server learns of new events, the projector runner's applied batches (ports/applied-events.ts).
//
// Each stream has sent its client every version up to `sent` (the `id` of its last frame, or the
// version it started after). A stream is either
// - live: the applied events are fanned out at most once per `flushMs` (at once when the last fan-out
//   is older): rendered once per project and format (api/activity-items.ts), and the versions after
//   each stream's `sent` written to it in one write (the same bytes for every stream in step); or
// - catching up (just opened with Last-Event-ID, behind after a gap, or waiting for its socket to
//   drain): it pages the log after `sent` itself (activity items, 100 versions a page) until nothing
//   is left, then goes live. A batch that arrives meanwhile only marks it to look again.
// A frame is written only for version `sent + 1`, so nothing is sent twice or skipped, whichever way
// a version arrives; a restart resumes from the client's Last-Event-ID the same way.
//
// Bounds: open streams per caller (person, or address when anonymous) and in total (beyond: 429); a
// live stream whose socket holds more than `maxBufferedBytes` unsent is dropped (its client reconnects
// with Last-Event-ID); a catching-up stream waits for its socket to drain before the next page. The
// events waiting to be fanned out are bounded too: past the bound, the projects they belong to have
// their streams caught up from the log instead.
//
// Every `heartbeatMs` each stream gets a comment line, and its caller's access is checked again (token
// reset, membership removed, project no longer public): a stream that lost access ends. A batch that
// changes memberships or a project's visibility checks the streams concerned at once. A project's
// delete ends its streams after its last activity; close() (SIGTERM) ends every stream cleanly.
import type { Subscription } from 'rxjs';
import { apiError } from './error-catalogue.js';
import { projectIdOfStream, type RecordedEvent } from '../domain/events.js';
import type { AppliedEvents } from '../ports/applied-events.js';
import type { ActivityItems, ItemFormat } from './activity-items.js';
import type { ApiLog } from './app-dependencies.js';
import { activityFrame, KEEP_ALIVE_FRAME, retryFrame, type EventStreamSink } from './event-stream.js';

export interface LiveActivitySettings {
  /** Open streams in all (beyond: 429). */
  maxStreams: number;
  /** Open streams per person, or per address for anonymous readers of public projects. */
  maxStreamsPerCaller: number;
  /** Between two keep-alive comments (and access checks) on every stream. */
  heartbeatMs: number;
  /** Unsent bytes a live stream may hold before it is dropped. */
  maxBufferedBytes: number;
  /** At most one fan-out per this period: new versions wait at most this long, then go out together. */
  flushMs: number;
}

/** Versions read per page while a stream catches up. */
const CATCH_UP_PAGE = 100;
/** Applied events waiting for a fan-out before further ones are left to the streams' catch-up from the log. */
const MAX_WAITING_EVENTS = 10_000;
/**
 * A fan-out waits at least this many times as long as the last one spent writing to the sockets (a
 * system call each): that may take at most a fifth of the server's time, so writes keep >= 80% of
 * their rate; on a busy machine the period stretches instead, up to MAX_STRETCH times `flushMs`, which
 * bounds what a version waits.
 */
const FAN_OUT_SPACING = 5;
const MAX_STRETCH = 5;
/** What a client waits before reconnecting after the stream ended (EventSource's `retry`). */
const RECONNECT_MS = 2000;

/** A slot counted against the limits, taken before the response starts. */
export interface StreamReservation {
  /** Starts the stream on the response (once). */
  open(sink: EventStreamSink, stream: StreamRequest): void;
  /** Gives the slot back without a stream (a HEAD request, a response that never started). */
  release(): void;
}

export interface StreamRequest {
  projectId: number;
  /** The last version the client has: the stream sends every version after it. */
  after: number;
  format: ItemFormat;
  /** Whether the caller may still read the project (credentials still valid, access unchanged). */
  stillAllowed(): Promise<boolean>;
}

interface OpenStream extends StreamRequest {
  sink: EventStreamSink;
  caller: string;
  sent: number;
  catchingUp: boolean;
  /** A batch arrived while catching up: look at the log again before going live. */
  dirty: boolean;
  closed: boolean;
}

export class LiveActivity {
  private readonly byProject = new Map<number, Set<OpenStream>>();
  private readonly perCaller = new Map<string, number>();
  private reserved = 0;
  private closed = false;
  private readonly subscription: Subscription;
  private readonly heartbeat: NodeJS.Timeout;
  /** Applied events of projects with streams, waiting for the next fan-out, in log order. */
  private waiting: RecordedEvent[] = [];
  /** Projects whose events did not fit in `waiting`: their streams catch up from the log instead. */
  private readonly behind = new Set<number>();
  private flushTimer: NodeJS.Timeout | null = null;
  private fanning = false;
  /** When the last fan-out began (performance.now()). */
  private lastFanOut = Number.NEGATIVE_INFINITY;
  /** How long the last fan-out spent writing to the sockets (ms). */
  private lastWritingMs = 0;

  constructor(
    private readonly deps: { applied: AppliedEvents; items: Pick<ActivityItems, 'of' | 'after'>; log: ApiLog },
    private readonly settings: LiveActivitySettings,
  ) {
    this.subscription = deps.applied.applied$.subscribe((batch) => this.enqueue(batch));
    this.heartbeat = setInterval(() => this.beat(), settings.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Open streams in all and per project (operators, tests). */
  stats(): { open: number; projects: number } {
    let open = 0;
    for (const streams of this.byProject.values()) open += streams.size;
    return { open, projects: this.byProject.size };
  }

  /** Takes a slot for `caller`, or throws 429 `too_many_requests` when a limit is reached. */
  reserve(caller: string): StreamReservation {
    if (this.closed) throw apiError('server_under_load', { general_problem: 'The server is shutting down.' });
    const mine = this.perCaller.get(caller) ?? 0;
    if (mine >= this.settings.maxStreamsPerCaller) {
      throw apiError('too_many_requests', {
        general_problem: `You have ${mine} activity streams open; at most ${this.settings.maxStreamsPerCaller} are allowed.`,
        possible_fix: 'Close a stream you no longer read before opening another.',
      });
    }
    if (this.reserved >= this.settings.maxStreams) {
      throw apiError('too_many_requests', {
        general_problem: `The server has ${this.reserved} activity streams open, its limit.`,
        possible_fix: 'Retry later.',
      });
    }
    this.reserved++;
    this.perCaller.set(caller, mine + 1);
    let used = false;
    const release = () => {
      if (used) return;
      used = true;
      this.reserved--;
      const left = (this.perCaller.get(caller) ?? 1) - 1;
      if (left > 0) this.perCaller.set(caller, left);
      else this.perCaller.delete(caller);
    };
    return {
      release,
      open: (sink, request) => {
        if (used) throw new Error('a stream reservation opens once');
        this.open(sink, request, caller, release);
      },
    };
  }

  /** Ends every stream cleanly and refuses new ones (server shutdown). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.subscription.unsubscribe();
    clearInterval(this.heartbeat);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    for (const streams of this.byProject.values()) for (const stream of streams) this.end(stream);
  }

  private open(sink: EventStreamSink, request: StreamRequest, caller: string, release: () => void): void {
    const stream: OpenStream = { ...request, sink, caller, sent: request.after, catchingUp: false, dirty: false, closed: false };
    sink.onClose(() => {
      if (stream.closed) return;
      stream.closed = true;
      this.forget(stream);
      release();
    });
    if (this.closed) {
      this.end(stream);
      return;
    }
    let streams = this.byProject.get(stream.projectId);
    if (!streams) this.byProject.set(stream.projectId, (streams = new Set()));
    streams.add(stream);
    sink.write(retryFrame(RECONNECT_MS));
    void this.catchUp(stream);
  }

  private forget(stream: OpenStream): void {
    const streams = this.byProject.get(stream.projectId);
    if (!streams) return;
    streams.delete(stream);
    if (streams.size === 0) this.byProject.delete(stream.projectId);
  }

  private end(stream: OpenStream): void {
    if (stream.closed) return;
    stream.sink.end();
  }

  private drop(stream: OpenStream, reason: string): void {
    if (stream.closed) return;
    this.deps.log.info('activity stream dropped', { project_id: stream.projectId, reason, buffered: stream.sink.buffered() });
    stream.sink.destroy();
  }

  // ---- fan-out of applied batches ----

  /** Keeps the events of projects with streams for the next fan-out (past the bound: their streams catch up). */
  private enqueue(batch: readonly RecordedEvent[]): void {
    for (const event of batch) {
      const projectId = projectIdOfStream(event.stream);
      if (projectId === null || !this.byProject.has(projectId)) continue;
      if (this.waiting.length < MAX_WAITING_EVENTS) this.waiting.push(event);
      else this.behind.add(projectId);
    }
    this.schedule();
  }

  /**
   * Fans out what waits at once when the last fan-out began `flushMs` ago or more (and at least
   * FAN_OUT_SPACING times as long as its socket writes took, at most MAX_STRETCH times `flushMs`), else
   * when that much has passed: under a stream of writes each stream gets one write per period holding
   * every version of it, instead of one per applied batch (a socket write per stream is what a fan-out
   * costs).
   */
  private schedule(): void {
    if (this.flushTimer || this.fanning || this.closed) return;
    if (this.waiting.length === 0 && this.behind.size === 0) return;
    const { flushMs } = this.settings;
    const period = Math.min(Math.max(flushMs, FAN_OUT_SPACING * this.lastWritingMs), MAX_STRETCH * flushMs);
    const delay = Math.max(0, this.lastFanOut + period - performance.now());
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.flush();
    }, delay);
  }

  private async flush(): Promise<void> {
    this.fanning = true;
    this.lastFanOut = performance.now();
    const events = this.waiting;
    this.waiting = [];
    const behind = [...this.behind];
    this.behind.clear();
    try {
      this.lastWritingMs = events.length > 0 ? await this.fanOut(events) : 0;
      for (const projectId of behind) for (const stream of this.byProject.get(projectId) ?? []) void this.catchUp(stream);
    } catch (error) {
      this.deps.log.error('the live activity stream could not fan out a batch', { error: String(error) });
    } finally {
      this.fanning = false;
      this.schedule();
    }
  }

  /** Writes the batch's items to the live streams; returns the time spent writing (ms). */
  private async fanOut(batch: readonly RecordedEvent[]): Promise<number> {
    let writingMs = 0;
    const projects = projectsWithStreams(batch, this.byProject);
    for (const projectId of projects) {
      const events = batch.filter((event) => projectIdOfStream(event.stream) === projectId);
      const streams = this.byProject.get(projectId);
      if (!streams || streams.size === 0) continue;
      const byFormat = new Map<string, OpenStream[]>();
      for (const stream of streams) {
        const key = formatKey(stream.format);
        const group = byFormat.get(key);
        if (group) group.push(stream);
        else byFormat.set(key, [stream]);
      }
      for (const group of byFormat.values()) {
        const items = await this.deps.items.of(projectId, events, group[0]!.format);
        // Streams in step (the same last version sent) get the same bytes: built once, written to each.
        const chunks = new Map<number, { bytes: Buffer; last: number } | null>();
        const began = performance.now();
        for (const stream of group) this.deliverLive(stream, items, chunks);
        writingMs += performance.now() - began;
      }
      if (events.some((event) => event.type === 'project_delete')) for (const stream of streams) this.end(stream);
    }
    if (batch.some(changesAccess)) this.recheck(accessConcerns(batch));
    return writingMs;
  }

  private deliverLive(
    stream: OpenStream,
    items: ReadonlyArray<{ version: number; json: string | null }>,
    chunks: Map<number, { bytes: Buffer; last: number } | null>,
  ): void {
    if (stream.closed) return;
    if (stream.catchingUp) {
      stream.dirty = true;
      return;
    }
    if (!chunks.has(stream.sent)) chunks.set(stream.sent, chunkAfter(stream.sent, items));
    const chunk = chunks.get(stream.sent)!;
    if (chunk === null) {
      void this.catchUp(stream); // a gap (a batch left unrendered): the log has the versions between
      return;
    }
    if (chunk.bytes.length > 0) stream.sink.write(chunk.bytes);
    stream.sent = Math.max(stream.sent, chunk.last);
    if (stream.sink.buffered() > this.settings.maxBufferedBytes) this.drop(stream, 'the client does not read fast enough');
  }

  /** Pages the log after `sent` until nothing is left, then goes live (one run per stream at a time). */
  private async catchUp(stream: OpenStream): Promise<void> {
    if (stream.catchingUp) {
      stream.dirty = true;
      return;
    }
    stream.catchingUp = true;
    try {
      do {
        stream.dirty = false;
        for (;;) {
          const items = await this.deps.items.after(stream.projectId, stream.sent, CATCH_UP_PAGE, stream.format);
          if (stream.closed || items.length === 0) break;
          let full = false;
          for (const item of items) {
            if (item.version !== stream.sent + 1) break;
            if (item.json !== null && !stream.sink.write(activityFrame(item.version, item.json))) full = true;
            stream.sent = item.version;
          }
          if (full) await new Promise<void>((resolve) => stream.sink.onceDrained(resolve));
          if (stream.closed) break;
        }
      } while (stream.dirty && !stream.closed);
    } catch (error) {
      this.deps.log.warn('an activity stream could not read the log; ending it (the client resumes)', { project_id: stream.projectId, error: String(error) });
      this.end(stream);
    } finally {
      stream.catchingUp = false;
    }
  }

  // ---- heartbeat and access ----

  private beat(): void {
    const all: OpenStream[] = [];
    for (const streams of this.byProject.values()) all.push(...streams);
    for (const stream of all) {
      if (stream.closed) continue;
      stream.sink.write(KEEP_ALIVE_FRAME);
      if (stream.sink.buffered() > this.settings.maxBufferedBytes) this.drop(stream, 'the client does not read fast enough');
    }
    this.recheck(null);
  }

  /** Checks the access of the streams of these projects (null: every stream); ends those that lost it. */
  private recheck(projects: ReadonlySet<number> | null): void {
    for (const [projectId, streams] of this.byProject) {
      if (projects !== null && !projects.has(projectId)) continue;
      for (const stream of streams) {
        stream.stillAllowed().then(
          (allowed) => {
            if (!allowed) this.end(stream);
          },
          () => this.end(stream),
        );
      }
    }
  }
}

/**
 * The frames a stream that has sent up to `sent` gets from `items` (versions in order), as bytes, and
 * the last version they take it to; null when the items start past `sent + 1` (a gap: catch up).
 */
function chunkAfter(sent: number, items: ReadonlyArray<{ version: number; json: string | null }>): { bytes: Buffer; last: number } | null {
  let text = '';
  let last = sent;
  for (const item of items) {
    if (item.version <= last) continue;
    if (item.version > last + 1) return null;
    if (item.json !== null) text += activityFrame(item.version, item.json);
    last = item.version;
  }
  return { bytes: Buffer.from(text), last };
}

function formatKey(format: ItemFormat): string {
  return `${format.millis ? 'ms' : 'iso'}:${format.fields ?? ''}`;
}

function projectsWithStreams(batch: readonly RecordedEvent[], byProject: ReadonlyMap<number, unknown>): Set<number> {
  const projects = new Set<number>();
  for (const event of batch) {
    const projectId = projectIdOfStream(event.stream);
    if (projectId !== null && byProject.has(projectId)) projects.add(projectId);
  }
  return projects;
}

/** Whether an event may change who can read a project: memberships (project or account), visibility. */
function changesAccess(event: RecordedEvent): boolean {
  return event.data.changes.some(
    (change) =>
      change.kind === 'project_membership' ||
      change.kind === 'account_membership' ||
      (change.kind === 'project' && change.new_values !== undefined && ('public' in change.new_values || 'account_id' in change.new_values)),
  );
}

/** The projects whose streams an access-changing batch concerns (null: all, for account-wide changes). */
function accessConcerns(batch: readonly RecordedEvent[]): ReadonlySet<number> | null {
  const projects = new Set<number>();
  for (const event of batch) {
    if (!changesAccess(event)) continue;
    const projectId = projectIdOfStream(event.stream);
    if (projectId === null) return null;
    projects.add(projectId);
  }
  return projects;
}
