// What the search worker keeps of projects between searches (queries/search/kept-per-project.ts: text
// indexes, stories' rows), brought up to date instead of built afresh after writes: every call from the
// serving thread names the documents of the collections written since its previous call (ProjectorRunner
// .writtenSince), noted here against the values derived from those collections before the call's search
// starts; a value with documents noted is refreshed (those documents read again) when next asked for.
// Where the writes are not all known (a switch-over, a write not naming its documents, too many), the
// values of the collection are forgotten and built afresh by the next search needing them. Searches
// asking while a value is built or refreshed wait for that instead of doing it again. Bounded in
// estimated bytes, all kinds together: the least recently used go first, and a value larger than the
// whole budget is used by its search but not kept.
import type { KeptPerProject, Refresh, Sized } from '../../queries/search/kept-per-project.js';

/** Documents noted past this many per value, it is forgotten: building it afresh costs less than reading them. */
const MOST_NOTED_IDS = 2_000;
/** Builds or refreshes of one value a search waits for before it makes its own (writes keep coming). */
const MOST_WAITS = 3;

interface Kept {
  collection: string;
  value: Sized;
  /** Documents written since the value was read, to read again before it is used. */
  noted: Set<number>;
}

/** A build or refresh under way: what it will give, and the writes noted meanwhile (null: any document). */
interface Making {
  key: string;
  collection: string;
  value: Promise<Sized | null>;
  notedMeanwhile: Set<number> | null;
}

export class KeptProjectIndexes {
  /** By `<kind>:<physical collection>:<project id>`, least recently used first. */
  private readonly kept = new Map<string, Kept>();
  /** Builds and refreshes under way. */
  private readonly making = new Set<Making>();
  private bytes = 0;

  constructor(
    /** Most estimated heap bytes of the values kept together. */
    private readonly budgetBytes: number,
  ) {}

  /**
   * The values of one kind derived from the collection `collection` (its live generation's physical
   * name), brought up to date by `refresh`.
   */
  of<T extends Sized>(kind: string, collection: string, refresh: Refresh<T>): KeptPerProject<T> {
    const keyOf = (projectId: number) => `${kind}:${collection}:${projectId}`;
    const refreshing = (projectId: number) => (value: Sized, ids: readonly number[]) => refresh(value as T, projectId, ids);
    return {
      current: async (projectId) => (await this.upToDate(keyOf(projectId), collection, refreshing(projectId), null)) as T | null,
      valueOf: async (projectId, build) => (await this.upToDate(keyOf(projectId), collection, refreshing(projectId), build)) as T,
    };
  }

  /**
   * The documents of `collection` written since the previous note (null: any of them): the values
   * derived from it read them again before their next use.
   */
  note(collection: string, ids: readonly number[] | null): void {
    for (const [key, kept] of [...this.kept]) {
      if (kept.collection !== collection) continue;
      if (ids !== null) for (const id of ids) kept.noted.add(id);
      if (ids === null || kept.noted.size > MOST_NOTED_IDS) this.forget(key);
    }
    for (const making of this.making) {
      if (making.collection !== collection || making.notedMeanwhile === null) continue;
      if (ids === null) making.notedMeanwhile = null;
      else for (const id of ids) making.notedMeanwhile.add(id);
    }
  }

  /** Estimated heap bytes of the values kept. */
  keptBytes(): number {
    return this.bytes;
  }

  /**
   * The kept value, refreshed first when documents were noted against it; else built by `build` (null
   * without one). A build or refresh under way is waited for, then what it kept is looked at again:
   * writes noted meanwhile are read before the value is answered.
   */
  private async upToDate(
    key: string,
    collection: string,
    refresh: (value: Sized, ids: readonly number[]) => Promise<Sized | null>,
    build: (() => Promise<Sized>) | null,
  ): Promise<Sized | null> {
    for (let waits = 0; ; waits++) {
      const under = waits < MOST_WAITS ? [...this.making].findLast((making) => making.key === key) : undefined;
      if (under !== undefined) {
        await under.value.catch(() => undefined);
        continue;
      }
      const kept = this.kept.get(key);
      this.forget(key);
      if (kept === undefined) return build === null ? null : this.made(key, collection, build);
      if (kept.noted.size === 0) {
        this.remember(key, kept);
        return kept.value;
      }
      const refreshed = await this.made(key, collection, () => refresh(kept.value, [...kept.noted]));
      if (refreshed !== null || build === null) return refreshed;
      return this.made(key, collection, build);
    }
  }

  /** Makes the value and keeps it, unless a write it may have missed was noted as any document (or it made none). */
  private async made<V extends Sized | null>(key: string, collection: string, make: () => Promise<V>): Promise<V> {
    const making: Making = { key, collection, value: make(), notedMeanwhile: new Set() };
    this.making.add(making);
    try {
      const value = (await making.value) as V;
      if (value !== null && making.notedMeanwhile !== null) this.keep(key, { collection, value, noted: making.notedMeanwhile });
      return value;
    } finally {
      this.making.delete(making);
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
