// What a search derives from a project's read models and may keep for the next ones (its text index, its
// stories' rows), where the caller is told which documents are written: the search worker
// (infra/search/kept-project-indexes.ts), which brings a kept value up to date by reading those again.
// Elsewhere nothing is kept and each search reads afresh.

/** A value derived from one project's read models, with its estimated heap bytes. */
export interface Sized {
  readonly bytes: number;
}

export interface KeptPerProject<T extends Sized> {
  /** The kept value, brought up to date with the documents written since it was made, or null when none is kept (nothing is built). */
  current(projectId: number): Promise<T | null>;
  /**
   * The kept value brought up to date, else the one `build` reads now, kept when it fits. Searches
   * asking while it is being built wait for it rather than build it again (should that build fail, each
   * builds its own).
   */
  valueOf(projectId: number, build: () => Promise<T>): Promise<T>;
}

/**
 * A kept value brought up to date: the project's documents among `ids` read again (the others, written
 * elsewhere, left as they are); null when building it afresh costs less.
 */
export type Refresh<T extends Sized> = (value: T, projectId: number, ids: readonly number[]) => Promise<T | null>;
