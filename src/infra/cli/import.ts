// `storyline import FILE`: an export file into an EMPTY data directory (or a missing one). A non-empty
// directory is refused before anything is opened; a file whose hash chain does not verify is refused
// naming the line, one without the export's trailer or that does not match it naming what differs, and
// what the import had written is removed again. It prints what it imported as verify sums it up (count,
// heads, sequence hash), to be compared with a summary kept elsewhere (`verify --expect`). While it fills the directory, a
// mark in it (import-unfinished) makes every command refuse it: a crash mid-import leaves a directory
// nothing serves until it is emptied and imported again.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDataDirectory } from '../data-directory.js';
import { ImportRefused, dataDirectoryState, importLog, markImportFinished, markImportUnfinished, restoreDataDirectory } from '../export/log-import.js';
import { CliUsageError, type CliCommand } from './command.js';

export const importCommand: CliCommand = {
  words: ['import'],
  createsData: true,
  usage: 'import FILE',
  summary: 'recreate a log from an export file into an empty data directory, printing its heads as verify does; people then need `person reset-token`',
  async run(args, { config, out, err }) {
    const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
    if (positionals.length !== 1) throw new CliUsageError('import needs exactly one FILE');
    const file = positionals[0]!;
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) {
      err(`storyline import: ${file} is not a file`);
      return 1;
    }
    if (config.kurrentUrl) {
      err('storyline import: import writes the embedded log; unset STORYLINE_KURRENT_URL (KurrentDB has its own backup tools)');
      return 1;
    }
    const before = config.dataDir === ':memory:' ? 'missing' : dataDirectoryState(config.dataDir);
    if (before === 'not-empty') {
      err(`storyline import: ${config.dataDir} is not empty; import only into an empty data directory`);
      return 1;
    }
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
