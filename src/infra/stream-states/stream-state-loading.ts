// How a stream's state is loaded from the store: from the stream's latest snapshot when that snapshot can
// serve (this code's state format, this stream, and the log still holds the event it ends with), then the
// events after it, folded a page at a time. The states adapter (cached-stream-states.ts) loads this way on
// the serving thread, and the snapshot builder (infra/decision-state-snapshots/worker-snapshot-builder.ts)
// in a worker, ahead of it.
import { decisionStateOfSnapshot } from '../../domain/decision-states.js';
import { DECISION_STATE_FORMAT, type StreamState } from '../../domain/resource-state.js';
import type { EventStore } from '../../ports/event-store.js';
import type { StoredSnapshotHead, DecisionStateSnapshots } from '../../ports/decision-state-snapshots.js';

/** Events read per page of a fold. */
const FOLD_PAGE = 1000;

/** The state of the stream's latest snapshot when it can serve, else null; a snapshot that cannot be read rejects. */
export async function stateOfLatestSnapshot(snapshots: DecisionStateSnapshots, eventStore: EventStore, stream: string): Promise<StreamState | null> {
  const snapshot = await snapshots.latest(stream);
  if (!snapshot || snapshot.stream !== stream || !(await snapshotServes(eventStore, snapshot))) return null;
  return decisionStateOfSnapshot(snapshot);
}

/**
 * Whether a snapshot ending at `version` of `stream` with the event `lastEventId` can serve: it is of this
 * code's state format, and the log holds that event there (a log restored from another backup, or written
 * again, does not).
 */
export async function snapshotServes(eventStore: EventStore, snapshot: StoredSnapshotHead): Promise<boolean> {
  if (snapshot.format !== DECISION_STATE_FORMAT) return false;
  const [last] = await eventStore.readStream(snapshot.stream, { from: snapshot.version, limit: 1 });
  return last?.id === snapshot.lastEventId;
}

/** How many events the stream's head is past its latest snapshot that serves (its head when it has none). */
export async function eventsPastSnapshot(snapshots: DecisionStateSnapshots, eventStore: EventStore, stream: string): Promise<number> {
  const head = await eventStore.streamVersion(stream);
  const stored = await snapshots.storedHead(stream);
  return stored && stored.stream === stream && (await snapshotServes(eventStore, stored)) ? head - stored.version : head;
}

/**
 * Folds into `state` the events of its stream after its version, a page at a time, awaiting
 * `betweenPages` after each full page; resolves to the number of events folded.
 */
export async function foldNewEvents(eventStore: EventStore, state: StreamState, betweenPages?: () => Promise<unknown>): Promise<number> {
  let folded = 0;
  for (;;) {
    const events = await eventStore.readStream(state.stream, { from: state.version + 1, limit: FOLD_PAGE });
    for (const event of events) state.evolve(event);
    folded += events.length;
    if (events.length < FOLD_PAGE) return folded;
    await betweenPages?.();
  }
}
