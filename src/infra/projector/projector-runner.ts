// The projector runner: applies the global event log, in order, to every registered projection and keeps
// their read models current.
//
// - Checkpoints: one document per projection in `_checkpoints` ({id, name, version, generation,
//   position}), written in the same atomic write as the batch's documents (ReadStore.writeAtomically:
//   one transaction on SQLite), so a start after a clean stop or a crash catches up from the checkpoint.
//   Delivery is at least once; the replay guard (replay-guard.ts) makes applying an event twice a no-op,
//   so an adapter without transactions only costs a replay.
// - Generations: a projection's collections are stored as `<name>__g<generation>`. A rebuild replays the
//   whole log into the next generation while the live one keeps serving and following, then (with the
//   live pump paused) applies what arrived meanwhile, switches the checkpoint over and drops the old
//   generation. `collection(name)` always reads the live generation. A projection whose stored version
//   differs from its code's version is rebuilt that way after start-up; leftovers of an interrupted
//   rebuild are dropped at start.
// - Following: after catching up, every `appended$` notification drains the log in batches (one read of
//   `batchSize` events, one write per collection). `waitFor(position)` resolves once every projection has
//   applied that position (read-your-writes for the command handler).
// - Announcing: every live batch, once applied and visible, is emitted on `applied$` (AppliedEvents):
//   the one place where the server learns of new events, wherever they were appended, with the read
//   models already showing them (the live activity stream fans out from here).
import type { AppliedEvents } from '../../ports/applied-events.js';
import type { ReadModelChanges } from '../../ports/read-model-changes.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Observable, Subscription } from 'rxjs';
import { Subject } from 'rxjs/internal/Subject'; // not the root module: all of rxjs
import type { RecordedEvent } from '../../domain/events.js';
import type { Projection } from '../../projections/projection.js';
import type { EventStore } from '../../ports/event-store.js';
import type { Log } from '../log.js';
import { silentLog } from '../log.js';
import type { CollectionWrites, Doc, ReadCollection, ReadOnlyCollection, ReadStore, WriteOp } from '../../ports/read-store.js';
import { foldLog } from './log-fold.js';
import type { ParallelFold } from './parallel-fold.js';
import { guardedWrites, physicalName, targetOf, type Target } from './projection-target.js';
import { DEFAULT_REBUILD_HEAP_BYTES } from './rebuild-working-set.js';
import { WrittenIdsLog } from './written-ids.js';

export { physicalName };

export interface ProjectorRunnerOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  projections: readonly Projection[];
  /** Events per read of the log (default 1000: larger batches outlive V8's young generation and were slower). */
  batchSize?: number;
  /**
   * Heap a rebuild's in-memory working set may grow the process to before it moves documents out to
   * the read store (default DEFAULT_REBUILD_HEAP_BYTES; see rebuild-working-set.ts).
   */
  rebuildHeapBytes?: number;
  /**
   * Whether a generation built from position 0 at start (a new projection, a deleted read-models file)
   * is folded in memory as a rebuild is, instead of applied batch by batch (stores on disk: true; a
   * memory store, as time travel's folds use, gains nothing from it).
   */
  foldFromScratch?: boolean;
  /**
   * Whether rebuild() folds the log in memory and writes each final document once (the offline shape,
   * `storyline rebuild-projections`: several times faster, but writing the working set and building the
   * indexes hold the event loop for seconds at a million events) instead of applying it batch by batch
   * into the new generation (what a serving process does: requests are answered between two batches).
   */
  foldRebuilds?: boolean;
  /**
   * Folds (those of rebuild() when foldRebuilds, of generations built from scratch at start) in worker
   * threads, their indexes built there too (parallel-fold.ts): given by the composition for the embedded
   * SQLite stores. Nothing else may write to the read store meanwhile: a start's catch-up runs before
   * the server listens, and a serving process's rebuilds go batch by batch (foldRebuilds false).
   */
  parallelFold?: ParallelFold;
  log?: Log;
}

/** What start() did: events read while catching up and how long it took. */
export interface CatchUpReport {
  eventsRead: number;
  ms: number;
  /** The position every projection has applied. */
  position: number;
  /** Projections whose stored version differs from the code: being rebuilt in the background. */
  rebuilding: string[];
}

