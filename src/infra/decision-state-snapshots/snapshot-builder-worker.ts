// The snapshot builder's worker (see worker-snapshot-builder.ts): folds streams from their latest usable
// snapshot (or from their first event) to their head over a read-only connection to the log, and stores
// the state in states.sqlite through a connection of its own. Its log lines go to the parent.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { workerData } from 'node:worker_threads';
import { eventsPastSnapshot, foldNewEvents, stateOfLatestSnapshot } from '../stream-states/stream-state-loading.js';
import { emptyState } from '../../domain/decision-states.js';
import { openSqliteEventStore } from '../event-store/sqlite-event-store.js';
import { answerCalls, parentLog } from '../worker-calls.js';
import { BuildTurns, TurnsClosed } from './build-turns.js';
import { openSqliteDecisionStateSnapshots } from './sqlite-decision-state-snapshots.js';
import type { SnapshotBuilderCall, SnapshotBuilderData } from './worker-snapshot-builder.js';

const log = parentLog();
const { eventsPath, statesPath, distance } = workerData as SnapshotBuilderData;
// A log that cannot be opened fails the worker (the parent's calls reject; its next call starts a fresh one).
const eventStore = await openSqliteEventStore({ path: eventsPath, readOnly: true });
const snapshots = openSqliteDecisionStateSnapshots(statesPath, log);
const turns = new BuildTurns();

/** Between two pages of a fold: calls get their turn, and a close stops the fold. */
async function betweenPages(): Promise<void> {
  await nextTurn();
  if (turns.closing) throw new TurnsClosed();
}

/** Whether the stream is `distance` or more events past its snapshot. */
async function lagging(stream: string): Promise<boolean> {
  return (await eventsPastSnapshot(snapshots, eventStore, stream)) >= distance;
}

/** Stores a snapshot of the stream at its head when it is `distance` or more past its snapshot; resolves to the events folded. */
async function build(stream: string): Promise<number> {
  if (!(await lagging(stream))) return 0; // built meanwhile
  const latest = await stateOfLatestSnapshot(snapshots, eventStore, stream).catch((error: unknown) => {
    log.warn('a stream state snapshot could not be read: the stream is folded from its first event', { stream, error: String(error) });
    return null;
  });
  const state = latest ?? emptyState(stream);
  const folded = await foldNewEvents(eventStore, state, betweenPages);
  await snapshots.save(state.snapshot());
  return folded;
}

/** Builds, longest gap first, the snapshots of every stream `distance` or more past its own; resolves to how many it stored. */
async function sweep(): Promise<number> {
  const gaps: Array<{ stream: string; gap: number }> = [];
  for (const { stream } of await eventStore.longStreams(distance)) {
    await nextTurn(); // a command's catchUp is answered between two streams, not after the whole scan
    if (turns.closing) return 0;
    const gap = await eventsPastSnapshot(snapshots, eventStore, stream);
    if (gap >= distance) gaps.push({ stream, gap });
  }
  let stored = 0;
  for (const { stream } of gaps.sort((a, b) => b.gap - a.gap)) {
    try {
      if ((await turns.take(false, () => build(stream))) > 0) stored++;
    } catch (error) {
      if (error instanceof TurnsClosed) break;
      log.warn('a stream state snapshot could not be built', { stream, error: String(error) });
    }
  }
  return stored;
}

async function answer(call: SnapshotBuilderCall): Promise<number> {
  switch (call.call) {
    case 'catchUp':
      // A stream near its snapshot (built meanwhile) does not wait for the build under way.
      return (await lagging(call.stream)) ? turns.take(true, () => build(call.stream)) : 0;
    case 'sweep':
      return sweep();
    case 'close':
      // After the build under way (stopped at its next page), and no build after it: nothing reads or
      // writes the files once they close.
      return turns.last(async () => {
        await snapshots.close();
        await eventStore.close();
        return 0;
      });
  }
}

answerCalls(answer);
