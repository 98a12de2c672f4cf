// Runs the reactions (src/reactions/) behind the global log. Each reaction has a worker of its own:
//
//   load its checkpoint -> read the log after it in batches -> hand the batch's events of the reaction's
//   types to the reaction at once -> save the batch's last position as the new checkpoint -> pause
//   `gatherMs` after a batch that did not fill, so the next gathers the writes of that window -> when
//   caught up, sleep until the event store says new events are visible (appended$)
//
// Every step that can fail (loading the checkpoint, reading the log, the reaction's handle, saving the
// checkpoint: a full disk, a busy or damaged file, a reaction's own failure) is retried by itself with
// bounded exponential back-off, and the worker goes on from there once it succeeds: nothing but stop()
// ends a worker. A failed checkpoint save is retried alone (the batch is not handed again). While a step
// fails, status() says which, since when and with what error; this is the one place every reaction,
// present and future, gets that from.
//
// A reaction that runs work of its own beside the log (the webhook deliveries' workers) is started with
// the runner and stopped after its workers (`Reaction.start` / `stop`).
//
// Nothing waits for a worker: writes return once their projections are applied, projections run in
// their own runner, and a reaction stuck on a failing event delays only itself. The checkpoint is saved
// once per batch, so after a crash at most the batch in hand is delivered again: at least once, and the
// reactions are idempotent by event id. `stop()` ends every worker between two deliveries, at once while
// it sleeps or backs off, and gives a delivery in hand at most `stopGraceMs` (default 5 s): one that
// takes longer is abandoned unrecorded and its batch delivered again at the next start.
//
// The loop is written with async/await rather than as an rxjs pipeline: each worker is a sequential
// read -> deliver -> checkpoint loop whose retry must not let the checkpoint pass a failed event, which
// reads more plainly as a loop than as operators; rxjs is used where it fits, for the store's
// `appended$` wake-up signal (decision recorded in docs/decisions.md).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Subscription } from 'rxjs';
import type { RecordedEvent } from '../../domain/events.js';
import type { EventStore } from '../../ports/event-store.js';
import type { ReactionCheckpoints } from '../../ports/reaction-checkpoints.js';
import type { Reaction, ReactionFailure, ReactionStep } from '../../reactions/reaction.js';
import { SleepTimer } from '../../reactions/sleep-timer.js';
import { silentLog, type Log } from '../log.js';

export interface BackOff {
  /** Delay before the first retry. */
  initialMs: number;
  /** The delay doubles per failed attempt up to this. */
  maxMs: number;
}

export interface ReactionRunnerOptions {
  eventStore: EventStore;
  checkpoints: ReactionCheckpoints;
  reactions: readonly Reaction[];
  log?: Log;
  /** Events read from the log per batch. */
  batchSize?: number;
  backOff?: BackOff;
  /** How long stop() waits for a delivery in hand; past it the batch is redelivered at the next start. */
  stopGraceMs?: number;
  /** The time a failure is recorded at (tests); Date.now by default. */
  clock?: () => number;
  /**
   * After a batch smaller than `batchSize`, the pause before reading the next (default 20 ms): under a
   * stream of writes a reaction then handles the events of that window in one batch (one transaction)
   * instead of one batch per write. It is how far a reaction trails the log at most when it keeps up.
   */
  gatherMs?: number;
}

export interface ReactionStatus {
  name: string;
  /** The position the reaction has handled the log up to. */
  position: number;
  /** Set while a step fails (it is being retried), null otherwise. */
  failing: ReactionFailure | null;
}

export type { ReactionFailure, ReactionStep };

/** What a step answers when the worker was stopped before it succeeded. */
const STOPPED = Symbol('stopped');

const DEFAULT_BACK_OFF: BackOff = { initialMs: 100, maxMs: 30_000 };

export class ReactionRunner {
  private readonly workers: ReactionWorker[];
  private subscription: Subscription | null = null;

