// The one command handler: load the stream's state (cached; else from its latest snapshot and the events
// after it, or from the whole stream) -> decide -> append with the expected version -> on a version
// conflict catch up and decide again (bounded) -> wait until the read models have applied the event ->
// return the new state and version. Every `snapshotEvery` events a stream's state is snapshotted.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DomainError } from '../domain/errors.js';
import { EVENT_SCHEMA, type NewEvent, type RecordedEvent } from '../domain/events.js';
import { subjectIn, type Decide, type Decision, type DecisionContext, type DecisionSubject, type IdKind } from '../domain/decision.js';
import { eventInWholeSeconds, wholeSecond } from '../domain/whole-seconds.js';
import { emptyState, evolve, snapshotOfState, type StreamState } from '../domain/resource-state.js';
import { WrongExpectedVersion, eventId, type EventStore } from '../ports/event-store.js';
import type { StreamSnapshotBuilder, StreamSnapshots } from '../ports/stream-snapshots.js';
import { eventsPastSnapshot, foldNewEvents, stateOfLatestSnapshot } from './stream-state-loading.js';

/** Who asks, when, and under which id: the same command id never appends twice. */
export interface CommandMeta {
  commandId: string;
  actorId: number | null;
  now: number;
}

export interface CommandOutcome {
  state: StreamState;
  event: RecordedEvent;
  /** The resource the appended decision created or changed. */
  subject: DecisionSubject;
  version: number;
  position: number;
}

export interface IdSource {
  take(kind: IdKind): number | null;
  /** Makes at least `count` ids of a kind available to `take` (one reservation, whatever the count). */
  reserve(kind: IdKind, count: number): Promise<unknown>;
}

export interface ProjectionProgress {
  waitFor(position: number): Promise<void>;
}

export interface CommandHandlerOptions {
  eventStore: EventStore;
  ids: IdSource;
  projections: ProjectionProgress;
  /** Decisions retried after version conflicts before giving up with `deadlock`. */
  maxAttempts?: number;
  /**
   * Documents the stream states kept in memory may hold together (default DEFAULT_STATE_CACHE_DOCUMENTS):
   * the least recently used states are let go first; the one just used is kept whatever its size.
   */
  cacheDocuments?: number;
  /** Where states are kept between starts; without, the first command on a stream folds its whole history. */
  snapshots?: StreamSnapshots;
  /**
   * Builds snapshots off the serving thread: a stream not cached that is `snapshotEvery` events or more
   * past its snapshot (or has none) is loaded once the builder has stored one at its head (a failed build
   * only means a longer fold here).
   */
  snapshotBuilder?: StreamSnapshotBuilder;
  /** Events a stream folds past its last snapshot before the next is stored (default DEFAULT_SNAPSHOT_EVERY). */
  snapshotEvery?: number;
  /** Told of a snapshot that could not be read or stored: the command goes on without it. */
  onSnapshotError?: (error: unknown, stream: string) => void;
}

/**
 * Default distance between a stream's snapshots: 1,000 events. The first command on a project of the
 * 1M-event log folded 5,000 events (0.15 s from the OS cache, up to 1 s from a cold disk); from a
 * snapshot it reads one row and folds fewer than 1,000. Storing one, once per 1,000 writes to the
 * project, holds the serving thread ~10 ms for ~1,500 documents (0.8 MB of JSON: serialising 3.5 ms, the
 * upsert of its deflated 132 KB ~6; deflating runs on libuv's pool); reading it back 10-15 ms.
 */
export const DEFAULT_SNAPSHOT_EVERY = 1000;

/**
 * Default bound of the cached stream states: 100,000 documents. A project of ~1,600 documents measured
 * 1.1 MB of heap (~700 bytes a document), so about 70 MB; a bound by number of states (2,000 before)
 * let 200 such projects take 220 MB. A state let go is folded again from the log on its next command.
 */
export const DEFAULT_STATE_CACHE_DOCUMENTS = 100_000;

/**
 * Decisions tried per command while getting the ids it needs: when the reserved ids run out, the decision
 * goes on with provisional ids only to count what it asks for, the handler reserves that many in one
 * block per kind and decides again; a third round covers ids taken meanwhile by other commands.
 */
const MAX_ID_ROUNDS = 3;

export class CommandHandler {
  private readonly cache = new Map<string, StreamState>();
  /** The documents of each cached state when it was last caught up, and their sum. */
  private readonly cachedDocuments = new Map<string, number>();
  private cachedDocumentsTotal = 0;
  /** The version of the latest snapshot stored or read of each cached state. */
  private readonly snapshotVersions = new Map<string, number>();
  private readonly snapshotEvery: number;
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly maxAttempts: number;
  private readonly cacheDocuments: number;

