// Where a reaction that keeps documents of its own in the read store has applied the log up to, stored
// beside them as `{ id: 1, position }` and written in the same atomic write, so the two never disagree:
// events at or before it are skipped (a redelivered batch is a no-op), and when the documents are lost
// (read models in memory, readmodels.sqlite deleted) it reads 0 and the reaction's `resumeAfter` has the
// runner replay the log into them.
import type { RecordedEvent } from '../domain/events.js';
import type { CollectionWrites, IndexSpec } from '../ports/read-store.js';
import type { ReactionStore } from './reaction.js';

export interface ReactionProgress {
  /** The last position applied (0 when none is stored); the reaction's indexes are made first. */
  applied(): Promise<number>;
  /** The events of a batch after the applied position. */
  fresh(events: readonly RecordedEvent[]): Promise<RecordedEvent[]>;
  /** The write recording `position`, for the batch's atomic write. */
  recorded(position: number): CollectionWrites;
}

/** `indexes`: the reaction's own documents' indexes, made once before its first read of them. */
export function reactionProgress(own: ReactionStore, collection: string, indexes: { collection: string; fields: IndexSpec[] }): ReactionProgress {
  const progress = own.collection(collection);
  let indexed: Promise<void> | null = null;
  const applied = async () => {
    // A failure (a full disk) is not kept: the runner's retry of `resume` makes the indexes again.
    indexed ??= own.collection(indexes.collection).ensureIndexes(indexes.fields).catch((error: unknown) => {
      indexed = null;
      throw error;
    });
    await indexed;
    const doc = await progress.findOne({ id: 1 });
    return typeof doc?.['position'] === 'number' ? doc['position'] : 0;
  };
  return {
    applied,
    async fresh(events) {
      const position = await applied();
      return events.filter((event) => event.position > position);
    },
    recorded: (position) => ({ collection, ops: [{ op: 'replace', filter: { id: 1 }, doc: { id: 1, position }, upsert: true }] }),
  };
}
