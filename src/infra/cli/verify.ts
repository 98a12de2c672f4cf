// `storyline verify [--expect FILE]`: walks every stream's hash chain and prints one JSON summary: the
// event count, each stream's head (version and hash) and the sequence hash over every event's hash in
// log order (log-summary.ts); exits 1 naming the first altered event. Keep the summary elsewhere: a log
// rewritten with its chains re-hashed would not reproduce it. With --expect FILE (a summary verify,
// export or import printed, or an export's trailer line), the log's summary is compared with FILE's and
// the command exits 1 naming each stream that differs.
import { readFileSync } from 'node:fs';
import { verifyLog } from '../event-store/chain-verifier.js';
import { readLogSummary, summaryDifferences, type LogSummary, type StreamHead } from '../event-store/log-summary.js';
import { parseCommandArgs, type CliCommand } from './command.js';

export const verifyCommand: CliCommand = {
  words: ['verify'],
  usage: 'verify [--expect FILE]',
  summary:
    "check every stream's hash chain; prints a JSON summary with each stream's head hash, exit 1 at the first altered event; " +
    '--expect FILE: exit 1 naming each stream whose head differs from FILE (a summary verify, export or import printed)',
  async run(args, { config, out, err }) {
    const { values } = parseCommandArgs({ args, options: { expect: { type: 'string' } }, strict: true });
    const expected = values.expect === undefined ? null : readExpected(values.expect);
    if (typeof expected === 'string') {
      err(`storyline verify: ${values.expect} is not a summary of a log: ${expected}`);
      return 1;
    }
    const { openConfiguredEventStore } = await import('../composition.js');
    const store = await openConfiguredEventStore(config);
    try {
      const started = performance.now();
      const result = await verifyLog(store);
      const ms = Math.round(performance.now() - started);
      if (!result.ok) {
        const { stream, version, position, problem } = result;
        out(JSON.stringify({ ok: false, stream, version, position, problem }));
        err(`storyline verify: ${stream} version ${version} (log position ${position}): ${problem}`);
        return 1;
      }
      const { events, sequence_hash, streams } = result.summary;
      if (expected === null) {
        out(JSON.stringify({ ok: true, events, ms, sequence_hash, streams }));
        return 0;
      }
      const differences = summaryDifferences(expected, result.summary, { expected: values.expect!, actual: 'the log' });
      out(JSON.stringify({ ok: differences.length === 0, events, ms, sequence_hash, streams, ...(differences.length > 0 ? { differences } : {}) }));
      for (const { stream, problem } of differences) err(`storyline verify: ${stream === null ? '' : `${stream}: `}${problem}`);
      return differences.length === 0 ? 0 : 1;
    } finally {
      await store.close();
    }
  },
};

/** The summary FILE holds (one JSON object; an export's trailer line too), or what is wrong with it. */
function readExpected(file: string): (Partial<LogSummary> & { streams: StreamHead[] }) | string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON (one object: the line verify, export or import printed)';
  }
  return readLogSummary(value);
}
