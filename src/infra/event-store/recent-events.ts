// The tail of the log this process has just appended, decoded once and kept in memory, so that the
// readers that follow the log (the projector, the reactions) take what a commit wrote without reading
// it back from SQLite and decoding it again each. A write used to cost one read of the log per follower.
//
// - It holds one gap-free run of positions: an append whose first position does not follow the last
//   held one (another process appended in between) starts the run afresh.
// - A read is answered from it only when the run covers the position right after `after`; anything
//   else (an older position, or nothing new held) is read from the file as before. The store asks it
//   only while the run ends at the file's head, so what another process appended after the run is
//   never hidden.
// - Bounded: at most `capacity` events, the oldest dropped first.
// - The events are shared between the readers, as decoded objects: RecordedEvents are read-only by
//   contract (projections and reactions derive from them, never change them).
import type { RecordedEvent } from '../../domain/events.js';

export class RecentEvents {
  private events: RecordedEvent[] = [];
  /** Index in `events` of the oldest event held (dropped ones are cut off in chunks). */
  private start = 0;

  constructor(private readonly capacity: number) {
    if (!(Number.isSafeInteger(capacity) && capacity > 0)) throw new Error('capacity must be a positive integer');
  }

  /** Adds events just committed, in position order. */
  add(appended: readonly RecordedEvent[]): void {
    if (appended.length === 0) return;
    const last = this.lastPosition();
    if (last === null || appended[0]!.position !== last + 1) this.clear();
    for (const event of appended) this.events.push(event);
    this.start = Math.max(this.start, this.events.length - this.capacity);
    if (this.start >= this.capacity) {
      this.events = this.events.slice(this.start);
      this.start = 0;
    }
  }

  /** Up to `limit` (negative: no limit) events after position `after`, or null when the run does not hold the next one. */
  after(after: number, limit: number): RecordedEvent[] | null {
    const first = this.first();
    const last = this.lastPosition();
    if (first === null || last === null || after + 1 < first || after >= last) return null;
    const from = this.start + (after + 1 - first);
    return this.events.slice(from, limit < 0 ? undefined : from + limit);
  }

  clear(): void {
    this.events = [];
    this.start = 0;
  }

  private first(): number | null {
    return this.start < this.events.length ? this.events[this.start]!.position : null;
  }

  /** The position of the newest event held (null: none). */
  lastPosition(): number | null {
    return this.start < this.events.length ? this.events[this.events.length - 1]!.position : null;
  }
}
