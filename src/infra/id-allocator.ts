// Integer ids unique per resource kind across all projects, handed out from blocks that are reserved by
// appending to the kind's id stream with optimistic concurrency, so several server processes (or the
// CLI beside a running server) never hand out the same id. A decision that needs more ids than a block
// holds reserves one block of at least that many (`reserve`), so any decision can be served.
import { randomUUID } from 'node:crypto';
import { EVENT_SCHEMA, streams, type NewEvent } from '../domain/events.js';
import type { IdKind } from '../domain/decision.js';
import { WrongExpectedVersion, type EventStore } from '../ports/event-store.js';

interface Block {
  next: number;
  last: number;
}

export interface IdAllocatorOptions {
  blockSize?: number;
  /** Bound on retries when other processes reserve blocks of the same kind at the same time. */
  maxAttempts?: number;
}

/** Waits for another caller's reservation before reserving a block of one's own (bounded). */
const MAX_SHARED_WAITS = 3;

export class IdAllocator {
  private readonly blocks = new Map<IdKind, Block>();
  private readonly reservations = new Map<IdKind, Promise<void>>();
  private readonly blockSize: number;
  private readonly maxAttempts: number;

  constructor(
    private readonly eventStore: EventStore,
    options: IdAllocatorOptions = {},
  ) {
    this.blockSize = options.blockSize ?? 100;
    this.maxAttempts = options.maxAttempts ?? 50;
  }

  /** The next id of a kind from the reserved block, or null when the block is used up. */
  take(kind: IdKind): number | null {
    const block = this.blocks.get(kind);
    if (!block || block.next > block.last) return null;
    return block.next++;
  }

  /** How many ids of a kind the current block still holds. */
  available(kind: IdKind): number {
    const block = this.blocks.get(kind);
    return block ? block.last - block.next + 1 : 0;
  }

  /**
   * Makes at least `count` ids of a kind available in the current block: waits for a reservation already
   * under way, else reserves one new block of max(block size, count) ids (what is left of the old block
   * is skipped). Resolves with the ids available; callers that share the allocator may take some before
   * the caller runs again, so the caller checks `available` and asks again (bounded) when short.
   */
  async reserve(kind: IdKind, count: number): Promise<number> {
    if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`cannot reserve ${count} ${kind} ids`);
    for (let wait = 0; wait < MAX_SHARED_WAITS && this.available(kind) < count; wait++) {
      const pending = this.reservations.get(kind);
      if (!pending) break;
      await pending;
    }
    if (this.available(kind) >= count) return this.available(kind);
    const reservation = this.reserveBlock(kind, Math.max(this.blockSize, count)).finally(() => this.reservations.delete(kind));
    this.reservations.set(kind, reservation);
    await reservation;
    return this.available(kind);
  }

  /**
   * Takes one id, reserving a block first when needed. Bounded: many callers waiting at once share each
   * new block, so a caller may wait for several blocks, at most `maxAttempts`.
   */
  async next(kind: IdKind): Promise<number> {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const id = this.take(kind);
      if (id !== null) return id;
      await this.reserve(kind, 1);
    }
    const id = this.take(kind);
    if (id === null) throw new Error(`no ${kind} id left after ${this.maxAttempts} reservations`);
    return id;
  }

  private async reserveBlock(kind: IdKind, size: number): Promise<void> {
    const stream = streams.ids(kind);
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const [last] = await this.eventStore.readStream(stream, { direction: 'backwards', limit: 1 });
      const version = last?.version ?? 0;
      const previousLast = last ? Number(last.data.changes[0]?.new_values?.['last'] ?? 0) : 0;
      const first = previousLast + 1;
      const lastId = previousLast + size;
      try {
        await this.eventStore.append(stream, version, [blockEvent(kind, first, lastId)]);
        this.blocks.set(kind, { next: first, last: lastId });
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedVersion)) throw error;
      }
    }
    throw new Error(`could not reserve a block of ${kind} ids after ${this.maxAttempts} attempts`);
  }
}

function blockEvent(kind: IdKind, first: number, last: number): NewEvent {
  return {
    type: 'id_block_reserve',
    data: {
      changes: [{ kind: 'id_block', change_type: 'create', id: first, new_values: { kind_of_id: kind, first, last } }],
      primary_resources: [],
    },
    meta: { schema: EVENT_SCHEMA, occurred_at: Date.now(), performed_by: null, command_id: randomUUID() },
  };
}
