// What a search derives from a project's read models and may keep for the next ones (its text index, its
// stories' rows), where the caller can tell when the read models change: the search worker
// (infra/search/kept-project-indexes.ts). Elsewhere nothing is kept and each search reads afresh.

/** A value derived from one project's read models, with its estimated heap bytes. */
export interface Sized {
  readonly bytes: number;
}

export interface KeptPerProject<T extends Sized> {
  /** The kept value if it is still current, else null (nothing is built). */
  current(projectId: number): T | null;
  /**
   * The kept value if it is still current, else the one `build` reads now, kept when it fits. Searches
   * asking while it is being built wait for it rather than build it again (should that build fail, each
   * builds its own).
   */
  valueOf(projectId: number, build: () => Promise<T>): Promise<T>;
}
