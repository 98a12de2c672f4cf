// Records that a person viewed a project without making a hot GET a write: the same person viewing the
// same project again within the window (60 s) writes nothing. What was written when is remembered in one
// map per process, bounded (the least recently written pair goes first; forgetting one costs one more
// write, never a wrong value). Times are whole seconds, like every datetime the service records. A view
// never fails or holds up the GET that made it: a store failure is logged and the GET answers normally.
import { wholeSecond } from '../../domain/whole-seconds.js';
import type { ProjectView, ProjectViewStore, ViewRecorder } from '../../ports/project-views.js';
import type { Log } from '../log.js';

export interface ViewThrottle {
  /** A view this soon after the pair's last written one is not written. */
  windowMs: number;
  /** Pairs remembered at most. */
  maxEntries: number;
}

export const DEFAULT_VIEW_THROTTLE: ViewThrottle = { windowMs: 60_000, maxEntries: 10_000 };

export class ThrottledViewRecorder implements ViewRecorder {
  /** Map order is write order: the first key is the least recently written pair. */
  private readonly writtenAt = new Map<string, number>();

  constructor(
    private readonly store: ProjectViewStore,
    private readonly log: Log,
    private readonly throttle: ViewThrottle = DEFAULT_VIEW_THROTTLE,
  ) {}

  viewed(view: ProjectView, at: number): void {
    const viewedAt = wholeSecond(at);
    const key = `${view.personId}:${view.projectId}`;
    const last = this.writtenAt.get(key);
    if (last !== undefined && viewedAt >= last && viewedAt - last < this.throttle.windowMs) return;
    this.remember(key, viewedAt);
    this.write(view, viewedAt);
  }

  private remember(key: string, viewedAt: number): void {
    this.writtenAt.delete(key);
    this.writtenAt.set(key, viewedAt);
    if (this.writtenAt.size > this.throttle.maxEntries) this.writtenAt.delete(this.writtenAt.keys().next().value as string);
  }

  private write(view: ProjectView, viewedAt: number): void {
    const failed = (error: unknown) =>
      this.log.warn('could not record a project view; the request was answered', {
        person_id: view.personId,
        project_id: view.projectId,
        error: error instanceof Error ? error.message : String(error),
      });
    try {
      this.store.record(view, viewedAt).catch(failed);
    } catch (error) {
      failed(error);
    }
  }
}
