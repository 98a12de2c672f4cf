// What the search worker keeps of projects between searches (queries/search/kept-per-project.ts: text
// indexes, stories' rows) while the read models file does not change: each value is tagged with the
// file's data_version as it was before the reads it was built from, and is current only while that
// version holds (any commit of the projector makes it stale; the next search needing it builds it
// afresh, once: searches arriving meanwhile wait for that build). Bounded in estimated bytes, all kinds
// together: the least recently used go first, and a value larger than the whole budget is used by its
// search but not kept.
import type { KeptPerProject, Sized } from '../../queries/search/kept-per-project.js';

interface Kept {
  version: number;
  value: Sized;
}

export class KeptProjectIndexes {
  /** By `<kind>:<physical collection>:<project id>`, least recently used first. */
  private readonly kept = new Map<string, Kept>();
  /** Builds under way, by the same keys, with the version they started at. */
  private readonly building = new Map<string, { version: number; value: Promise<Sized> }>();
  private bytes = 0;

  constructor(
    /** The file's data_version now (SqliteReadStore.dataVersion). */
    private readonly dataVersion: () => number,
    /** Most estimated heap bytes of the values kept together. */
    private readonly budgetBytes: number,
  ) {}

  /** The values of one kind derived from the collection `collection` (its live generation's physical name). */
  of<T extends Sized>(kind: string, collection: string): KeptPerProject<T> {
    const keyOf = (projectId: number) => `${kind}:${collection}:${projectId}`;
    return {
      current: (projectId) => this.current(keyOf(projectId), this.dataVersion()) as T | null,
      valueOf: (projectId, build) => this.valueOf(keyOf(projectId), build) as Promise<T>,
    };
  }

  /** Estimated heap bytes of the values kept. */
  keptBytes(): number {
    return this.bytes;
  }

  private current(key: string, version: number): Sized | null {
    const kept = this.kept.get(key);
    if (kept === undefined) return null;
    this.forget(key);
    if (kept.version !== version) return null;
    this.remember(key, kept);
    return kept.value;
  }

  private async valueOf(key: string, build: () => Promise<Sized>): Promise<Sized> {
    const version = this.dataVersion();
    const kept = this.current(key, version);
    if (kept !== null) return kept;
    const under = this.building.get(key);
    if (under?.version === version) {
      const shared = await under.value.then((value) => value, () => null);
      if (shared !== null) return shared;
    }
    const value = build();
    this.building.set(key, { version, value });
    try {
      const built = await value;
      this.keep(key, { version, value: built });
      return built;
    } finally {
      if (this.building.get(key)?.value === value) this.building.delete(key);
    }
  }

  private keep(key: string, kept: Kept): void {
    this.forget(key);
    if (kept.value.bytes > this.budgetBytes) return;
    for (const [oldest] of this.kept) {
      if (this.bytes + kept.value.bytes <= this.budgetBytes) break;
      this.forget(oldest);
    }
    this.remember(key, kept);
  }

  private remember(key: string, kept: Kept): void {
    this.kept.set(key, kept);
    this.bytes += kept.value.bytes;
  }

  private forget(key: string): void {
    const kept = this.kept.get(key);
    if (kept === undefined) return;
    this.kept.delete(key);
    this.bytes -= kept.value.bytes;
  }
}
