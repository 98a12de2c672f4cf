// When each person last viewed each project: a membership's `last_viewed_at`. A view is a read, so it
// never enters the event log (that would make every GET of a project a write and move its version); it is
// kept in a person-scoped store of its own beside the log. Adapters: infra/project-views/
// (`views.sqlite` in the data directory, and an in-memory twin).

/** One person's view of one project. */
export interface ProjectView {
  personId: number;
  projectId: number;
}

/** What the HTTP layer reads: the last view of each pair, null where the person never viewed the project. */
export interface ProjectViewReads {
  lastViewedAt(views: readonly ProjectView[]): Promise<(number | null)[]>;
}

export interface ProjectViewStore extends ProjectViewReads {
  /** Stores a view at `viewedAt` (ms); a later view already stored is kept. */
  record(view: ProjectView, viewedAt: number): Promise<void>;
  close(): Promise<void>;
}

/** What the HTTP pipeline tells when a person views a project: it never throws and is never waited for. */
export interface ViewRecorder {
  viewed(view: ProjectView, at: number): void;
}
