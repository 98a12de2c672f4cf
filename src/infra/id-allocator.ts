// Integer ids unique per resource kind across all projects, handed out from blocks that are reserved by
// appending to the kind's id stream with optimistic concurrency, so several server processes (or the
// CLI beside a running server) never hand out the same id.
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

export class IdAllocator {
  private readonly blocks = new Map<IdKind, Block>();
  private readonly refills = new Map<IdKind, Promise<void>>();
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

  /** Reserves a new block for a kind unless one is already being reserved. */
  refill(kind: IdKind): Promise<void> {
    let pending = this.refills.get(kind);
    if (!pending) {
      pending = this.reserveBlock(kind).finally(() => this.refills.delete(kind));
      this.refills.set(kind, pending);
    }
    return pending;
  }

  /** Takes one id, reserving a block first when needed. */
  async next(kind: IdKind): Promise<number> {
    for (;;) {
      const id = this.take(kind);
      if (id !== null) return id;
      await this.refill(kind);
    }
  }

  private async reserveBlock(kind: IdKind): Promise<void> {
    const stream = streams.ids(kind);
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const [last] = await this.eventStore.readStream(stream, { direction: 'backwards', limit: 1 });
      const version = last?.version ?? 0;
      const previousLast = last ? Number(last.data.changes[0]?.new_values?.['last'] ?? 0) : 0;
      const first = previousLast + 1;
      const lastId = previousLast + this.blockSize;
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
