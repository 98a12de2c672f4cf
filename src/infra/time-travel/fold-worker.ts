// The time-travel fold worker (see worker-project-history.ts): folds a project's past and answers the
// reads of it, with the project history of the serving thread's placement over a read-only connection
// of its own to the log and to snapshots.sqlite. Its log lines go to the parent; a snapshot it cannot
// use is discarded by the parent's snapshot writer (a notice).
//
// Its heap is the fold cache (counted against the budget) and the garbage of the folds (a snapshot's
// text, parsed, then copied into a store). V8 collects that garbage lazily (the heap of a stream of cold
// folds grew to several times what it held alive), so, as the budget is meant to bound the process's
// memory, the worker runs a full collection after a read once its heap exceeds what the cache holds by
// GARBAGE_SLACK_BYTES: off the serving thread, at most about once per fold.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { workerData } from 'node:worker_threads';
import { projections } from '../../projections/registry.js';
import type { HeldReader } from '../../queries/time-travel.js';
import { openSqliteEventStore } from '../event-store/sqlite-event-store.js';
import { createMemoryReadStore } from '../read-store/memory-read-store.js';
import { answerCalls, parentLog, postNotice } from '../worker-calls.js';
import { FoldingProjectHistory } from './project-history.js';
import { openReadModelSnapshotReader } from './read-model-snapshot-store.js';
import type { DiscardNotice, FoldWorkerCall, FoldWorkerData } from './worker-project-history.js';

const log = parentLog();
const { eventsPath, snapshotsPath, cacheEntries, cacheBytes, foldQueue } = workerData as FoldWorkerData;
// A log that cannot be opened fails the worker (the parent fails the call; its next call starts a fresh one).
const eventStore = await openSqliteEventStore({ path: eventsPath, readOnly: true });
const snapshots = openReadModelSnapshotReader(
  snapshotsPath,
  async (projectId, projection, snapshot) =>
    postNotice({ discard: { projectId, projection: { name: projection.name, version: projection.version }, snapshot: { version: snapshot.version, position: snapshot.position } } } satisfies DiscardNotice),
  log,
);
const history = new FoldingProjectHistory({ eventStore, projections, newReadStore: createMemoryReadStore, cacheEntries, cacheBytes, snapshots, foldQueue, log });
/** Garbage tolerated beyond the folds kept (and beyond what a collection left alive) before a full collection. */
const GARBAGE_SLACK_BYTES = 128 * 1024 * 1024;
const collectGarbage = garbageCollector();
let collectAbove = 0;

/** V8's `gc`, without exposing it to any other context: the flag is on only while this one is made. */
function garbageCollector(): () => void {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** A full collection when the heap holds GARBAGE_SLACK_BYTES more than the folds kept and than the last collection left. */
function collectGarbageBeyondSlack(): void {
  if (getHeapStatistics().used_heap_size < Math.max(collectAbove, history.usage().estimatedBytes + GARBAGE_SLACK_BYTES)) return;
  collectGarbage();
  collectAbove = getHeapStatistics().used_heap_size + GARBAGE_SLACK_BYTES;
}

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

async function read(call: Extract<FoldWorkerCall, { call: 'read' }>): Promise<unknown> {
  const collection = (await readerOf(call))(call.collection);
  switch (call.method) {
    case 'find':
      return collection.find(call.filter ?? {}, call.options);
    case 'findOne':
      return collection.findOne(call.filter ?? {});
    case 'count':
      return collection.count(call.filter ?? {});
    case 'all':
      return collection.all();
  }
}

/** A read's result as JSON; nothing for the others. */
async function answer(call: FoldWorkerCall): Promise<string | null> {
  switch (call.call) {
    case 'read': {
      const answered = JSON.stringify(await read(call));
      collectGarbageBeyondSlack();
      return answered;
    }
    case 'usage':
      return JSON.stringify(history.usage());
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
