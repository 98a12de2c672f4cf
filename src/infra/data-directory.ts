// The embedded data directory: where its files are, its permissions (0700 directory, 0600 credentials and
// their -wal/-shm, which SQLite creates with the database file's mode), and the check that a command
// other than `serve` is pointed at an existing installation.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorError } from './operator-error.js';
import { checkStoreIdentity, type IdentityOutcome, type StoreFiles } from './store-identity.js';

export const DIRECTORY_MODE = 0o700;
export const SECRET_FILE_MODE = 0o600;

export function storeFiles(dataDir: string): StoreFiles {
  return { events: join(dataDir, 'events.sqlite'), credentials: join(dataDir, 'credentials.sqlite') };
}

/** Snapshots of project folds for time travel: derived data, deletable (src/infra/time-travel/read-model-snapshot-store.ts). */
export const SNAPSHOTS_FILE = 'snapshots.sqlite';
/** Snapshots of the stream states commands decide on (derived, deletable). */
export const STATES_FILE = 'states.sqlite';

/** Creates the directory (0700) and the credentials file (0600) if missing, and tightens both if looser. */
export function prepareDataDirectory(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: DIRECTORY_MODE });
    restrict(dataDir, DIRECTORY_MODE);
    const credentials = storeFiles(dataDir).credentials;
    closeSync(openSync(credentials, 'a', SECRET_FILE_MODE));
    for (const file of [credentials, `${credentials}-wal`, `${credentials}-shm`]) if (existsSync(file)) restrict(file, SECRET_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM' && code !== 'ENOTDIR') throw error;
    throw new OperatorError(`cannot use ${dataDir} as the data directory (${(error as Error).message}); give Storyline a writable directory in STORYLINE_DATA or --data.`);
  }
}

/** Refuses a directory that holds no Storyline event log (commands that work on existing data). */
export function requireExistingData(dataDir: string): void {
  const { events } = storeFiles(dataDir);
  if (!existsSync(events) || statSync(events).size === 0) {
    throw new OperatorError(
      `${dataDir} holds no Storyline data (no events.sqlite). Point the command at the server's data directory with --data DIR or STORYLINE_DATA, or start \`storyline serve\` there first.`,
    );
  }
}

/** The file `storyline import` keeps in the data directory it fills, removed once the imported log is complete and durable. */
export const UNFINISHED_IMPORT = 'import-unfinished';

/** Refuses a directory an import stopped filling (crash, kill): its log holds only part of the file. */
function refuseUnfinishedImport(dataDir: string): void {
  if (existsSync(join(dataDir, UNFINISHED_IMPORT))) {
    throw new OperatorError(
      `${dataDir} holds an import that did not finish (${UNFINISHED_IMPORT} is there): its log is incomplete. Empty the directory and run \`storyline import\` again.`,
    );
  }
}

function restrict(path: string, mode: number): void {
  if ((statSync(path).mode & 0o777) !== mode) chmodSync(path, mode);
}

/**
 * Makes the embedded data directory ready before its stores open: permissions, then the install
 * identity shared by the log and the credentials (only the credentials live here with KurrentDB).
 */
export function openDataDirectory(dataDir: string, options: { embeddedEventLog: boolean }): IdentityOutcome | null {
  refuseUnfinishedImport(dataDir);
  prepareDataDirectory(dataDir);
  return options.embeddedEventLog ? checkStoreIdentity(storeFiles(dataDir)) : null;
}
