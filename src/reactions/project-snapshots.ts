// The project-snapshots reaction (issue 16, time travel within 2 s cold): every `every` versions of a
// project (versions every, 2·every, ...) it has the project's read models at that version persisted, so
// that `as_of_version=N` in a process that never folded the project starts from the snapshot at or below
// N and folds fewer than `every` events (infra/time-travel/).
//
// It decides only WHEN; taking a snapshot (fold from the previous one with the same projection code,
// store) is the port's. Behind the log like every reaction: writes never wait for it; at least once
// (a snapshot is keyed by project and version, taking it again replaces it with the same documents);
// work per batch is bounded by the batch (at most one snapshot per event, each folding at most `every`
// events from the previous one).
import { projectIdOfStream } from '../domain/events.js';
import type { Reaction } from './reaction.js';

export const PROJECT_SNAPSHOTS = 'project-snapshots';

/** What the reaction needs: taking snapshots and remembering how far they are taken. */
export interface ProjectSnapshots {
  /** The log position up to which every snapshot is taken (0: none is, e.g. the snapshot file was deleted). */
  takenUpTo(): Promise<number>;
  /** Takes the snapshots of the project at `version` (the stream's event at global `position`), skipping those already taken. */
  take(projectId: number, version: number, position: number): Promise<void>;
  /** Records that every snapshot up to `position` is taken. */
  recordTakenUpTo(position: number): Promise<void>;
}

export function projectSnapshotsReaction(snapshots: ProjectSnapshots, every: number): Reaction {
  if (!(Number.isSafeInteger(every) && every > 0)) throw new Error('snapshots are taken every positive integer number of versions');
  return {
    name: PROJECT_SNAPSHOTS,
    async resumeAfter() {
      return snapshots.takenUpTo();
    },
    async handle(events) {
      for (const event of events) {
        const projectId = projectIdOfStream(event.stream);
        if (projectId !== null && event.version % every === 0) await snapshots.take(projectId, event.version, event.position);
      }
      await snapshots.recordTakenUpTo(events.at(-1)!.position);
    },
  };
}
