// The two halves of an embedded install, `events.sqlite` (the log) and `credentials.sqlite` (password
// hashes, token digests), carry the same random install id, written into both when the install is
// created. Before the stores open, the pair is checked: a missing, emptied or foreign half, or a file
// that is not a database, stops start-up with what is wrong and how to recover, instead of starting as
// a new install beside old credentials or locking every person out. Data directories from before the
// identity existed get it written when both halves hold data (upgrade).
import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { OperatorError } from './operator-error.js';

const IDENTITY_SCHEMA = `CREATE TABLE IF NOT EXISTS storyline_identity (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  install_id TEXT NOT NULL
)`;

export interface StoreFiles {
  events: string;
  credentials: string;
}

/** What start-up found, for the log. */
export type IdentityOutcome = 'created' | 'upgraded' | 'matched';

interface StoreHalf {
  name: string;
  path: string;
  identity: string | null;
  holdsData: boolean;
}

type DataProbe = (db: Database.Database, tables: ReadonlySet<string>) => boolean;

const eventsHoldData: DataProbe = (db, tables) => tables.has('events') && db.prepare('SELECT 1 FROM events LIMIT 1').get() !== undefined;

const credentialsHoldData: DataProbe = (db, tables) =>
  (tables.has('person_credentials') && db.prepare('SELECT 1 FROM person_credentials LIMIT 1').get() !== undefined) ||
  (tables.has('server_secret') && db.prepare('SELECT 1 FROM server_secret LIMIT 1').get() !== undefined);

/** Checks (and on a new or pre-identity install, writes) the install id shared by the two files. */
export function checkStoreIdentity(files: StoreFiles): IdentityOutcome {
  const events = inspect('events.sqlite', files.events, eventsHoldData);
  const credentials = inspect('credentials.sqlite', files.credentials, credentialsHoldData);
  const problem = identityProblem(events, credentials);
  if (problem) throw new OperatorError(problem);
  if (events.identity && credentials.identity) return 'matched';
  const identity = events.identity ?? credentials.identity ?? randomUUID();
  const upgraded = events.holdsData && credentials.holdsData;
  writeIdentity(files.credentials, identity);
  writeIdentity(files.events, identity);
  return upgraded ? 'upgraded' : 'created';
}

/** The reason the pair must not be opened, or null when it may (perhaps after writing the identity). */
function identityProblem(events: StoreHalf, credentials: StoreHalf): string | null {
  const used = (half: StoreHalf) => half.holdsData || half.identity !== null;
  if (events.identity && credentials.identity && events.identity !== credentials.identity) {
    return `${events.path} and ${credentials.path} belong to different installations (install ids ${events.identity} and ${credentials.identity}). Restore the two files from the same backup.`;
  }
  if (used(events) && !used(credentials)) {
    if (!events.holdsData) return null; // a creation interrupted after its first write: finish it
    return `${credentials.path} is missing or empty beside an event log that holds data: nobody could sign in and every API token would be lost. Restore credentials.sqlite from the backup of this installation (it must come with this events.sqlite).`;
  }
  if (used(credentials) && !used(events)) {
    if (!credentials.holdsData) return null;
    return `${events.path} is missing or empty beside ${credentials.path}, which holds the credentials of an existing installation: starting would create a new installation and hand old tokens to new people. Restore events.sqlite from the backup of this installation, or move credentials.sqlite away to start a new, empty installation.`;
  }
  if (!events.identity !== !credentials.identity) {
    const [marked, unmarked] = events.identity ? [events, credentials] : [credentials, events];
    return `${unmarked.path} holds data but not the install id of ${marked.path}: the two files do not come from the same installation. Restore the two files from the same backup.`;
  }
  return null;
}

function inspect(name: string, path: string, holdsData: DataProbe): StoreHalf {
  if (!existsSync(path) || statSync(path).size === 0) return { name, path, identity: null, holdsData: false };
  let db: Database.Database | undefined;
  try {
    // Read-only: closing the last read-write connection checkpoints the WAL into the file, which after a
    // crash on a busy log (a WAL of hundreds of MB) held the start for seconds before anything else ran.
    db = new Database(path, { readonly: true, fileMustExist: true });
    const tables = new Set(db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all());
    const identity = tables.has('storyline_identity')
      ? (db.prepare<[], string>('SELECT install_id FROM storyline_identity WHERE id = 1').pluck().get() ?? null)
      : null;
    return { name, path, identity, holdsData: holdsData(db, tables) };
  } catch (error) {
    throw new OperatorError(
      `${path} is not a readable Storyline ${name} (${(error as Error).message}). Restore it from a backup; Storyline does not start on it.`,
    );
  } finally {
    db?.close();
  }
}

function writeIdentity(path: string, identity: string): void {
  const db = new Database(path);
  try {
    db.exec(IDENTITY_SCHEMA);
    db.prepare('INSERT OR IGNORE INTO storyline_identity (id, install_id) VALUES (1, ?)').run(identity);
  } finally {
    db.close();
  }
}
