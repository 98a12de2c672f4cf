// The one command handler: load the stream's state (cached, caught up from its version) -> decide ->
// append with the expected version -> on a version conflict catch up and decide again (bounded) ->
// wait until the read models have applied the event -> return the new state and version.
import { DomainError } from '../domain/errors.js';
import { EVENT_SCHEMA, type NewEvent, type RecordedEvent } from '../domain/events.js';
import { subjectIn, type Decide, type DecisionContext, type DecisionSubject, type IdKind } from '../domain/decision.js';
import { emptyState, evolve, type StreamState } from '../domain/resource-state.js';
import { eventId } from '../infra/event-codec.js';
import { WrongExpectedVersion, type EventStore } from '../ports/event-store.js';

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
  refill(kind: IdKind): Promise<void>;
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
  /** Stream states kept in memory. */
  cacheSize?: number;
}

/** Thrown inside a decision when the id source's block is used up; the handler refills and decides again. */
class IdsExhausted extends Error {
  constructor(readonly kind: IdKind) {
    super(`no ${kind} ids left in the reserved block`);
  }
}

export class CommandHandler {
  private readonly cache = new Map<string, StreamState>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly maxAttempts: number;
  private readonly cacheSize: number;

  constructor(private readonly options: CommandHandlerOptions) {
    this.maxAttempts = options.maxAttempts ?? 20;
    this.cacheSize = options.cacheSize ?? 2000;
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

  private async decideAndAppend(stream: string, decide: Decide<StreamState>, meta: CommandMeta): Promise<CommandOutcome> {
    let state = await this.caughtUp(stream);
    for (let attempt = 1; ; attempt++) {
      const { event, subject } = await this.decideWithIds(state, decide, meta);
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
      }
    }
  }

  private async decideWithIds(
    state: StreamState,
    decide: Decide<StreamState>,
    meta: CommandMeta,
  ): Promise<{ event: NewEvent; subject: DecisionSubject }> {
    const ids = this.options.ids;
    for (;;) {
      const context: DecisionContext = {
        now: meta.now,
        actorId: meta.actorId,
        nextId(kind) {
          const id = ids.take(kind);
          if (id === null) throw new IdsExhausted(kind);
          return id;
        },
      };
      try {
        const decision = decide(state, context);
        const event: NewEvent = {
          type: decision.type,
          data: decision.data,
          meta: { schema: EVENT_SCHEMA, occurred_at: meta.now, performed_by: meta.actorId, command_id: meta.commandId },
        };
        return { event, subject: decision.subject };
      } catch (error) {
        if (!(error instanceof IdsExhausted)) throw error;
        await ids.refill(error.kind);
      }
    }
  }

  private async caughtUp(stream: string): Promise<StreamState> {
    let state = this.cache.get(stream);
    if (state) {
      this.cache.delete(stream); // re-insert below: the Map's order is the LRU order
    } else {
      state = emptyState(stream);
    }
    for (;;) {
      const events = await this.options.eventStore.readStream(stream, { from: state.version + 1, limit: 1000 });
      for (const event of events) evolve(state, event);
      if (events.length < 1000) break;
    }
    this.cache.set(stream, state);
    if (this.cache.size > this.cacheSize) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined && oldest !== stream) this.cache.delete(oldest);
    }
    return state;
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
