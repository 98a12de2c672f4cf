// The reader of `storyline import` in its own thread (see log-import.ts): posts the export file's checked
// events in batches, at most `ahead` batches before the writer has taken them (bounds the memory), then
// the summary of what it read (as the file's trailer says it too); a file the import refuses is answered
// with the reason instead.
import { parentPort, workerData } from 'node:worker_threads';
import { ChainVerifier } from '../event-store/chain-verifier.js';
import { checkedEventBatches } from './import-reader.js';
import { batchBuffers, packEventBatch } from './packed-event-batch.js';
import { ImportRefused, type ReaderMessage } from './log-import.js';

const { file, size, ahead } = workerData as { file: string; size: number; ahead: number };
const port = parentPort!;
const post = (message: ReaderMessage) => port.postMessage(message, 'batch' in message ? batchBuffers(message.batch) : []);

let posted = 0;
let taken = 0;
let wake: (() => void) | null = null;
port.on('message', () => {
  taken++;
  wake?.();
  wake = null;
});

try {
  const verifier = new ChainVerifier();
  for await (const batch of checkedEventBatches(file, verifier, size)) {
    post({ batch: packEventBatch(batch) });
    posted++;
    while (posted - taken >= ahead) await new Promise<void>((resolve) => (wake = resolve));
  }
  post({ done: verifier.summary() });
} catch (error) {
  if (!(error instanceof ImportRefused)) throw error;
  post({ refused: error.message });
}
