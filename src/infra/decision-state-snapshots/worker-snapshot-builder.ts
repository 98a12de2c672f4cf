// Decision-state snapshots built in a worker thread (snapshot-builder-worker.ts) with read-only access to
// the log and a connection of its own to states.sqlite, so that folding a long stream's history never
// holds the serving thread:
// - catchUp(stream): a stream's first load, `distance` events or more past its snapshot (or without
//   one), waits until one is stored at the stream's head, then reads it and folds what was appended since,
//   instead of many long folds side by side on the serving thread (the first start after an upgrade;
//   figures in docs/benchmarks.md). The states adapter (infra/stream-states) also asks it, without
//   waiting, for each snapshot that falls due, so the serving thread never serialises a state.
// - sweep(): after a start, the snapshots of every stream that lacks one that close are built, longest
//   gap first; a stream a command waits for goes before the sweep's next. Finding them walks the log's
//   (stream, version) index once per start, in the worker.
// One build at a time; a build a command waits for goes first. A failed worker fails its calls (the
// states adapter then folds on the serving thread, as without a builder); the next call starts a fresh one.
import type { DecisionStateSnapshotBuilder } from '../../ports/decision-state-snapshots.js';
import type { Log } from '../log.js';
import { WorkerCalls } from '../worker-calls.js';

/** What the worker is started with. */
export interface SnapshotBuilderData {
  eventsPath: string;
  statesPath: string;
  /** A snapshot this many events or more behind its stream's head is built again (the states adapter's snapshot distance). */
  distance: number;
}

/** One call to the worker; each answers a number of events folded (catchUp) or of snapshots stored (sweep). */
export type SnapshotBuilderCall = { call: 'catchUp'; stream: string } | { call: 'sweep' } | { call: 'close' };

export class WorkerSnapshotBuilder implements DecisionStateSnapshotBuilder {
  private readonly worker: WorkerCalls<SnapshotBuilderCall, number>;

  constructor(data: SnapshotBuilderData, log: Log) {
    this.worker = new WorkerCalls({ url: new URL('./snapshot-builder-worker.js', import.meta.url), workerData: data, log, name: 'the snapshot builder' });
  }

  async catchUp(stream: string): Promise<void> {
    await this.worker.call({ call: 'catchUp', stream });
  }

  /** Builds the snapshots of every stream `distance` or more events past its snapshot; resolves to how many it stored. */
  sweep(): Promise<number> {
    return this.worker.call({ call: 'sweep' });
  }

  /** Stops the sweep and a build under way (between two pages of events), then ends the worker. */
  close(): Promise<void> {
    return this.worker.close({ call: 'close' });
  }
}
