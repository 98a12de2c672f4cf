// What a search derives from a project's read models and may keep for the next ones (its text index, its
// stories' rows), where the caller can tell when the read models change: the search worker
// (infra/search/kept-project-indexes.ts). Elsewhere nothing is kept and each search reads afresh.

/** A value derived from one project's read models, with its estimated heap bytes. */
export interface Sized {
  readonly bytes: number;
}

export interface KeptPerProject<T extends Sized> {
  /** The kept value if it is still current, and how to keep one built now from the current read models. */
  kept(projectId: number): { value: T | null; keep(value: T): void };
}