  constructor(private readonly options: CommandHandlerOptions) {
    this.maxAttempts = options.maxAttempts ?? 20;
    this.cacheDocuments = options.cacheDocuments ?? DEFAULT_STATE_CACHE_DOCUMENTS;
    this.snapshotEvery = options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
  }

  /**
   * Decides and appends one event to `stream`. Commands on one stream run one at a time in this process;
   * conflicts with other processes are resolved by catching up and deciding again.
   */
  execute(stream: string, decide: Decide<StreamState>, meta: CommandMeta): Promise<CommandOutcome> {
    return this.serialized(stream, () => this.decideAndAppend(stream, decide, meta));
  }

  /** The stream's current state, caught up with the store. Callers must not modify it. */
  load(stream: string): Promise<StreamState> {
    return this.serialized(stream, () => this.caughtUp(stream));
  }

  /**
   * Resolves once every command queued so far has finished (answered or failed): at shutdown, a write
   * whose event is already stored still waits for its projections before the projector stops.
   */
  async settled(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()]);
  }

  private async decideAndAppend(stream: string, decide: Decide<StreamState>, meta: CommandMeta): Promise<CommandOutcome> {
    // A cached state is decided on as it is: if another process appended meanwhile, the append's expected
    // version catches it. A refusal is not checked by an append, so one decided on an unverified cached
    // state is decided again on the caught-up state before it is believed.
    let verified = false;
    let state = this.cached(stream);
    if (!state) {
      state = await this.caughtUp(stream);
      verified = true;
    }
    for (let attempt = 1; ; attempt++) {
      let decided: { event: NewEvent; subject: DecisionSubject };
      try {
        decided = await this.decideWithIds(state, decide, meta);
      } catch (refusal) {
        if (verified) throw refusal;
        const version = state.version;
        state = await this.caughtUp(stream);
        verified = true;
        if (state.version === version) throw refusal;
        continue;
      }
      const { event, subject } = decided;
      try {
        const result = await this.options.eventStore.append(stream, state.version, [event]);
        if (result.version !== state.version + 1) {
          // The same command was appended before (a retried request): its first result stands.
          state = await this.caughtUp(stream);
          const [first] = await this.options.eventStore.readStream(stream, { from: result.version, limit: 1 });
          if (!first) throw new Error(`event ${result.version} of ${stream} vanished`);
          await this.options.projections.waitFor(result.position);
          return { state, event: first, subject: subjectIn(first.data, subject), version: result.version, position: result.position };
        }
        const recorded: RecordedEvent = {
          ...event,
          id: eventId(meta.commandId, 0),
          stream,
          version: result.version,
          position: result.position,
        };
        evolve(state, recorded);
        this.keep(stream, state);
        this.snapshotIfDue(state);
        await this.options.projections.waitFor(result.position);
        return { state, event: recorded, subject, version: result.version, position: result.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedVersion)) throw error;
        if (attempt >= this.maxAttempts) {
          throw new DomainError('deadlock', {
            general_problem: `Too many concurrent changes to ${stream}; the request was not applied.`,
            possible_fix: 'Retry the request.',
          });
        }
        state = await this.caughtUp(stream);
        verified = true;
      }
    }
  }

  private async decideWithIds(
    state: StreamState,
    decide: Decide<StreamState>,
    meta: CommandMeta,
  ): Promise<{ event: NewEvent; subject: DecisionSubject }> {
    const ids = this.options.ids;
    for (let round = 1; round <= MAX_ID_ROUNDS; round++) {
      const asked = new Map<IdKind, number>();
      const short = new Set<IdKind>();
      let provisional = 0;
      const context: DecisionContext = {
        now: wholeSecond(meta.now),
        actorId: meta.actorId,
        nextId(kind) {
          asked.set(kind, (asked.get(kind) ?? 0) + 1);
          const id = short.has(kind) ? null : ids.take(kind);
          if (id !== null) return id;
          short.add(kind);
          provisional -= 1; // counted, never appended: this decision is thrown away
          return provisional;
        },
      };
      let decision: Decision | undefined;
      let refusal: unknown;
      try {
        decision = decide(state, context);
      } catch (error) {
        refusal = error;
      }
      if (short.size === 0) {
        if (decision === undefined) throw refusal;
        const event: NewEvent = eventInWholeSeconds({
          type: decision.type,
          data: decision.data,
          meta: { schema: EVENT_SCHEMA, occurred_at: meta.now, performed_by: meta.actorId, command_id: meta.commandId },
        });
        return { event, subject: decision.subject };
      }
      for (const kind of short) await ids.reserve(kind, asked.get(kind)!);
    }
    throw new DomainError('server_under_load', {
      general_problem: `Could not reserve the ids this change needs after ${MAX_ID_ROUNDS} attempts; the request was not applied.`,
      possible_fix: 'Retry the request.',
    });
  }


  /** The cached state of the stream as it is (not read from the store), marked most recently used. */
  private cached(stream: string): StreamState | undefined {
    const state = this.cache.get(stream);
    if (state) {
      this.cache.delete(stream); // re-inserted: the Map's order is the LRU order
      this.cache.set(stream, state);
    }
    return state;
  }

  private async caughtUp(stream: string): Promise<StreamState> {
    const state = this.cached(stream) ?? (await this.fromSnapshot(stream)) ?? emptyState(stream);
    // A long stream read cold (the first write to it since the start, without a recent snapshot): other
    // requests get their turn between pages, or folding a big project's history would hold the whole server.
    await foldNewEvents(this.options.eventStore, state, nextTurn);
    this.keep(stream, state);
    this.snapshotIfDue(state);
    return state;
  }

  /**
   * The state of the stream's latest snapshot when it can serve (stream-state-loading.ts); with a
   * snapshot builder, once the builder has brought that snapshot near the stream's head.
   */
  private async fromSnapshot(stream: string): Promise<StreamState | null> {
    const { snapshots, snapshotBuilder, eventStore } = this.options;
    if (!snapshots) return null;
    try {
      // Only a stream the distance or more past its snapshot waits for the builder (a one-shot CLI command
      // on a short stream starts no worker; a start with every snapshot in place asks it nothing).
      if (snapshotBuilder && (await eventsPastSnapshot(snapshots, eventStore, stream)) >= this.snapshotEvery) await snapshotBuilder.catchUp(stream);
    } catch (error) {
      this.options.onSnapshotError?.(error, stream);
    }
    try {
      const state = await stateOfLatestSnapshot(snapshots, eventStore, stream);
      if (state) this.snapshotVersions.set(stream, state.version);
      return state;
    } catch (error) {
      this.options.onSnapshotError?.(error, stream);
      return null;
    }
  }

  /**
   * Stores a snapshot of the state once it has folded `snapshotEvery` events past its last one. With a
   * builder, its worker folds the stream from that last snapshot and stores the next one, so the serving
   * thread serialises nothing (a state of 45,000 documents would hold it ~0.3 s); if the builder fails,
   * the state is snapshotted here (as it is then: the fallback runs later), and the failure told.
   */
  private snapshotIfDue(state: StreamState): void {
    const { snapshots, snapshotBuilder } = this.options;
    if (!snapshots || state.lastEventId === null) return;
    if (state.version - (this.snapshotVersions.get(state.stream) ?? 0) < this.snapshotEvery) return;
    this.snapshotVersions.set(state.stream, state.version);
    const here = () => snapshots.save(snapshotOfState(state));
    const failedThere = (error: unknown) => {
      this.options.onSnapshotError?.(error, state.stream);
      return here();
    };
    let saving: Promise<void>;
    try {
      saving = snapshotBuilder ? snapshotBuilder.catchUp(state.stream).catch(failedThere) : here();
    } catch (error) {
      saving = Promise.reject(error);
    }
    saving.catch((error: unknown) => this.options.onSnapshotError?.(error, state.stream));
  }

  /**
   * Keeps a state just caught up or evolved (recounting its documents) and lets the least recently used
   * others go while the states hold more documents together than the bound.
   */
  private keep(stream: string, state: StreamState): void {
    this.cache.set(stream, state);
    let documents = 0;
    for (const docs of state.docs.values()) documents += docs.size;
    this.cachedDocumentsTotal += documents - (this.cachedDocuments.get(stream) ?? 0);
    this.cachedDocuments.set(stream, documents);
    for (const oldest of this.cache.keys()) {
      if (this.cachedDocumentsTotal <= this.cacheDocuments || oldest === stream) break;
      this.cache.delete(oldest);
      this.cachedDocumentsTotal -= this.cachedDocuments.get(oldest)!;
      this.cachedDocuments.delete(oldest);
      this.snapshotVersions.delete(oldest);
    }
  }

  private serialized<T>(stream: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(stream) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(stream, settled);
    void settled.then(() => {
      if (this.queues.get(stream) === settled) this.queues.delete(stream);
    });
    return run;
  }
}
