// `storyline import FILE`: an export file into an EMPTY data directory (or a missing one), and with
// STORYLINE_KURRENT_URL into an empty KurrentDB through the event store port. A non-empty
// directory is refused before anything is opened; a file whose hash chain does not verify is refused
// naming the line, one without the export's trailer or that does not match it naming what differs, and
// what the import had written is removed again. It prints what it imported as verify sums it up (count,
// heads, sequence hash), to be compared with a summary kept elsewhere (`verify --expect`). While it fills the directory, a
// mark in it (import-unfinished) makes every command refuse it: a crash mid-import leaves a directory
// nothing serves until it is emptied and imported again.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { openDataDirectory } from '../data-directory.js';
import type { EventStore } from '../../ports/event-store.js';
import type { StorylineConfig } from '../config.js';
import { verifyLog } from '../event-store/chain-verifier.js';
import { describeDifferences, summaryDifferences } from '../event-store/log-summary.js';
import { portImportCheck, portImportTarget } from '../export/event-store-import.js';
import {
  ImportRefused,
  dataDirectoryState,
  importLog,
  markImportFinished,
  markImportUnfinished,
  restoreDataDirectory,
  type DataDirectoryState,
} from '../export/log-import.js';
import { CliUsageError, parseCommandArgs, type CliCommand, type CliContext } from './command.js';

export const importCommand: CliCommand = {
  words: ['import'],
  createsData: true,
  usage: 'import FILE',
  summary:
    'recreate a log from an export file into an empty data directory (with STORYLINE_KURRENT_URL: into an empty KurrentDB), printing its heads as verify does; people then need `person reset-token`',
  async run(args, { config, out, err }) {
    const { positionals } = parseCommandArgs({ args, options: {}, allowPositionals: true, strict: true });
    if (positionals.length !== 1) throw new CliUsageError('import needs exactly one FILE');
    const file = positionals[0]!;
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) {
      err(`storyline import: ${file} is not a file`);
      return 1;
    }
    const before = config.dataDir === ':memory:' ? 'missing' : dataDirectoryState(config.dataDir);
    if (before === 'not-empty') {
      err(`storyline import: ${config.dataDir} is not empty; import only into an empty data directory`);
      return 1;
    }
    if (config.kurrentUrl) return importIntoKurrent(file, config, before, { out, err });
    const { openSqliteBulkLoad } = await import('../event-store/sqlite-bulk-load.js');
    // the directory is made as `serve` makes it (0700, credentials beside the log, one install identity), so
    // the server starts on it; its people sign in after `storyline person reset-token`
    if (config.dataDir !== ':memory:') {
      openDataDirectory(config.dataDir, { embeddedEventLog: true });
      markImportUnfinished(config.dataDir);
    }
    let failure: unknown = null;
    try {
      const load = openSqliteBulkLoad(config.dataDir === ':memory:' ? ':memory:' : join(config.dataDir, 'events.sqlite'));
      try {
        out(JSON.stringify({ imported: file, ...(await importLog(load, file)) }));
      } finally {
        load.close();
      }
    } catch (error) {
      failure = error;
    }
    if (failure === null) {
      if (config.dataDir !== ':memory:') markImportFinished(config.dataDir);
      return 0;
    }
    // Whatever stopped the import, the directory goes back to how it was.
    if (config.dataDir !== ':memory:') restoreDataDirectory(config.dataDir, before);
    if (!(failure instanceof ImportRefused)) throw failure;
    err(`storyline import: refused ${file}: ${failure.message}; nothing was imported`);
    return 1;
  },
};

/**
 * With STORYLINE_KURRENT_URL: the file into an EMPTY KurrentDB through the event store port
 * (event-store-import.ts), read twice so that a refused file writes nothing there, then the store's log
 * verified against the file's summary. The data directory (credentials, the read models' checkpoints)
 * is made as `serve` makes it and carries the unfinished-import mark while KurrentDB is written.
 */
async function importIntoKurrent(
  file: string,
  config: StorylineConfig,
  before: Exclude<DataDirectoryState, 'not-empty'>,
  { out, err }: Pick<CliContext, 'out' | 'err'>,
): Promise<number> {
  const { openConfiguredEventStore } = await import('../composition.js');
  const inMemory = config.dataDir === ':memory:';
  let store: EventStore | null = null;
  let written = false;
  try {
    store = await openConfiguredEventStore(config);
    const held = await store.headPosition();
    if (held > 0) {
      err(`storyline import: KurrentDB already holds ${held} events; import only into an empty database`);
      return 1;
    }
    await importLog(portImportCheck(), file);
    if (!inMemory) markImportUnfinished(config.dataDir);
    written = true;
    const report = await importLog(portImportTarget(store), file);
    const verified = await verifyLog(store);
    const problem = verified.ok
      ? describeDifferences(summaryDifferences(report, verified.summary, { expected: file, actual: 'KurrentDB' }))
      : `${verified.stream} version ${verified.version}: ${verified.problem}`;
    if (problem !== '') {
      err(`storyline import: KurrentDB does not hold what ${file} holds: ${problem}; import into a new, empty database`);
      return 1;
    }
    if (!inMemory) markImportFinished(config.dataDir);
    out(JSON.stringify({ imported: file, ...report }));
    return 0;
  } catch (error) {
    if (!(error instanceof ImportRefused)) throw error;
    err(`storyline import: refused ${file}: ${error.message}; ${written ? 'the events before it are in KurrentDB: import into a new, empty database' : 'nothing was imported'}`);
    return 1;
  } finally {
    await store?.close();
    if (!written && !inMemory) restoreDataDirectory(config.dataDir, before);
  }
}