/** How far a rebuild's read of the log has come. */
export interface RebuildProgress {
  eventsRead: number;
  total: number;
}

export interface RebuildReport {
  projection: string;
  generation: number;
  eventsRead: number;
  ms: number;
  position: number;
}

export type { ReadOnlyCollection };

export class ProjectorStopped extends Error {
  constructor() {
    super('the projector runner was stopped');
    this.name = 'ProjectorStopped';
  }
}

export const CHECKPOINTS = '_checkpoints';

/** A change of every document of the collections (a switch-over to a generation built afresh). */
function everyDocumentOf(collections: readonly string[]): Map<string, null> {
  return new Map(collections.map((name) => [name, null]));
}

/** How often a long catch-up or rebuild logs its progress. */
const PROGRESS_LOG_MS = 5000;

interface Checkpoint extends Doc {
  name: string;
  version: number;
  generation: number;
  position: number;
}

interface Waiter {
  position: number;
  resolve(): void;
  reject(error: unknown): void;
}

const PHYSICAL_NAME = /^(.+)__g(\d+)$/;

/** Stable checkpoint id of a projection: FNV-1a of its name (order of registration does not matter). */
export function checkpointId(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The write that records `target` as having applied the log up to `position`. */
function checkpointWrite(target: Target, position: number): WriteOp {
  const id = checkpointId(target.projection.name);
  const doc: Checkpoint = { id, name: target.projection.name, version: target.version, generation: target.generation, position };
  return { op: 'replace', filter: { id }, doc, upsert: true };
}

function elapsedSince(start: number): number {
  return Math.round(performance.now() - start);
}

export class ProjectorRunner implements ReadModelChanges, AppliedEvents {
  private readonly eventStore: EventStore;
  private readonly readStore: ReadStore;
  private readonly projections: readonly Projection[];
  private readonly batchSize: number;
  private readonly rebuildHeapBytes: number;
  private readonly foldFromScratch: boolean;
  private readonly foldRebuilds: boolean;
  private readonly parallelFold: ParallelFold | null;
  private readonly log: Log;
  private readonly checkpoints: ReadCollection;
  /** Logical collection name -> name of the projection that owns it. */
  private readonly owners = new Map<string, string>();
  /** Projection name -> its live generation. */
  private readonly live = new Map<string, Target>();
  /** Batches applied and switch-overs made (ReadModelChanges). */
  private changes = 0;
  /** Per logical collection: the live batches and switch-overs that changed it (ReadModelChanges.stampOf). */
  private readonly collectionChanges = new Map<string, number>();
  /** Per logical collection followed, the ids each live batch wrote (writtenSince). */
  private readonly writtenIds = new WrittenIdsLog();
  private readonly rebuilds = new Map<string, Promise<RebuildReport>>();
  private startupRebuilds: Promise<RebuildReport[]> = Promise.resolve([]);
  private waiters: Waiter[] = [];
  private subscription: Subscription | null = null;
  private running = false;
  private stopped = false;
  private draining: Promise<void> | null = null;
  private drainAgain = false;
  /** Why the last drain failed to apply the log (a storage failure), until one applies it all. */
  private failure: { error: unknown } | null = null;
  /** Serialises the live pump's batches with a rebuild's switch-over. */
  private lock: Promise<unknown> = Promise.resolve();
  private eventsRead = 0;
  private readonly appliedBatches = new Subject<readonly RecordedEvent[]>();
  /** AppliedEvents: each live batch once the read models show it, in log order. */
  readonly applied$: Observable<readonly RecordedEvent[]> = this.appliedBatches.asObservable();
  /** Set while start() catches up: logs progress on a long catch-up. */
  private catchUpProgress: ((progress: RebuildProgress) => void) | null = null;

  constructor(options: ProjectorRunnerOptions) {
    this.eventStore = options.eventStore;
    this.readStore = options.readStore;
    this.projections = options.projections;
    this.batchSize = options.batchSize ?? 1000;
    this.rebuildHeapBytes = options.rebuildHeapBytes ?? DEFAULT_REBUILD_HEAP_BYTES;
    this.foldFromScratch = options.foldFromScratch ?? false;
    this.foldRebuilds = options.foldRebuilds ?? false;
    this.parallelFold = options.parallelFold ?? null;
    this.log = options.log ?? silentLog;
    this.checkpoints = this.readStore.collection(CHECKPOINTS);
    if (!(Number.isSafeInteger(this.batchSize) && this.batchSize > 0)) throw new Error('batchSize must be a positive integer');
    const ids = new Set<number>();
    for (const projection of this.projections) {
      const id = checkpointId(projection.name);
      if (ids.has(id)) throw new Error(`two projections share the checkpoint of ${projection.name}`);
      ids.add(id);
      for (const { name } of projection.collections) {
        if (this.owners.has(name)) throw new Error(`collection ${name} is declared by ${this.owners.get(name)} and ${projection.name}`);
        if (PHYSICAL_NAME.test(name) || name === CHECKPOINTS) throw new Error(`collection name ${name} is reserved`);
        this.owners.set(name, projection.name);
      }
    }
  }

  /** ReadModelChanges: moves after every applied batch and every switch-over. */
  stamp(): number {
    return this.changes;
  }

  /** ReadModelChanges: moves after every live batch that wrote to one of these collections and every switch-over of their projection. */
  stampOf(collections: readonly string[]): number {
    let sum = 0;
    for (const name of collections) sum += this.collectionChanges.get(name) ?? 0;
    return sum;
  }

  /** From now on, remembers which documents each live batch writes to these collections (writtenSince). */
  followWrites(collections: readonly string[]): void {
    for (const name of collections) this.writtenIds.follow(name, this.collectionChanges.get(name) ?? 0);
  }

  /**
   * The ids of the documents written to a followed live collection since its stampOf([collection]) was
   * `stamp` (empty when it has not moved), or null when they are not all known (a switch-over, a write
   * not naming its documents, too far back, or before it was followed): what the search worker brings
   * its kept values up to date by.
   */
  writtenSince(collection: string, stamp: number): Set<number> | null {
    return this.writtenIds.since(collection, stamp);
  }

  /**
   * Records a change of the live collections named (what stampOf() counts), then of the read models:
   * the ids each wrote, or any document (null: a switch-over, an op not naming its documents).
   */
  private changed(written: ReadonlyMap<string, Iterable<number> | null>): void {
    for (const [name, ids] of written) {
      const stamp = (this.collectionChanges.get(name) ?? 0) + 1;
      this.collectionChanges.set(name, stamp);
      this.writtenIds.record(name, stamp, ids);
    }
    this.changes++;
  }

  private static collectionsOf(targets: readonly Target[]): string[] {
    return targets.flatMap((target) => [...target.collections.keys()]);
  }

  /** The lowest position every live projection has applied (0 before start). */
  get position(): number {
    if (!this.running && this.live.size === 0) return 0;
    let lowest = Infinity;
    for (const target of this.live.values()) lowest = Math.min(lowest, target.position);
    return lowest === Infinity ? 0 : lowest;
  }

  private hasApplied(position: number): boolean {
    if (!this.running) return false;
    for (const target of this.live.values()) if (target.position < position) return false;
    return true;
  }

  /**
   * Loads checkpoints, catches up with the log, then follows it. A failed start leaves it stopped.
   * `signal` aborts the catch-up between two batches (what was applied is kept with its checkpoint, so
   * the next start goes on from there); start() then rejects with the signal's reason.
   */
  async start(signal?: AbortSignal): Promise<CatchUpReport> {
    if (this.running || this.stopped) throw new Error('a projector runner starts once');
    try {
      return await this.catchUp(signal);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  private async catchUp(signal?: AbortSignal): Promise<CatchUpReport> {
    const started = performance.now();
    const head = await this.eventStore.headPosition();
    for (const projection of this.projections) this.live.set(projection.name, await this.loadTarget(projection, head));
    await this.dropOrphanGenerations();
    // A generation built from the start (a new projection, a deleted file) is indexed after its catch-up,
    // as a rebuild is: entries built once from the final documents instead of moved at every write.
    const building = [...this.live.values()].filter((target) => target.position === 0);
    for (const target of this.live.values()) if (target.position > 0) await this.ensureIndexes(target);
    this.running = true;
    this.subscription = this.eventStore.appended$.subscribe(() => this.follow());
    const readBefore = this.eventsRead;
    if (head > this.position) this.log.info('catching up projections', { from: this.position, to: head });
    const logCatchUp = this.progressLogger('catching up projections', [...this.live.keys()]);
    const from = this.position;
    this.catchUpProgress = ({ eventsRead }) => logCatchUp({ eventsRead: eventsRead - readBefore, total: head - from });
    if (this.foldFromScratch && building.length > 0 && head > 0) await this.foldFromStart(building, head, signal);
    while (this.running && (await this.applyNextBatch()) === this.batchSize) signal?.throwIfAborted();
    signal?.throwIfAborted();
    await this.drain();
    this.catchUpProgress = null;
    for (const target of building) await this.ensureIndexes(target);
    const stale = [...this.live.values()].filter((target) => target.version !== target.projection.version);
    const staleNames = stale.map((target) => target.projection.name);
    this.startupRebuilds = staleNames.length === 0 ? Promise.resolve([]) : this.rebuildTogether(staleNames, this.progressLogger('rebuilding projections', staleNames));
    this.startupRebuilds.catch(() => undefined); // logged by the rebuild; rebuildsSettled() rethrows
    const report: CatchUpReport = {
      eventsRead: this.eventsRead - readBefore,
      ms: elapsedSince(started),
      position: this.position,
      rebuilding: stale.map((target) => target.projection.name),
    };
    this.log.info('projections caught up', { ...report, eventsPerSecond: Math.round((report.eventsRead * 1000) / Math.max(report.ms, 1)) });
    return report;
  }

  /**
   * The generations built from position 0 at start, folded up to `head` as a rebuild's are, then their
   * checkpoints stored (after their documents). The live pump waits meanwhile. An abort stops the fold
   * between two batches with nothing checkpointed: leftovers of a generation at position 0 are dropped
   * before it is built again.
   */
  private foldFromStart(building: readonly Target[], head: number, signal?: AbortSignal): Promise<void> {
    return this.exclusive(async () => {
      for (const target of building) await this.dropGeneration(target);
      await this.foldInto(building, head, (read) => {
        this.eventsRead += read;
        this.catchUpProgress?.({ eventsRead: this.eventsRead, total: head });
        signal?.throwIfAborted();
      });
      await this.readStore.writeAtomically([{ collection: CHECKPOINTS, ops: building.map((target) => checkpointWrite(target, target.position)) }]);
      this.changed(everyDocumentOf(ProjectorRunner.collectionsOf(building)));
    });
  }

  /** A progress callback that logs at most every PROGRESS_LOG_MS (catch-up and rebuilds of a large log). */
  private progressLogger(message: string, projections: string[]): (progress: RebuildProgress) => void {
    let logged = performance.now();
    const started = logged;
    return ({ eventsRead, total }) => {
      const now = performance.now();
      if (now - logged < PROGRESS_LOG_MS) return;
      logged = now;
      const eventsPerSecond = Math.round((eventsRead * 1000) / Math.max(now - started, 1));
      this.log.info(message, { projections, eventsRead, total, eventsPerSecond });
    };
  }

  /** Settles when the rebuilds that start() began (projection versions changed) have switched over. */
  rebuildsSettled(): Promise<RebuildReport[]> {
    return this.startupRebuilds;
  }

  /** Stops following; pending waitFor() calls reject with ProjectorStopped; a running rebuild is abandoned. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.running = false;
    this.subscription?.unsubscribe();
    this.subscription = null;
    this.rejectWaiters(new ProjectorStopped());
    this.appliedBatches.complete();
    await this.draining?.catch(() => undefined);
    await Promise.allSettled([...this.rebuilds.values()]);
  }

  /**
   * ProjectionProgress.ready: at once unless the last drain failed; then drains again, rejecting with
   * its failure while it lasts (the command handler appends nothing meanwhile).
   */
  async ready(): Promise<void> {
    if (this.failure !== null) await this.drain();
  }

  /** Resolves once every projection has applied the event at `position` (at once if it already has). */
  waitFor(position: number): Promise<void> {
    if (this.stopped) return Promise.reject(new ProjectorStopped());
    if (this.hasApplied(position)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ position, resolve, reject });
      this.follow();
    });
  }

  /** The live generation of a logical collection, resolved on every call (so reads survive a switch-over). */
  collection(logicalName: string): ReadOnlyCollection {
    const owner = this.owners.get(logicalName);
    if (!owner) throw new Error(`no projection declares the collection ${logicalName}`);
    const current = (): ReadCollection => {
      const target = this.live.get(owner);
      if (!target) throw new Error('the projector runner has not been started');
      return target.collections.get(logicalName)!;
    };
    return {
      name: logicalName,
      find: (filter, options) => current().find(filter, options),
      findOne: (filter) => current().findOne(filter),
      count: (filter) => current().count(filter),
      all: () => current().all(),
    };
  }

  /**
   * Logical name -> the physical name of its live generation, for every collection (what another
   * connection to the read store reads the live read models by).
   */
  liveCollectionNames(): Record<string, string> {
    const names: Record<string, string> = {};
    for (const [logical, owner] of this.owners) {
      const target = this.live.get(owner);
      if (target) names[logical] = physicalName(logical, target.generation);
    }
    return names;
  }

  /**
   * Builds the projection into a fresh generation from position 0 while the live one keeps serving, then
   * switches over atomically and drops the old generation. Concurrent calls share one rebuild.
   */
  async rebuild(projectionName: string): Promise<RebuildReport> {
    const [report] = await this.rebuildTogether([projectionName]);
    return report!;
  }

  /**
   * Rebuilds several projections from ONE read of the log: each into a fresh generation, all switched
   * over together. `onProgress` hears how far the read has come (events read, of `total`). A projection
   * already being rebuilt joins nothing new: its running rebuild is awaited instead.
   */
  async rebuildTogether(projectionNames: readonly string[], onProgress?: (progress: RebuildProgress) => void): Promise<RebuildReport[]> {
    for (const name of projectionNames) if (!this.live.has(name)) throw new Error(`no projection named ${name}`);
    const fresh = [...new Set(projectionNames)].filter((name) => !this.rebuilds.has(name));
    if (fresh.length > 0) {
      const group = this.runRebuild(fresh, onProgress);
      for (const [index, name] of fresh.entries()) {
        const one = group.then((reports) => reports[index]!);
        one.catch(() => undefined); // the group's caller sees the failure
        this.rebuilds.set(name, one);
        void one.finally(() => this.rebuilds.delete(name)).catch(() => undefined);
      }
    }
    return Promise.all(projectionNames.map((name) => this.rebuilds.get(name)!));
  }

  private async runRebuild(projectionNames: readonly string[], onProgress?: (progress: RebuildProgress) => void): Promise<RebuildReport[]> {
    this.assertRunning();
    const started = performance.now();
    const targets = projectionNames.map((name) => {
      const live = this.live.get(name)!;
      return targetOf(this.readStore, live.projection, live.generation + 1, live.projection.version, 0);
    });
    const liveHead = () => Math.min(...projectionNames.map((name) => this.live.get(name)!.position));
    let eventsRead = 0;
    const readInto = async (until: number) => {
      while (targets[0]!.position < until) {
        this.assertRunning();
        const limit = Math.min(this.batchSize, until - targets[0]!.position);
        const events = await this.eventStore.readAll({ after: targets[0]!.position, limit });
        if (events.length === 0) break;
        eventsRead += events.length;
        await this.applyBatch(targets, events, false);
        onProgress?.({ eventsRead, total: Math.max(until, eventsRead) });
        await nextTurn(); // a server rebuilding while it serves answers between batches
      }
    };
    try {
      for (const target of targets) await this.dropGeneration(target);
      // While the live generations serve and follow: replay the log into the new ones (offline: folded
      // in memory, each final document written once, rebuild-working-set.ts), then index them (entries
      // built once from the final documents instead of moved at every write).
      const folded = liveHead();
      if (this.foldRebuilds) {
        await this.foldInto(targets, folded, (read) => {
          eventsRead += read;
          onProgress?.({ eventsRead, total: Math.max(folded, eventsRead) });
        });
      } else {
        await readInto(folded);
      }
      for (const target of targets) await this.ensureIndexes(target);
      // With the live pump paused: apply what arrived meanwhile, then switch over.
      await this.exclusive(async () => {
        this.assertRunning();
        await readInto(liveHead());
        const retired = projectionNames.map((name) => this.live.get(name)!);
        await this.readStore.writeAtomically([
          { collection: CHECKPOINTS, ops: targets.map((target) => checkpointWrite(target, target.position)) },
        ]);
        for (const target of targets) this.live.set(target.projection.name, target);
        this.changed(everyDocumentOf(ProjectorRunner.collectionsOf(targets)));
        for (const old of retired) await this.dropGeneration(old);
      });
    } catch (error) {
      this.log.error('projection rebuild failed', { projections: projectionNames, error: String(error) });
      throw error;
    }
    const ms = elapsedSince(started);
    return targets.map((target) => {
      const report: RebuildReport = { projection: target.projection.name, generation: target.generation, eventsRead, ms, position: target.position };
      this.log.info('projection rebuilt', { ...report });
      return report;
    });
  }

  /**
   * The offline shape of a rebuild's first pass (log-fold.ts): the log up to `until` read once and folded
   * in memory, each final document written once; in worker threads when parallelFold is given. The
   * fresh collections exist from the start (empty), so a rebuild in progress shows in the read store's
   * list as before.
   */
  private async foldInto(targets: readonly Target[], until: number, onRead: (events: number) => void): Promise<void> {
    for (const target of targets) for (const collection of target.collections.values()) await this.readStore.putDocuments(collection.name, []);
    const read = (events: number) => {
      this.assertRunning();
      onRead(events);
    };
    const report = this.parallelFold
      ? await this.parallelFold(
          {
            targets: targets.map((target) => ({ projection: target.projection.name, generation: target.generation, version: target.version, position: target.position })),
            until,
            batchSize: this.batchSize,
            heapBudgetBytes: this.rebuildHeapBytes,
          },
          read,
        )
      : await foldLog(targets, until, { eventStore: this.eventStore, readStore: this.readStore, batchSize: this.batchSize, heapBudgetBytes: this.rebuildHeapBytes, onRead: read });
    // Only now are the documents up to `position` in the read store (a live target's position is what waitFor trusts).
    for (const target of targets) target.position = Math.max(target.position, report.position);
    const { evicted, reloaded, streamed } = report;
    this.log.info('rebuild working set written', { projections: targets.map((target) => target.projection.name), evicted, reloaded, streamed });
  }

  private assertRunning(): void {
    if (!this.running) throw new ProjectorStopped();
  }

  /**
   * The stored generation of a projection, or a fresh one: when there is no checkpoint, and when the
   * checkpoint is ahead of the log's `head` (the log was replaced, e.g. restored from an older backup:
   * read models derived from events that no longer exist are dropped and built again).
   */
  private async loadTarget(projection: Projection, head: number): Promise<Target> {
    const stored = (await this.checkpoints.findOne({ id: checkpointId(projection.name) })) as Checkpoint | null;
    if (stored && stored.name !== projection.name) {
      throw new Error(`checkpoint ${stored.id} belongs to ${stored.name}, not ${projection.name}`);
    }
    if (stored && stored.position <= head) return targetOf(this.readStore, projection, stored.generation, stored.version, stored.position);
    const fresh = targetOf(this.readStore, projection, (stored?.generation ?? 0) + 1, projection.version, 0);
    if (stored) {
      this.log.warn('read models are ahead of the event log: building them again', { projection: projection.name, checkpoint: stored.position, head });
      await this.dropGeneration(fresh);
    }
    await this.saveCheckpoint(fresh);
    return fresh;
  }

  private async saveCheckpoint(target: Target): Promise<void> {
    await this.checkpoints.write([checkpointWrite(target, target.position)]);
  }

  private async ensureIndexes(target: Target): Promise<void> {
    for (const { name, indexes } of target.projection.collections) {
      await target.collections.get(name)!.ensureIndexes(indexes);
    }
  }

  private async dropGeneration(target: Target): Promise<void> {
    for (const { name } of target.projection.collections) await this.readStore.dropCollection(physicalName(name, target.generation));
  }

  /** Drops generations other than the live one (left by a rebuild that was interrupted or not cleaned). */
  private async dropOrphanGenerations(): Promise<void> {
    for (const name of await this.readStore.listCollections()) {
      const match = PHYSICAL_NAME.exec(name);
      const owner = match && this.owners.get(match[1]!);
      if (!owner) continue;
      if (Number(match[2]) !== this.live.get(owner)!.generation) await this.readStore.dropCollection(name);
    }
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = this.lock.then(task);
    this.lock = result.catch(() => undefined);
    return result;
  }

  /** Starts (or extends) a drain in the background; failures reject the waiters and are logged. */
  private follow(): void {
    this.drain().catch((error: unknown) => {
      if (error instanceof ProjectorStopped) return;
      this.log.error('projector failed to apply events', { error: String(error) });
      this.rejectWaiters(error);
    });
  }

  /** Reads and applies batches until the log is exhausted; a drain requested meanwhile runs again. */
  private drain(): Promise<void> {
    if (!this.running) return Promise.resolve();
    if (this.draining) {
      this.drainAgain = true;
      return this.draining;
    }
    const draining = (async () => {
      try {
        do {
          this.drainAgain = false;
          // Between full batches, requests get their turn: a long backlog would otherwise be applied in
          // one run of the event loop (reads and writes resolve without waiting on I/O).
          while (this.running && (await this.applyNextBatch()) === this.batchSize) await nextTurn();
        } while (this.running && this.drainAgain);
        this.failure = null;
      } catch (error) {
        this.failure = { error };
        throw error;
      } finally {
        this.draining = null;
      }
    })();
    this.draining = draining;
    return draining;
  }

  /** Applies the next batch of the log to every live projection; returns how many events it read. */
  private applyNextBatch(): Promise<number> {
    return this.exclusive(async () => {
      const targets = [...this.live.values()];
      if (targets.length === 0) return 0;
      const events = await this.eventStore.readAll({ after: this.position, limit: this.batchSize });
      if (events.length > 0) {
        this.eventsRead += events.length;
        await this.applyBatch(targets, events, true);
        this.catchUpProgress?.({ eventsRead: this.eventsRead, total: events[events.length - 1]!.position });
      }
      this.settleWaiters();
      return events.length;
    });
  }

  /**
   * Applies a batch to each target (skipping events it already applied) in ONE atomic write of the read
   * store: every collection's ops and, when `saveCheckpoints`, each target's new checkpoint. A crash
   * therefore never leaves documents ahead of their checkpoint (SQLite) or a checkpoint ahead of its
   * documents (adapters without transactions write it last).
   */
  private async applyBatch(targets: Target[], events: RecordedEvent[], saveCheckpoints: boolean): Promise<void> {
    const last = events[events.length - 1]!.position;
    const writes: CollectionWrites[] = [];
    const advanced: Target[] = [];
    const written = new Map<string, Set<number> | null>();
    for (const target of targets) {
      if (target.position >= last) continue;
      writes.push(...guardedWrites(target, events, written));
      advanced.push(target);
    }
    if (saveCheckpoints) {
      const ops = advanced.map((target): WriteOp => checkpointWrite(target, last));
      if (ops.length > 0) writes.push({ collection: CHECKPOINTS, ops });
    }
    await this.readStore.writeAtomically(writes);
    for (const target of advanced) target.position = last;
    // A rebuild's batches go to generations not yet live: they change nothing readers see.
    this.changed(saveCheckpoints ? written : new Map());
    if (saveCheckpoints) this.announce(events);
  }

  /** Emits a live batch; a subscriber that throws is logged and never stops the projector. */
  private announce(events: readonly RecordedEvent[]): void {
    if (!this.appliedBatches.observed) return;
    try {
      this.appliedBatches.next(events);
    } catch (error) {
      this.log.error('a reader of applied events failed', { error: String(error) });
    }
  }

  private settleWaiters(): void {
    const waiting: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (this.hasApplied(waiter.position)) waiter.resolve();
      else waiting.push(waiter);
    }
    this.waiters = waiting;
  }

  private rejectWaiters(error: unknown): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(error);
  }
}
