// The turns of the snapshot builder's worker (snapshot-builder-worker.ts): one build at a time, a build a
// command waits for before the sweep's next, and the close as the last turn. Once the close is asked for,
// the builds still waiting are refused (TurnsClosed) and none starts any more: a sweep's build queued
// behind a command's would otherwise run after the close, on files already closed.

/** Thrown to the builds refused (or stopped between two pages) once the close was asked for. */
export class TurnsClosed extends Error {
  constructor() {
    super('the snapshot builder is closing');
    this.name = 'TurnsClosed';
  }
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

export class BuildTurns {
  private busy = false;
  private closed = false;
  private readonly urgent: Waiter[] = [];
  private readonly background: Waiter[] = [];

  /** Whether the close was asked for: a build under way stops at its next page. */
  get closing(): boolean {
    return this.closed;
  }

  /** Runs `build` in its turn (an urgent one before every waiting background one); rejects with TurnsClosed once closing. */
  async take<T>(urgent: boolean, build: () => Promise<T>): Promise<T> {
    if (this.closed) throw new TurnsClosed();
    await this.turn(urgent);
    return this.run(build);
  }

  /** Refuses every build waiting and every later one, then runs `work` after the build under way. */
  async last<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) throw new TurnsClosed();
    this.closed = true;
    for (const waiter of [...this.urgent.splice(0), ...this.background.splice(0)]) waiter.reject(new TurnsClosed());
    await this.turn(true);
    return this.run(work);
  }

  private turn(urgent: boolean): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => (urgent ? this.urgent : this.background).push({ resolve, reject }));
  }

  private async run<T>(build: () => Promise<T>): Promise<T> {
    try {
      return await build();
    } finally {
      // The turn is handed over as it is (still busy), or ends.
      const next = this.urgent.shift() ?? this.background.shift();
      if (next) next.resolve();
      else this.busy = false;
    }
  }
}
