// `storyline verify`: walks every stream's hash chain and prints one JSON summary with each stream's
// head hash (keep them elsewhere: a rewritten log would not reproduce them); exits 1 naming the first
// altered event.
import { parseArgs } from 'node:util';
import { verifyLog } from '../event-store/chain-verifier.js';
import type { CliCommand } from './command.js';

export const verifyCommand: CliCommand = {
  words: ['verify'],
  usage: 'verify',
  summary: "check every stream's hash chain; prints a JSON summary with each stream's head hash, exit 1 at the first altered event",
  async run(args, { config, out, err }) {
    parseArgs({ args, options: {}, strict: true });
    const { openConfiguredEventStore } = await import('../composition.js');
    const store = await openConfiguredEventStore(config);
    try {
      const started = performance.now();
      const result = await verifyLog(store);
      const ms = Math.round(performance.now() - started);
      if (result.ok) {
        out(JSON.stringify({ ok: true, events: result.summary.events, ms, streams: result.summary.streams }));
        return 0;
      }
      const { stream, version, position, problem } = result;
      out(JSON.stringify({ ok: false, stream, version, position, problem }));
      err(`storyline verify: ${stream} version ${version} (log position ${position}): ${problem}`);
      return 1;
    } finally {
      await store.close();
    }
  },
};
