// Appending an export's events into an embedded log, as `storyline import` does: events already encoded
// (the export holds the stored JSON text) and already checked against their chain (the import's
// ChainVerifier computed each hash once with the codec's chainHash, from the first event of every
// stream), each continuing its stream, written in ONE transaction per batch without the per-append
// savepoint, idempotency lookup and promise of EventStore.append.
import type Database from 'better-sqlite3';
import type { EncodedEvent } from '../event-codec.js';

/** An event to append at the end of its stream, with the id its original append gave it and its verified chain hash. */
export interface EncodedStreamEvent extends EncodedEvent {
  id: string;
  stream: string;
  /** Must be the stream's current version + 1. */
  version: number;
  /** chainHash over the stream's previous hash and this event, checked by the caller (chain-verifier.ts). */
  hash: string;
}

/**
 * Returns the writer of one batch; it throws (writing nothing of the batch) when an event does not
 * continue its stream. The hashes are the caller's: only an import that verified the whole chain from
 * each stream's first event into an empty log may use it.
 */
export function bulkAppender(db: Database.Database): (events: readonly EncodedStreamEvent[]) => void {
  const head = db.prepare<[], number | null>('SELECT MAX(position) FROM events').pluck(true);
  const streamVersion = db.prepare<[string], number | null>('SELECT MAX(version) FROM events WHERE stream = ?').pluck(true);
  const insert = db.prepare<[number, string, string, number, string, string, string, string]>(
    'INSERT INTO events (position, id, stream, version, type, data, meta, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return db.transaction((events: readonly EncodedStreamEvent[]) => {
    let position = head.get() ?? 0;
    const versions = new Map<string, number>();
    for (const event of events) {
      const previous = versions.get(event.stream) ?? streamVersion.get(event.stream) ?? 0;
      if (event.version !== previous + 1) {
        throw new Error(`${event.stream} is at version ${previous}: cannot append version ${event.version}`);
      }
      versions.set(event.stream, event.version);
      insert.run(++position, event.id, event.stream, event.version, event.type, event.data, event.meta, event.hash);
    }
  }).immediate;
}
