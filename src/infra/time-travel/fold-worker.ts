// The time-travel fold worker (see worker-project-history.ts): folds a project's past and answers the
// reads of it, with the project history of the serving thread's placement over a read-only connection
// of its own to the log and to snapshots.sqlite. Its log lines go to the parent; a snapshot it cannot
// use is discarded by the parent's snapshot writer (a notice).
import { workerData } from 'node:worker_threads';
import { projections } from '../../projections/registry.js';
import type { HeldReader } from '../../queries/time-travel.js';
import { openSqliteEventStore } from '../event-store/sqlite-event-store.js';
import { createMemoryReadStore } from '../read-store/memory-read-store.js';
import { answerCalls, parentLog, postNotice } from '../worker-calls.js';
import { FoldingProjectHistory } from './project-history.js';
import { openSnapshotReader } from './snapshot-store.js';
import type { DiscardNotice, FoldWorkerCall, FoldWorkerData } from './worker-project-history.js';

const log = parentLog();
const { eventsPath, snapshotsPath, cacheEntries, cacheBytes, foldQueue } = workerData as FoldWorkerData;
// A log that cannot be opened fails the worker (the parent fails the call; its next call starts a fresh one).
const eventStore = await openSqliteEventStore({ path: eventsPath, readOnly: true });
const snapshots = openSnapshotReader(
  snapshotsPath,
  async (projectId, projection, snapshot) =>
    postNotice({ discard: { projectId, projection: { name: projection.name, version: projection.version }, snapshot: { version: snapshot.version, position: snapshot.position } } } satisfies DiscardNotice),
  log,
);
const history = new FoldingProjectHistory({ eventStore, projections, newReadStore: createMemoryReadStore, cacheEntries, cacheBytes, snapshots, foldQueue, log });
/** The parent's readers by number, each holding what it folded until it is released. */
const readers = new Map<number, Promise<HeldReader>>();

function readerOf(call: Extract<FoldWorkerCall, { call: 'read' }>): Promise<HeldReader> {
  let reader = readers.get(call.reader);
  if (!reader) {
    reader = history.readerAt(call.projectId, call.version);
    readers.set(call.reader, reader);
  }
  return reader;
}

/** A read's result as JSON; nothing for the others. */
async function answer(call: FoldWorkerCall): Promise<string | null> {
  switch (call.call) {
    case 'read': {
      const collection = (await readerOf(call))(call.collection);
      switch (call.method) {
        case 'find':
          return JSON.stringify(await collection.find(call.filter ?? {}, call.options));
        case 'findOne':
          return JSON.stringify(await collection.findOne(call.filter ?? {}));
        case 'count':
          return JSON.stringify(await collection.count(call.filter ?? {}));
        case 'all':
          return JSON.stringify(await collection.all());
      }
      throw new Error(`no read method ${String(call.method)}`);
    }
    case 'release': {
      const reader = readers.get(call.reader);
      readers.delete(call.reader);
      (await reader)?.release();
      return null;
    }
    case 'close':
      for (const reader of readers.values()) (await reader).release();
      readers.clear();
      await history.close();
      await snapshots.close();
      await eventStore.close();
      return null;
  }
}

answerCalls(answer);
