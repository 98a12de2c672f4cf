// `storyline export`: the whole log, in global order, as NDJSON (ndjson-log.ts), streamed in batches so
// memory does not grow with the log, then the trailer line that sums up the events written (their count,
// each stream's head, the sequence hash: log-summary.ts); the file is written under a temporary name and
// renamed when done.
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import type { EventStore } from '../../ports/event-store.js';
import { LogSummaryBuilder, type LogSummary } from '../event-store/log-summary.js';
import { exportLine, trailerLine } from './ndjson-log.js';

/** Events read from the log per batch. */
const EXPORT_BATCH = 5_000;

/** What was exported (as its trailer says it), the file's size and how long it took. */
export interface ExportReport extends LogSummary {
  bytes: number;
  ms: number;
}

export async function exportLog(store: EventStore, outFile: string, batch = EXPORT_BATCH): Promise<ExportReport> {
  const started = performance.now();
  const partial = `${outFile}.partial`;
  const out = createWriteStream(partial, { flags: 'wx' });
  const summary = new LogSummaryBuilder();
  let written: LogSummary;
  try {
    await once(out, 'open');
    for (let after = 0; ; ) {
      const chain = await store.readChain({ after, limit: batch });
      if (chain.length > 0) {
        const text = `${chain.map(exportLine).join('\n')}\n`;
        if (!out.write(text)) await once(out, 'drain');
        for (const event of chain) summary.add(event.stream, event.version, event.hash);
        after = chain[chain.length - 1]!.position;
      }
      if (chain.length < batch) break;
    }
    written = summary.summary();
    out.end(`${trailerLine(written)}\n`);
    await once(out, 'finish');
    renameSync(partial, outFile);
  } catch (error) {
    out.destroy();
    rmSync(partial, { force: true });
    throw error;
  }
  return { ...written, bytes: out.bytesWritten, ms: Math.round(performance.now() - started) };
}
