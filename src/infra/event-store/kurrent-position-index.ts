// Maps KurrentDB log positions ($all commit/prepare pairs, sparse and large) to the port's 1-based,
// gap-free global positions: the n-th non-system event of $all has position n.
//
// Limits, honestly: the index lives in memory (one entry per event) and is rebuilt by reading the whole
// of $all once at start-up. Numbering is consistent between processes only while $all is append-only
// for them: deleting or truncating a stream followed by a scavenge, or writing non-Storyline events to
// the same database, shifts or inflates the numbering. A dedicated database without scavenges is
// therefore required; readAll (kurrent-event-store.ts) detects a mismatch and fails loudly.

export interface LogPosition {
  commit: bigint;
  prepare: bigint;
}

/** Reads the positions of the non-system events of $all from `from` (inclusive), or from the start. */
export type ReadLogPositions = (from: LogPosition | null) => AsyncIterable<LogPosition>;

export function compareLogPositions(a: LogPosition, b: LogPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export class KurrentPositionIndex {
  private readonly positions: LogPosition[] = [];
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly readPositions: ReadLogPositions) {}

  /** The global position of the newest indexed event (0 when none). */
  get head(): number {
    return this.positions.length;
  }

  /**
   * Indexes every event written before this call. A caller arriving during a read waits for a fresh
   * read after it (which it shares with everyone else arriving meanwhile), so nothing it wrote is missed.
   */
  catchUp(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    this.queued = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.start();
      });
    return this.queued;
  }

  /** The log position of global position `position` (1-based), if indexed. */
  logPositionOf(position: number): LogPosition | undefined {
    return this.positions[position - 1];
  }

  /** The global position of an event at `logPosition`, catching up first if it is newer than the index. */
  async positionOf(logPosition: LogPosition): Promise<number> {
    const known = this.search(logPosition);
    if (known !== null) return known;
    await this.catchUp();
    const caughtUp = this.search(logPosition);
    if (caughtUp === null) {
      throw new Error(`KurrentDB log position ${logPosition.commit}/${logPosition.prepare} is not a Storyline event`);
    }
    return caughtUp;
  }

  private start(): Promise<void> {
    const run: Promise<void> = this.readNew().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  private async readNew(): Promise<void> {
    const last = this.positions.at(-1) ?? null;
    for await (const position of this.readPositions(last)) {
      const newest = this.positions.at(-1);
      if (newest && compareLogPositions(position, newest) <= 0) continue;
      this.positions.push(position);
    }
  }

  private search(logPosition: LogPosition): number | null {
    let low = 0;
    let high = this.positions.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const order = compareLogPositions(this.positions[middle]!, logPosition);
      if (order === 0) return middle + 1;
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return null;
  }
}
