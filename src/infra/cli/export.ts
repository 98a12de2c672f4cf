// `storyline export --out FILE`: the whole event log as NDJSON (src/infra/export/ndjson-log.ts).
import { existsSync } from 'node:fs';
import { exportLog } from '../export/log-export.js';
import { CliUsageError, parseCommandArgs, type CliCommand } from './command.js';

export const exportCommand: CliCommand = {
  words: ['export'],
  usage: 'export --out FILE',
  summary: 'write the event log as NDJSON, one event per line in global order (no credentials); FILE must not exist',
  async run(args, { config, out, err }) {
    const { values } = parseCommandArgs({ args, options: { out: { type: 'string' } }, strict: true });
    if (!values.out) throw new CliUsageError('export needs --out FILE');
    if (existsSync(values.out)) {
      err(`storyline export: ${values.out} exists; export writes a new file`);
      return 1;
    }
    const { openConfiguredEventStore } = await import('../composition.js');
    const store = await openConfiguredEventStore(config);
    try {
      out(JSON.stringify({ exported: values.out, ...(await exportLog(store, values.out)) }));
      return 0;
    } finally {
      await store.close();
    }
  },
};
