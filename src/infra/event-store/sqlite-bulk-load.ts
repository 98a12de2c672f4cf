// `storyline import`'s writer: an export's events loaded into a FRESH embedded log file, which ends with
// exactly the schema openSqliteEventStore creates (same table text, same UNIQUE indexes, same names).
//
// Why not the store's own table from the start: its UNIQUE indexes on `id` (ids derived from command ids)
// and on (stream, version) (streams interleave in global order) take every row in random key order,
// which at a million events cost more than the rest of the import together. So the load
//   1. creates the store's schema (SCHEMA, then the hash-chain upgrade's index) and notes it;
//   2. drops the still empty table and creates it again without its UNIQUE constraints (same columns,
//      types, NOT NULL and INTEGER PRIMARY KEY, so every row is stored as the store stores it);
//   3. appends the rows in position order, one transaction per batch, each continuing its stream;
//   4. builds each UNIQUE index with CREATE UNIQUE INDEX (SQLite sorts the keys: one pass) - a duplicate
//      id is found here and reported, nothing is left half-built - and the other indexes after them;
//   5. writes the noted table text and index names back into sqlite_schema (writable_schema), so the
//      indexes become the table's own constraint indexes again, reloads the schema and checks that it
//      is, row for row, the one noted in 1 (and each index's columns and collation too).
// The rollback journal is kept in memory and commits are not synced: `storyline import` runs under its
// unfinished-import mark (a crash leaves a directory every command refuses) and syncs the file once
// the load is closed; the file is switched to WAL, as the store keeps it, before it is closed.
import Database from 'better-sqlite3';
import type { EncodedEvent } from '../event-codec.js';
import { SCHEMA } from './sqlite-event-store.js';
import { upgradeToHashChain } from './sqlite-hash-chain.js';

/** An event to append at the end of its stream, with the id its original append gave it and its verified chain hash. */
export interface EncodedStreamEvent extends EncodedEvent {
  id: string;
  stream: string;
  /** Must be the stream's current version + 1. */
  version: number;
  /** chainHash over the stream's previous hash and this event, checked by the caller (chain-verifier.ts). */
  hash: string;
}

export interface SqliteBulkLoad {
  /**
   * Appends a batch in one transaction; throws (writing nothing of the batch) when an event does not
   * continue its stream. The hashes are the caller's: only an import that verified the whole chain from
   * each stream's first event may use it.
   */
  append(events: readonly EncodedStreamEvent[]): void;
  /**
   * Builds the indexes and gives the log the store's schema back. Returns what stops the load (two
   * events with the same id, or the same stream and version), or null once the log is the store's.
   */
  finish(): string | null;
  close(): void;
}

/** The page cache of the load (KiB): CREATE INDEX sorts a million keys in it. */
const BULK_LOAD_CACHE_KIB = 256 * 1024;

const TABLE = 'events';

interface SchemaRow {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
  hidden: number;
}

interface IndexColumn {
  name: string | null;
  desc: number;
  coll: string;
  key: number;
}

/**
 * What the load rebuilds: sqlite_schema in its order (other tables of the file, such as the install
 * identity, are left as they are), the table's columns and indexes, each constraint index's key.
 */
