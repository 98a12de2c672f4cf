// The one command handler: load the stream's state (ports/stream-states.ts: kept, or caught up from a
// snapshot and the log) -> decide (reserving ids when the decision runs out) -> append with the expected
// version -> on a version conflict catch up and decide again (bounded) -> keep the evolved state -> wait
// until the read models have applied the event -> return the new state and version.
import { DomainError } from '../domain/errors.js';
import { EVENT_SCHEMA, type NewEvent, type RecordedEvent, type StreamName } from '../domain/events.js';
import { subjectIn, type Decide, type Decision, type DecisionContext, type DecisionSubject, type IdKind } from '../domain/decision.js';
import { eventInWholeSeconds, wholeSecond } from '../domain/whole-seconds.js';
import type { StreamState } from '../domain/resource-state.js';
import { WrongExpectedVersion, eventId, type AppendResult, type EventStore } from '../ports/event-store.js';
import type { StreamStates } from '../ports/stream-states.js';

/** Who asks, when, and under which id: the same command id never appends twice. */
export interface CommandMeta {
  commandId: string;
  actorId: number | null;
  now: number;
}

export interface CommandOutcome<S extends StreamState = StreamState> {
  state: S;
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
  /** Resolves once the projections have applied the event at `position`; rejects with their failure to. */
  waitFor(position: number): Promise<void>;
  /**
   * Resolves at once while the projections keep up. After they failed to apply an event (a full disk),
   * applies what they have not yet and rejects with their failure while it lasts: a command then appends
   * nothing, so that the log does not run ahead of read models that cannot be stored, each write adding
   * to what they must apply at once to recover. Absent: projections that do not fail (tests, benches).
   */
  ready?(): Promise<void>;
}

export interface CommandHandlerOptions {
  eventStore: EventStore;
  /** Where the states decided on are kept, loaded from and snapshotted (infra/stream-states). */
  states: StreamStates<StreamState>;
  ids: IdSource;
  projections: ProjectionProgress;
  /** Decisions retried after version conflicts before giving up with `deadlock`. */
  maxAttempts?: number;
}

/**
 * Decisions tried per command while getting the ids it needs: when the reserved ids run out, the decision
 * goes on with provisional ids only to count what it asks for, the handler reserves that many in one
 * block per kind and decides again; a third round covers ids taken meanwhile by other commands.
 */
const MAX_ID_ROUNDS = 3;

export class CommandHandler {
  /** Each stream's last queued command: commands on one stream run one after another (see `serialized`). */
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly maxAttempts: number;

  constructor(private readonly options: CommandHandlerOptions) {
    this.maxAttempts = options.maxAttempts ?? 20;
  }

  /**
   * Decides and appends one event to `stream`. Commands on one stream run one at a time in this process;
   * conflicts with other processes are resolved by catching up and deciding again.
   */
  execute<S extends StreamState>(stream: StreamName<S>, decide: Decide<S>, meta: CommandMeta): Promise<CommandOutcome<S>> {
    return this.serialized(stream, () => this.decideAndAppend(stream, decide, meta));
  }

  /** The stream's current state, caught up with the store. Callers must not modify it. */
  load<S extends StreamState>(stream: StreamName<S>): Promise<S> {
    // the states port makes each stream's state of the class its name carries (decision-states.ts)
    return this.serialized(stream, () => this.options.states.load(stream) as Promise<S>);
  }

  /**
   * Resolves once every command queued so far has finished (answered or failed): at shutdown, a write
   * whose event is already stored still waits for its projections before the projector stops.
   */
  async settled(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()]);
  }

  private async decideAndAppend<S extends StreamState>(stream: StreamName<S>, decide: Decide<S>, meta: CommandMeta): Promise<CommandOutcome<S>> {
    const { states, eventStore, projections } = this.options;
    await projections.ready?.();
    // A kept state is decided on as it is: if another process appended meanwhile, the append's expected
    // version catches it. A refusal is not checked by an append, so one decided on an unverified kept
    // state is decided again on the caught-up state before it is believed.
    let state = states.kept(stream) as S | undefined;
    let verified = state === undefined;
    state ??= (await states.load(stream)) as S;
    for (let attempt = 1; ; attempt++) {
      let decided: { event: NewEvent; subject: DecisionSubject };
      try {
        decided = await this.decideWithIds(state, decide, meta);
      } catch (refusal) {
        if (verified) throw refusal;
        const version = state.version;
        state = (await states.load(stream)) as S;
        verified = true;
        if (state.version === version) throw refusal;
        continue;
      }
      let appended: AppendResult;
      try {
        appended = await eventStore.append(stream, state.version, [decided.event]);
      } catch (error) {
        if (!(error instanceof WrongExpectedVersion)) throw error;
        if (attempt >= this.maxAttempts) throw tooManyConflicts(stream);
        state = (await states.load(stream)) as S;
        verified = true;
        continue;
      }
      if (appended.version !== state.version + 1) return this.firstOutcome(stream, appended, decided.subject);
      const event: RecordedEvent = { ...decided.event, id: eventId(meta.commandId, 0), stream, version: appended.version, position: appended.position };
      state.evolve(event);
      states.keep(stream, state);
      await shown(projections, appended.position);
      return { state, event, subject: decided.subject, version: appended.version, position: appended.position };
    }
  }

  /** The same command was appended before (a retried request): its first result stands. */
  private async firstOutcome<S extends StreamState>(stream: StreamName<S>, appended: AppendResult, subject: DecisionSubject): Promise<CommandOutcome<S>> {
    const { states, eventStore, projections } = this.options;
    const state = (await states.load(stream)) as S;
    const [first] = await eventStore.readStream(stream, { from: appended.version, limit: 1 });
    if (!first) throw new Error(`event ${appended.version} of ${stream} vanished`);
    await shown(projections, appended.position);
    return { state, event: first, subject: subjectIn(first.data, subject), version: appended.version, position: appended.position };
  }

  private async decideWithIds<S extends StreamState>(
    state: S,
    decide: Decide<S>,
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

  /**
   * Runs `work` after the stream's earlier commands here. The handler serializes, not the port: a
   * command's load, decision, append and keep must not interleave with another's on the same stream
   * (each would decide on the state the other is about to evolve), and only the handler sees that span.
   */
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

function tooManyConflicts(stream: string): DomainError {
  return new DomainError('deadlock', {
    general_problem: `Too many concurrent changes to ${stream}; the request was not applied.`,
    possible_fix: 'Retry the request.',
  });
}

/**
 * Waits for the projections to apply the event appended at `position`. Their failure to (a storage
 * failure) is answered with its code, but saying what is so: the change is stored and shows once they
 * can apply it, so it must not be sent again (a storage error's own text says nothing was changed).
 */
async function shown(projections: ProjectionProgress, position: number): Promise<void> {
  try {
    await projections.waitFor(position);
  } catch (failure) {
    if (!(failure instanceof DomainError)) throw failure;
    throw Object.assign(
      new DomainError(failure.code, {
        general_problem: 'The change was stored, but the server cannot show it yet: it could not update the data it answers from.',
        possible_fix: 'Do not send the change again: it shows once the operator has resolved the storage problem (GET /health names it).',
      }),
      { cause: failure },
    );
  }
}
