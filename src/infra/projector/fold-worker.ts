// A worker of a parallel rebuild (parallel-fold.ts): folds its group of projections from the event log
// into their fresh generations through connections of its own, builds their indexes, and reports.
import { parentPort, workerData } from 'node:worker_threads';
import { projections } from '../../projections/registry.js';
import { openSqliteEventStore } from '../event-store/sqlite-event-store.js';
import { openSqliteReadStore } from '../read-store/sqlite-read-store.js';
import { foldLog } from './log-fold.js';
import type { FoldWorkerData, FoldWorkerMessage } from './parallel-fold.js';
import { targetOf } from './projection-target.js';

/**
 * How long a worker's write waits for another worker's (inserting an index's entries holds the file's
 * write lock for seconds at a million events): a rebuild's writes wait their turn instead of failing.
 */
const FOLD_BUSY_TIMEOUT_MS = 30 * 60 * 1000;

const { eventsPath, readModelsPath, plan } = workerData as FoldWorkerData;
const post = (message: FoldWorkerMessage) => parentPort!.postMessage(message);

const eventStore = await openSqliteEventStore({ path: eventsPath, readOnly: true });
const readStore = openSqliteReadStore({ path: readModelsPath, busyTimeoutMs: FOLD_BUSY_TIMEOUT_MS, unsharedIndexBuilds: true });
try {
  const targets = plan.targets.map(({ projection: name, generation, version, position }) => {
    const projection = projections.find((candidate) => candidate.name === name);
    if (!projection) throw new Error(`no projection named ${name}`);
    return targetOf(readStore, projection, generation, version, position);
  });
  const report = await foldLog(targets, plan.until, {
    eventStore,
    readStore,
    batchSize: plan.batchSize,
    heapBudgetBytes: plan.heapBudgetBytes,
    onRead: (read) => post({ read }),
  });
  // Each index's entries are gathered before the write lock is taken (unsharedIndexBuilds: these
  // collections are this worker's alone), so the other workers' folds do not wait behind the build.
  for (const target of targets) {
    for (const { name, indexes } of target.projection.collections) await target.collections.get(name)!.ensureIndexes(indexes);
  }
  post({ done: report });
} finally {
  await readStore.close();
  await eventStore.close();
}
