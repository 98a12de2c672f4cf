// Child process of the read-model crash test: projects the log at `events` into the SQLite read store
// at `models` (small batches: many transactions), printing `{"position":N}` after each committed batch
// (the checkpoint it stored with its documents), and `{"caughtUp":N}` once start() has caught up. With
// `exitWhenCaughtUp` it then stops cleanly; otherwise it waits to be killed.
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { CHECKPOINTS, ProjectorRunner } from '../../src/infra/projector/projector-runner.js';
import type { ReadStore } from '../../src/ports/read-store.js';
import { openSqliteReadStore } from '../../src/infra/read-store/sqlite-read-store.js';
import { projections } from '../../src/projections/registry.js';

interface ProjectorChildOptions {
  events: string;
  models: string;
  batchSize: number;
  exitWhenCaughtUp: boolean;
}

const options = JSON.parse(process.argv[2] ?? '{}') as ProjectorChildOptions;
const eventStore = await openSqliteEventStore({ path: options.events });
const store = openSqliteReadStore({ path: options.models, cacheBytes: 256 * 1024 });
// The store as the runner sees it, announcing every checkpoint once its transaction has committed.
const readStore: ReadStore = {
  ...store,
  async writeAtomically(writes) {
    await store.writeAtomically(writes);
    const checkpoints = writes.find((write) => write.collection === CHECKPOINTS)?.ops ?? [];
    const positions = checkpoints.map((op) => (op.op === 'replace' ? (op.doc['position'] as number) : 0));
    // Synchronous on a pipe: the parent has the line once this returns.
    if (positions.length > 0) process.stdout.write(`${JSON.stringify({ position: Math.min(...positions) })}\n`);
  },
};
const runner = new ProjectorRunner({ eventStore, readStore, projections, batchSize: options.batchSize });
const report = await runner.start();
process.stdout.write(`${JSON.stringify({ caughtUp: report.position, eventsRead: report.eventsRead })}\n`);
if (options.exitWhenCaughtUp) {
  await runner.stop();
  await store.close();
  await eventStore.close();
}
