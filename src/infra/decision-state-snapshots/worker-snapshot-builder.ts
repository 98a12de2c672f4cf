// Stream-state snapshots built in a worker thread (snapshot-builder-worker.ts) with read-only access to
// the log and a connection of its own to states.sqlite, so that folding a long stream's history never
// holds the serving thread:
// - catchUp(stream): the command handler's first load of a stream `distance` events or more past its
//   snapshot (or without one) waits until one is stored at the stream's head, then reads it and folds
//   what was appended since itself. Sixteen first writes at once to projects of 18,000 events each, with
//   no snapshot (the first start after an upgrade), folded on the serving thread side by side: 16 of them
//   passed a client's 10 s timeout under the disk bench's load, and every other request waited. The
//   handler also asks it, without waiting, for each snapshot that falls due (every `distance` events it
//   folds), so the serving thread never serialises a state.
// - sweep(): after a start, the snapshots of every stream that lacks one that close are built, longest
//   gap first; a stream a command waits for goes before the sweep's next. Finding them walks the log's
//   (stream, version) index once per start (100-330 ms at 1.25M events, in the worker).
// One build at a time; a build a command waits for goes first. A failed worker fails its calls (the
// handler then folds on the serving thread, as without a builder); the next call starts a fresh one.
import type { DecisionStateSnapshotBuilder } from '../../ports/decision-state-snapshots.js';
import type { Log } from '../log.js';
import { WorkerCalls } from '../worker-calls.js';

/** What the worker is started with. */
export interface SnapshotBuilderData {
  eventsPath: string;
  statesPath: string;
  /** A snapshot this many events or more behind its stream's head is built again (the handler's snapshot distance). */
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