  constructor(private readonly options: ReactionRunnerOptions) {
    const names = new Set<string>();
    for (const reaction of options.reactions) {
      if (names.has(reaction.name)) throw new Error(`two reactions are named ${reaction.name}`);
      names.add(reaction.name);
    }
    this.workers = options.reactions.map((reaction) => new ReactionWorker(reaction, options));
  }

  /** Starts every worker from its checkpoint; returns at once (nothing waits for reactions). */
  start(): void {
    if (this.subscription) return;
    this.subscription = this.options.eventStore.appended$.subscribe(() => {
      for (const worker of this.workers) worker.wake();
    });
    for (const worker of this.workers) worker.start();
    for (const reaction of this.options.reactions) {
      reaction.start?.().catch((error: unknown) => {
        this.options.log?.error('a reaction could not start its own work', { reaction: reaction.name, error: String(error) });
      });
    }
  }

  /** Resolves once every reaction (or the one named) has handled the log up to `position` (tests, operators). */
  async waitFor(position: number, reaction?: string): Promise<void> {
    const workers = this.workers.filter((worker) => reaction === undefined || worker.name === reaction);
    await Promise.all(workers.map((worker) => worker.reached(position)));
  }

  status(): ReactionStatus[] {
    return this.workers.map((worker) => worker.status());
  }

  /** Stops every worker after its current delivery (at once while sleeping or backing off). */
  async stop(): Promise<void> {
    const wasStarted = this.subscription !== null;
    this.subscription?.unsubscribe();
    this.subscription = null;
    await Promise.all(this.workers.map((worker) => worker.stop()));
    if (wasStarted) await Promise.all(this.options.reactions.map((reaction) => reaction.stop?.()));
  }
}

/** Thrown to waiters when the runner stops before their position was reached. */
export class ReactionRunnerStopped extends Error {
  constructor() {
    super('the reaction runner was stopped');
    this.name = 'ReactionRunnerStopped';
  }
}

class ReactionWorker {
  private position = 0;
  private failing: ReactionFailure | null = null;
  private stopped = false;
  /** Set when stop() gave up waiting: nothing is recorded any more (the stores may be closing). */
  private abandoned = false;
  private running: Promise<void> | null = null;
  /** Set by a wake-up that came while the worker was busy, so the next sleep returns at once. */
  private woken = false;
  private readonly sleeper = new SleepTimer();
  private waiters: Array<{ position: number; resolve(): void; reject(error: Error): void }> = [];
  private readonly log: Log;
  private readonly batchSize: number;
  private readonly backOff: BackOff;
  private readonly gatherMs: number;

  constructor(
    private readonly reaction: Reaction,
    private readonly options: ReactionRunnerOptions,
  ) {
    this.log = options.log ?? silentLog;
    this.batchSize = options.batchSize ?? 500;
    this.backOff = options.backOff ?? DEFAULT_BACK_OFF;
    this.gatherMs = options.gatherMs ?? 20;
  }

  get name(): string {
    return this.reaction.name;
  }

  start(): void {
    // run() retries every failure itself; only a bug in the runner could reject it.
    this.running ??= this.run().catch((error: unknown) => {
      this.log.error('reaction worker ended', { reaction: this.reaction.name, error: String(error) });
    });
  }

  /** New events are visible: an idle worker reads them now (a worker backing off keeps its delay). */
  wake(): void {
    this.woken = true;
    this.sleeper.wakeIdle();
  }

  status(): ReactionStatus {
    // The runner's own steps first; while they succeed, a failure of the reaction's own work (its retries).
    const failing = this.failing ? { ...this.failing } : (this.reaction.ownFailure?.() ?? null);
    return { name: this.reaction.name, position: this.position, failing };
  }