interface NotedSchema {
  rows: SchemaRow[];
  columns: ColumnInfo[];
  indexes: unknown[];
  constraintIndexes: Map<string, IndexColumn[]>;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

function schemaRows(db: Database.Database): SchemaRow[] {
  return db.prepare<[], SchemaRow>('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid').all();
}

const tableColumns = (db: Database.Database) => db.pragma(`table_xinfo(${TABLE})`) as ColumnInfo[];
/** Each index of the table with its origin: 'u' for a UNIQUE constraint's own index. */
const tableIndexes = (db: Database.Database) => db.pragma(`index_list(${TABLE})`) as unknown[];
const indexKey = (db: Database.Database, index: string) =>
  (db.pragma(`index_xinfo(${quoted(index)})`) as IndexColumn[]).filter((column) => column.key === 1);

function notedSchema(db: Database.Database): NotedSchema {
  const rows = schemaRows(db);
  const constraintIndexes = new Map(rows.filter((row) => row.type === 'index' && row.tbl_name === TABLE && row.sql === null).map((row) => [row.name, indexKey(db, row.name)]));
  return { rows, columns: tableColumns(db), indexes: tableIndexes(db), constraintIndexes };
}

/** The table with the noted columns and none of its UNIQUE constraints. */
function unconstrainedTable(columns: readonly ColumnInfo[]): string {
  const keys = columns.filter((column) => column.pk > 0);
  if (keys.length !== 1 || keys[0]!.type !== 'INTEGER' || columns.some((column) => column.dflt_value !== null || column.hidden !== 0)) {
    throw new Error(`a bulk load needs ${TABLE} keyed by an INTEGER PRIMARY KEY, without defaults or hidden columns`);
  }
  const definitions = columns.map(
    (column) => `${quoted(column.name)} ${column.type}${column.pk > 0 ? ' PRIMARY KEY' : ''}${column.notnull ? ' NOT NULL' : ''}`,
  );
  return `CREATE TABLE ${TABLE} (${definitions.join(', ')})`;
}

const keyText = (key: readonly IndexColumn[]) =>
  key.map((column) => `${quoted(column.name!)} COLLATE ${column.coll}${column.desc ? ' DESC' : ''}`).join(', ');

const isUniqueViolation = (error: unknown) => (error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE';

/** The first key two events share, and which events they are. */
function duplicateKey(db: Database.Database, key: readonly IndexColumn[]): string {
  const columns = key.map((column) => quoted(column.name!));
  const shared = db.prepare(`SELECT ${columns.join(', ')} FROM ${TABLE} GROUP BY ${columns.join(', ')} HAVING COUNT(*) > 1 LIMIT 1`).raw(true).get() as unknown[];
  const holders = db
    .prepare<unknown[], { stream: string; version: number }>(
      `SELECT stream, version FROM ${TABLE} WHERE ${columns.map((column) => `${column} = ?`).join(' AND ')} ORDER BY rowid LIMIT 2`,
    )
    .all(...shared);
  const names = key.map((column) => column.name).join(', ');
  return `two events have the same ${names} (${shared.join(', ')}): ${holders.map((event) => `${event.stream} version ${event.version}`).join(' and ')}`;
}

/** Opens `path` (a file that must not hold events yet, or ':memory:') for one load. */
export function openSqliteBulkLoad(path: string): SqliteBulkLoad {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = MEMORY');
    db.pragma('synchronous = OFF');
    db.pragma(`cache_size = -${BULK_LOAD_CACHE_KIB}`);
    db.exec(SCHEMA);
    upgradeToHashChain(db);
    if (db.prepare(`SELECT EXISTS (SELECT 1 FROM ${TABLE})`).pluck(true).get()) throw new Error('a bulk load needs an empty log');
    const noted = notedSchema(db);
    db.transaction(() => {
      db.exec(`DROP TABLE ${TABLE}`);
      db.exec(unconstrainedTable(noted.columns));
    })();
    if (JSON.stringify(tableColumns(db)) !== JSON.stringify(noted.columns)) throw new Error(`the unconstrained ${TABLE} table does not store rows as the store's does`);
    return bulkLoad(db, noted);
  } catch (error) {
    db.close();
    throw error;
  }
}

function bulkLoad(db: Database.Database, noted: NotedSchema): SqliteBulkLoad {
  const insert = db.prepare<[number, string, string, number, string, string, string, string]>(
    `INSERT INTO ${TABLE} (position, id, stream, version, type, data, meta, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  /** Each stream's version so far (the table has no index to ask): one entry per stream. */
  const versions = new Map<string, number>();
  let head = 0;
  const insertBatch = db.transaction((events: readonly EncodedStreamEvent[]) => {
    events.forEach((event, index) => insert.run(head + index + 1, event.id, event.stream, event.version, event.type, event.data, event.meta, event.hash));
  });

  function append(events: readonly EncodedStreamEvent[]): void {
    const reached = new Map<string, number>();
    for (const event of events) {
      const previous = reached.get(event.stream) ?? versions.get(event.stream) ?? 0;
      if (event.version !== previous + 1) throw new Error(`${event.stream} is at version ${previous}: cannot append version ${event.version}`);
      reached.set(event.stream, event.version);
    }
    insertBatch.immediate(events);
    head += events.length;
    for (const [stream, version] of reached) versions.set(stream, version);
  }

  function finish(): string | null {
    let n = 0;
    const renames = new Map<string, string>();
    for (const row of noted.rows) {
      if (row.type !== 'index' || row.tbl_name !== TABLE) continue;
      if (row.sql !== null) {
        db.exec(row.sql);
        continue;
      }
      const key = noted.constraintIndexes.get(row.name)!;
      const built = `bulk_load_index_${++n}`;
      try {
        db.exec(`CREATE UNIQUE INDEX ${built} ON ${TABLE} (${keyText(key)})`);
      } catch (error) {
        if (isUniqueViolation(error)) return duplicateKey(db, key);
        throw error;
      }
      renames.set(built, row.name);
    }
    restoreSchemaText(db, noted.rows.find((row) => row.type === 'table' && row.name === TABLE)!.sql!, renames);
    assertSchemaIs(db, noted);
    db.pragma('journal_mode = WAL');
    return null;
  }

  return { append, finish, close: () => db.close() };
}

/** Gives the table its noted text and the built indexes their constraint names, then reloads the schema. */
function restoreSchemaText(db: Database.Database, tableSql: string, renames: ReadonlyMap<string, string>): void {
  db.unsafeMode(true);
  db.pragma('writable_schema = ON');
  try {
    db.transaction(() => {
      db.prepare("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?").run(tableSql, TABLE);
      const rename = db.prepare("UPDATE sqlite_schema SET name = ?, sql = NULL WHERE type = 'index' AND name = ?");
      for (const [built, constraint] of renames) rename.run(constraint, built);
    })();
  } finally {
    db.pragma('writable_schema = RESET');
    db.unsafeMode(false);
  }
}

/** Throws unless the schema, as SQLite now reads it, is the noted one (rows, columns, indexes and their origins, each constraint index's key). */
function assertSchemaIs(db: Database.Database, noted: NotedSchema): void {
  const same =
    JSON.stringify(schemaRows(db)) === JSON.stringify(noted.rows) &&
    JSON.stringify(tableColumns(db)) === JSON.stringify(noted.columns) &&
    JSON.stringify(tableIndexes(db)) === JSON.stringify(noted.indexes) &&
    [...noted.constraintIndexes].every(([name, key]) => JSON.stringify(indexKey(db, name)) === JSON.stringify(key));
  if (!same) throw new Error(`the bulk-loaded ${TABLE} table did not get the store's schema back`);
}
