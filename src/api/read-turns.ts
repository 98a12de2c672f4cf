// Turns of the GETs that compute their answer (not served from the byte cache). Their reads of the
// embedded stores are synchronous, and from a cold disk a page holds the one event loop for a random
// read per document it shows: several started in one turn of the loop would hold every write's next
// step (its append confirmed, its projections applied) behind all of them, and under a mixed load writes
// would wait for seconds. Here each takes its turn in a turn of the event loop of its own (setImmediate),
// one after the other: what waits on I/O meanwhile (a write's next step, a cached answer, a new request)
// goes between two of them. Writes and cached answers take no turn.

export class ReadTurns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Resolves when the caller's turn has come: at most one a turn of the event loop, in the order asked. */
  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Turns asked for and not yet given. */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()!();
      this.schedule();
    });
  }
}