  reached(position: number): Promise<void> {
    if (this.position >= position) return Promise.resolve();
    if (this.stopped) return Promise.reject(new ReactionRunnerStopped());
    return new Promise((resolve, reject) => this.waiters.push({ position, resolve, reject }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.sleeper.interrupt();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.stopGraceMs ?? 5_000)));
    await Promise.race([this.running, grace]);
    clearTimeout(timer);
    this.abandoned = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new ReactionRunnerStopped());
  }

  private async run(): Promise<void> {
    const resumed = await this.attempt('resume', () => this.resumePosition());
    if (resumed === STOPPED) return;
    this.advance(resumed);
    while (!this.stopped) {
      this.woken = false;
      const after = this.position;
      const events = await this.attempt('read', () => this.options.eventStore.readAll({ after, limit: this.batchSize }));
      if (events === STOPPED) return;
      if (events.length === 0) {
        await this.sleep(null);
        continue;
      }
      const wanted = events.filter((event) => this.wants(event));
      if (wanted.length > 0 && (await this.attempt('handle', () => this.reaction.handle(wanted), wanted)) === STOPPED) return;
      if (this.abandoned) return;
      const handled = events.at(-1)!.position;
      if ((await this.attempt('checkpoint', () => this.options.checkpoints.save(this.reaction.name, handled))) === STOPPED) return;
      this.advance(handled);
      // A batch that did not fill the limit: let the next one gather what arrives meanwhile. A full one:
      // let requests in before the next, or a catch-up over a long log holds the event loop for seconds
      // (its reads and decoding resolve without waiting on any I/O).
      if (events.length < this.batchSize) await this.sleep(this.gatherMs);
      else await nextTurn();
    }
  }

  /** The position to go on after: the stored checkpoint, or lower when the reaction says so. */
  private async resumePosition(): Promise<number> {
    const checkpoint = await this.options.checkpoints.position(this.reaction.name);
    return this.reaction.resumeAfter ? Math.min(checkpoint, await this.reaction.resumeAfter(checkpoint)) : checkpoint;
  }

  private wants(event: RecordedEvent): boolean {
    return this.reaction.types === undefined || this.reaction.types.includes(event.type);
  }

  /**
   * Runs `step` until it succeeds, backing off after each failure (recorded in `failing` and logged);
   * STOPPED when the worker is stopped first. `events`: the batch a failing handle was given (logged).
   */
  private async attempt<T>(step: ReactionStep, run: () => Promise<T>, events?: readonly RecordedEvent[]): Promise<T | typeof STOPPED> {
    while (!this.stopped) {
      try {
        const value = await run();
        if (this.failing) {
          this.log.info('reaction resumed', { reaction: this.reaction.name, step: this.failing.step, failedAttempts: this.failing.attempts });
          this.failing = null;
        }
        return value;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const since = this.failing?.step === step ? this.failing.since : (this.options.clock ?? Date.now)();
        this.failing = { step, error: message, since, attempts: this.failing?.step === step ? this.failing.attempts + 1 : 1 };
        this.log.warn('reaction failed; retrying with back-off', {
          reaction: this.reaction.name,
          step,
          ...(events ? { positions: `${events[0]!.position}-${events.at(-1)!.position}` } : {}),
          attempt: this.failing.attempts,
          error: message,
        });
        await this.sleep(this.delay());
      }
    }
    return STOPPED;
  }

  /** The back-off before the next attempt: doubling from initialMs, never above maxMs. */
  private delay(): number {
    const exponent = Math.min((this.failing?.attempts ?? 1) - 1, 30);
    return Math.min(this.backOff.maxMs, this.backOff.initialMs * 2 ** exponent);
  }

  /** Sleeps `ms` (null: until woken by new events); returns early when woken or stopped. */
  private sleep(ms: number | null): Promise<void> {
    if (this.stopped || (ms === null && this.woken)) return Promise.resolve();
    return this.sleeper.sleep(ms);
  }

  private advance(position: number): void {
    this.position = position;
    const due = this.waiters.filter((waiter) => waiter.position <= position);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((waiter) => waiter.position > position);
    for (const waiter of due) waiter.resolve();
  }
}
