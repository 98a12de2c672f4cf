// Project views in a small SQLite file of their own (`views.sqlite` in the data directory), written only
// by the serving process (the CLI never opens it). A view is worth little: `synchronous = NORMAL` (a
// power loss may take back the last views), and a short busy timeout, so recording one never holds the
// event loop that serves requests.
import Database from 'better-sqlite3';
import type { ProjectView, ProjectViewStore } from '../../ports/project-views.js';
import { asStorageFailure } from '../storage-failure.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS project_views (
    person_id  INTEGER NOT NULL,
    project_id INTEGER NOT NULL,
    viewed_at  INTEGER NOT NULL,
    PRIMARY KEY (person_id, project_id)
  ) WITHOUT ROWID;
`;

export function openSqliteProjectViewStore(path: string): ProjectViewStore {
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 250');
  db.exec(SCHEMA);
  const upsert = db.prepare<[number, number, number]>(`
    INSERT INTO project_views (person_id, project_id, viewed_at) VALUES (?, ?, ?)
    ON CONFLICT (person_id, project_id) DO UPDATE SET viewed_at = max(viewed_at, excluded.viewed_at)`);
  const lastView = db.prepare<[number, number], number>('SELECT viewed_at FROM project_views WHERE person_id = ? AND project_id = ?').pluck();
  return {
    async record(view: ProjectView, viewedAt: number) {
      try {
        upsert.run(view.personId, view.projectId, viewedAt);
      } catch (error) {
        throw asStorageFailure(error);
      }
    },
    async lastViewedAt(views: readonly ProjectView[]) {
      return views.map((view) => lastView.get(view.personId, view.projectId) ?? null);
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
