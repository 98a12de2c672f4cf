// The cold folds of one project history run one at a time (a fold is CPU and memory, never I/O wait: a
// second one at once only doubles the memory and halves the speed of both); the ones asked meanwhile wait
// in order, up to `capacity` of them. One more is refused at once with 503 `server_under_load` and a
// `Retry-After` of the expected wait (the folds ahead of it times the recent duration of one), so that a
// stream of cold `as_of_version` requests costs a bounded queue, never an unbounded pile of folds.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DomainError } from '../../domain/errors.js';

/** The duration a fold is assumed to take before one has run. */
const FIRST_GUESS_MS = 1000;
/** The longest `Retry-After` given. */
const MAX_RETRY_AFTER_SECONDS = 60;

export class FoldQueue {
  private running = false;
  private readonly waiting: Array<{ start(): void; fail(error: Error): void }> = [];
  /** Moving average of the recent folds' durations. */
  private averageMs = FIRST_GUESS_MS;
  private closed = false;

  /** `capacity`: folds that may wait while one runs (0: none waits; Infinity: no bound). */
  constructor(private readonly capacity: number) {
    if (!(capacity === Infinity || (Number.isSafeInteger(capacity) && capacity >= 0))) throw new Error('a fold queue capacity is a whole number of 0 or more');
  }

  /** Folds running or waiting. */
  get size(): number {
    return this.waiting.length + (this.running ? 1 : 0);
  }

  /**
   * Runs `fold` once the folds before it have run. Throws (synchronously) the 503 refusal when
   * `capacity` folds already wait, so that a caller shares nothing refused.
   */
  run<T>(fold: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the project history is closed');
    if (this.running && this.waiting.length >= this.capacity) throw this.refusal();
    return this.turn().then(async () => {
      const started = performance.now();
      try {
        return await fold();
      } finally {
        this.averageMs = 0.7 * this.averageMs + 0.3 * (performance.now() - started);
        this.next();
      }
    });
  }

  /** Fails the folds still waiting; the running one finishes. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.fail(new Error('the project history is closed'));
  }

  private async turn(): Promise<void> {
    if (!this.running) {
      this.running = true;
      return;
    }
    await new Promise<void>((start, fail) => this.waiting.push({ start, fail }));
  }

  /** Hands the turn to the next fold waiting, after a turn of the event loop (answers go out between folds). */
  private next(): void {
    const waiter = this.waiting.shift();
    if (!waiter) {
      this.running = false;
      return;
    }
    void nextTurn().then(() => waiter.start());
  }

  private refusal(): DomainError {
    const seconds = Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(((this.waiting.length + 1) * this.averageMs) / 1000)));
    return new DomainError(
      'server_under_load',
      {
        general_problem: 'Too many past versions of projects are being computed at once: this one was not.',
        possible_fix: `Retry in ${seconds} seconds (Retry-After), or ask without as_of_version / as_of.`,
      },
      { retryAfterSeconds: seconds },
    );
  }
}
