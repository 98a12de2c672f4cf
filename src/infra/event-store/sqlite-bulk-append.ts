// Appending an export's events into an embedded log, as `storyline import` does: events already encoded
// (the export holds the stored JSON text), each continuing its stream, written in ONE transaction per
// batch without the per-append savepoint, idempotency lookup and promise of EventStore.append. The chain
// hash is still computed here by the codec's chainHash, from the stream's stored head, like any append.
import type Database from 'better-sqlite3';
import { GENESIS_HASH, chainHash, type EncodedEvent } from '../event-codec.js';

/** An event to append at the end of its stream, with the id its original append gave it. */
export interface EncodedStreamEvent extends EncodedEvent {
  id: string;
  stream: string;
  /** Must be the stream's current version + 1. */
  version: number;
}

/** Returns the writer of one batch; it throws (writing nothing of the batch) when an event does not continue its stream. */
export function bulkAppender(db: Database.Database): (events: readonly EncodedStreamEvent[]) => void {
  const head = db.prepare<[], number | null>('SELECT MAX(position) FROM events').pluck(true);
  const streamHead = db.prepare<[string], { version: number; hash: string | null }>(
    'SELECT version, hash FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1',
  );
  const insert = db.prepare<[number, string, string, number, string, string, string, string]>(
    'INSERT INTO events (position, id, stream, version, type, data, meta, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return db.transaction((events: readonly EncodedStreamEvent[]) => {
    let position = head.get() ?? 0;
    const heads = new Map<string, { version: number; hash: string }>();
    for (const event of events) {
      let previous = heads.get(event.stream);
      if (!previous) {
        const stored = streamHead.get(event.stream);
        previous = { version: stored?.version ?? 0, hash: stored?.hash ?? GENESIS_HASH };
        heads.set(event.stream, previous);
      }
      if (event.version !== previous.version + 1) {
        throw new Error(`${event.stream} is at version ${previous.version}: cannot append version ${event.version}`);
      }
      previous.version = event.version;
      previous.hash = chainHash(previous.hash, event.stream, event.version, event);
      insert.run(++position, event.id, event.stream, event.version, event.type, event.data, event.meta, previous.hash);
    }
  }).immediate;
}
