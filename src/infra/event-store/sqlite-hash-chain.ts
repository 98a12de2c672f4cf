// The upgrade of an embedded log written before events carried chain hashes: adds the `hash` column and
// chains every unhashed event from its stream's first event on, in global order, in one pass at open.
//
// It runs inside one IMMEDIATE transaction, so a second process opening the same file waits for it and
// then finds nothing left to do, and a crash leaves the log as it was. Memory is bounded: rows are read
// in batches through a partial index of the unhashed rows (empty once upgraded, so a normal open costs
// one index probe), and each predecessor hash is read back from its row.
import type Database from 'better-sqlite3';
import { GENESIS_HASH, chainHash } from '../event-codec.js';

const UPGRADE_BATCH = 5_000;

type UnchainedRow = [number, string, number, string, string, string];

/** Makes every event of the log carry its chain hash; returns how many events it chained. */
export function upgradeToHashChain(db: Database.Database): number {
  return db
    .transaction((): number => {
      const columns = db.pragma('table_info(events)') as { name: string }[];
      if (!columns.some((column) => column.name === 'hash')) db.exec('ALTER TABLE events ADD COLUMN hash TEXT');
      db.exec('CREATE INDEX IF NOT EXISTS events_unchained ON events (position) WHERE hash IS NULL');
      const unchained = db
        .prepare<[number], UnchainedRow>(
          'SELECT position, stream, version, type, data, meta FROM events WHERE hash IS NULL ORDER BY position LIMIT ?',
        )
        .raw(true);
      const predecessorHash = db
        .prepare<[string, number], string | null>('SELECT hash FROM events WHERE stream = ? AND version = ?')
        .pluck(true);
      const setHash = db.prepare<[string, number]>('UPDATE events SET hash = ? WHERE position = ?');
      let chained = 0;
      for (let rows = unchained.all(UPGRADE_BATCH); rows.length > 0; rows = unchained.all(UPGRADE_BATCH)) {
        for (const [position, stream, version, type, data, meta] of rows) {
          const previous = version === 1 ? GENESIS_HASH : predecessorHash.get(stream, version - 1);
          if (previous === undefined || previous === null) {
            throw new Error(`cannot chain ${stream}@${version}: event ${version - 1} of the stream is missing`);
          }
          setHash.run(chainHash(previous, stream, version, { type, data, meta }), position);
          chained++;
        }
      }
      return chained;
    })
    .immediate();
}

/**
 * The codec's chainRest(stream, version, type, data, meta) written by the database: json_quote writes a
 * stream name or type as JSON.stringify does for every name the log holds. It only saves verify work:
 * an event whose hash does not match this text is checked again with the codec's own chainRest.
 */
export const CHAIN_REST_SQL = `',' || json_quote(stream) || ',' || version || ',' || json_quote(type) || ']' || char(10) || data || char(10) || meta`;

/** One event as `storyline verify` reads it: position, stream, version, hash and its chainRest. */
export type ChainRestRow = [number, string, number, string, string];

/** The log's events after `after`, in global order, as ChainRestRows. */
export const CHAIN_RESTS_SQL = `SELECT position, stream, version, hash, ${CHAIN_REST_SQL} FROM events WHERE position > ? ORDER BY position ASC LIMIT ?`;
