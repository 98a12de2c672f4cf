// The snapshot worker (see snapshot-placement.ts): takes the project-snapshots reaction's snapshots off
// the serving thread, with the same snapshotter as in-thread placement, over a read-only connection of its
// own to the log and the one connection that writes snapshots.sqlite. Its log lines go to the parent.
import { threadId, workerData } from 'node:worker_threads';
import { projections } from '../../projections/registry.js';
import { openSqliteEventStore } from '../event-store/sqlite-event-store.js';
import { answerCalls, parentLog } from '../worker-calls.js';
import { projectSnapshotter } from './project-snapshotter.js';
import type { SnapshotWorkerCall, SnapshotWorkerData } from './snapshot-placement.js';
import { openSqliteReadModelSnapshotStore } from './read-model-snapshot-store.js';

const log = parentLog();
const { eventsPath, snapshotsPath, cacheBytes } = workerData as SnapshotWorkerData;
// A log that cannot be opened fails the worker (the parent rejects the call; its next call starts a fresh one).
const eventStore = await openSqliteEventStore({ path: eventsPath, readOnly: true });
const store = openSqliteReadModelSnapshotStore(snapshotsPath, log);
const { snapshotter, history } = projectSnapshotter({ eventStore, store, projections, cacheBytes });

/** The call's answer: takenUpTo's position, the thread id that ran a take, nothing for the others. */
async function answer(call: SnapshotWorkerCall): Promise<number | null> {
  switch (call.call) {
    case 'takenUpTo':
      return snapshotter.takenUpTo();
    case 'take':
      await snapshotter.take(call.projectId, call.version, call.position);
      return threadId;
    case 'recordTakenUpTo':
      await snapshotter.recordTakenUpTo(call.position);
      return null;
    case 'discard':
      await store.discard(call.projectId, call.projection, call.snapshot);
      return null;
    case 'close':
      await history.close();
      await store.close();
      await eventStore.close();
      return null;
  }
}

answerCalls(answer);
