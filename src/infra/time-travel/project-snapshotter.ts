// Takes the snapshots the project-snapshots reaction asks for (src/reactions/project-snapshots.ts): the
// project's fold at the version, made by a FoldingProjectHistory of its own (so the reaction never
// evicts the folds requests use) that starts from the previous snapshot, kept in memory from the last
// one taken or read back from the store, and folds the events since with the same projection code.
// Memory stays bounded: that history keeps one fold per snapshotted projection (one project's state at
// a time).
//
// Progress is kept per projection version in the store (snapshot_progress): a projection whose version
// changed, or a deleted snapshot file, starts at 0, so the reaction replays the log and takes that
// projection's snapshots again while the others skip the positions they already covered.
import type { EventStore } from '../../ports/event-store.js';
import type { Projection } from '../../projections/projection.js';
import type { ProjectSnapshots } from '../../reactions/project-snapshots.js';
import { createMemoryReadStore } from '../read-store/memory-read-store.js';
import { FoldingProjectHistory } from './project-history.js';
import type { ReadModelSnapshotStore } from './read-model-snapshot-store.js';

/**
 * The projections worth a snapshot: every one but the activity indexes (one document per event), which
 * only the activity feeds read, and those refuse `as_of_version` (their routes say `timeTravel: false`).
 */
export const UNSNAPSHOTTED_PROJECTIONS: ReadonlySet<string> = new Set(['performer_activity', 'subject_activity']);

export function snapshottedProjections(projections: readonly Projection[]): Projection[] {
  return projections.filter((projection) => !UNSNAPSHOTTED_PROJECTIONS.has(projection.name));
}

/**
 * The snapshotter of the snapshotted ones among `projections`, over `eventStore` and `store`, with a
 * history of its own (one fold per projection in memory stores, at most `cacheBytes` of them beyond the
 * most recent), as both placements build it (snapshot-placement.ts).
 */
export function projectSnapshotter(options: { eventStore: EventStore; store: ReadModelSnapshotStore; projections: readonly Projection[]; cacheBytes: number }): {
  snapshotter: ProjectSnapshotter;
  history: FoldingProjectHistory;
} {
  const projections = snapshottedProjections(options.projections);
  const history = new FoldingProjectHistory({
    eventStore: options.eventStore,
    projections,
    newReadStore: createMemoryReadStore,
    cacheEntries: projections.length,
    cacheBytes: options.cacheBytes,
    snapshots: options.store,
  });
  return { snapshotter: new ProjectSnapshotter({ history, store: options.store, projections }), history };
}

export class ProjectSnapshotter implements ProjectSnapshots {
  /** Projection name -> position its snapshots are taken up to (loaded from the store on first use). */
  private progress: Map<string, number> | null = null;

  constructor(
    private readonly options: {
      /** Folds for snapshots only, starting from `store`'s snapshots; one cached fold per projection is enough. */
      history: FoldingProjectHistory;
      store: ReadModelSnapshotStore;
      projections: readonly Projection[];
    },
  ) {}

  async takenUpTo(): Promise<number> {
    const progress = await this.loadProgress();
    return Math.min(...progress.values());
  }

  async take(projectId: number, version: number, position: number): Promise<void> {
    const progress = await this.loadProgress();
    const { history, store } = this.options;
    for (const projection of this.options.projections) {
      if (progress.get(projection.name)! >= position) continue;
      await store.put(projectId, projection, await history.snapshotAt(projectId, projection, version));
    }
  }

  async recordTakenUpTo(position: number): Promise<void> {
    const progress = await this.loadProgress();
    await this.options.store.recordProgress(this.options.projections, position);
    for (const [name, taken] of progress) progress.set(name, Math.max(taken, position));
  }

  private async loadProgress(): Promise<Map<string, number>> {
    if (!this.progress) {
      const progress = new Map<string, number>();
      for (const projection of this.options.projections) progress.set(projection.name, await this.options.store.progress(projection));
      this.progress = progress;
    }
    return this.progress;
  }
}
