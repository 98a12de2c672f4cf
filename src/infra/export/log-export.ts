// `storyline export`: the whole log, in global order, as NDJSON (ndjson-log.ts), streamed in batches so
// memory does not grow with the log; the file is written under a temporary name and renamed when done.
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import type { EventStore } from '../../ports/event-store.js';
import { exportLine } from './ndjson-log.js';

/** Events read from the log per batch. */
const EXPORT_BATCH = 5_000;

export interface ExportReport {
  events: number;
  bytes: number;
  ms: number;
}

export async function exportLog(store: EventStore, outFile: string, batch = EXPORT_BATCH): Promise<ExportReport> {
  const started = performance.now();
  const partial = `${outFile}.partial`;
  const out = createWriteStream(partial, { flags: 'wx' });
  let events = 0;
  try {
    await once(out, 'open');
    for (let after = 0; ; ) {
      const chain = await store.readChain({ after, limit: batch });
      if (chain.length > 0) {
        const text = `${chain.map(exportLine).join('\n')}\n`;
        if (!out.write(text)) await once(out, 'drain');
        events += chain.length;
        after = chain[chain.length - 1]!.position;
      }
      if (chain.length < batch) break;
    }
    out.end();
    await once(out, 'finish');
    renameSync(partial, outFile);
  } catch (error) {
    out.destroy();
    rmSync(partial, { force: true });
    throw error;
  }
  return { events, bytes: out.bytesWritten, ms: Math.round(performance.now() - started) };
}
