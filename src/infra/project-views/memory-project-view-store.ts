// Project views in memory: the twin of the SQLite store for tests and throw-away servers.
import type { ProjectView, ProjectViewStore } from '../../ports/project-views.js';

export function createMemoryProjectViewStore(): ProjectViewStore {
  const viewedAt = new Map<string, number>();
  const key = (view: ProjectView) => `${view.personId}:${view.projectId}`;
  return {
    async record(view, at) {
      viewedAt.set(key(view), Math.max(at, viewedAt.get(key(view)) ?? at));
    },
    async lastViewedAt(views) {
      return views.map((view) => viewedAt.get(key(view)) ?? null);
    },
    async close() {},
  };
}
