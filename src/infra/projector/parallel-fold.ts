// A rebuild's fold spread over worker threads: the projections split into groups of about equal work,
// each group folded by a worker of its own (fold-worker.ts) that reads the event log itself and writes
// its generations and their indexes through its own connection to the read-models file. Folding and
// indexing run on every core; SQLite lets one connection write at a time, so the workers' commits take
// turns (they wait for each other, never fail: FOLD_BUSY_TIMEOUT_MS in fold-worker.ts). A worker's
// index build gathers its entries before it takes the write lock and holds it only to insert them
// (SqliteReadStoreOptions.unsharedIndexBuilds): holding it for the whole build, for seconds at a million
// events, stopped the other workers at their next write.
// The main thread reports as progress the events every worker has read, and fails the fold, stopping
// every worker, at the first worker that fails.
//
// Only for the embedded SQLite stores, and only where nothing else writes to the read-models file
// meanwhile: `storyline rebuild-projections`, and a start that builds the read models from position 0
// (before the server listens).
import { Worker } from 'node:worker_threads';
import type { LogFoldReport } from './log-fold.js';

/**
 * The young generation of a fold worker's heap. A fold allocates a batch's events and ops and keeps
 * only the documents, so a larger young generation lets most of them die young; 64 MB was the fastest
 * of the sizes tried (docs/benchmarks.md, "Figures behind constants in the source").
 */
const FOLD_YOUNG_GENERATION_MB = 64;

/** One generation to fold from `position`: the worker finds the projection by name in the registry. */
export interface FoldTarget {
  projection: string;
  generation: number;
  version: number;
  position: number;
}

export interface FoldPlan {
  targets: FoldTarget[];
  until: number;
  batchSize: number;
  /** Each worker's bound on its working set's heap. */
  heapBudgetBytes: number;
}

/** Folds a plan's targets up to `until`, their indexes built; onRead gets the events every target has read since its last call. */
export type ParallelFold = (plan: FoldPlan, onRead: (events: number) => void) => Promise<LogFoldReport>;

export interface SqliteFoldFiles {
  eventsPath: string;
  readModelsPath: string;
}

/** What a fold worker is started with. */
export interface FoldWorkerData extends SqliteFoldFiles {
  plan: FoldPlan;
}

/** What a fold worker posts: events read by one batch, then its report. */
export type FoldWorkerMessage = { read: number } | { done: LogFoldReport };

/**
 * The targets in at most `workers` groups of about equal cost (largest first, each to the group with the
 * least so far); a projection without a known cost counts as the average of those known.
 */
export function balancedGroups(targets: readonly FoldTarget[], workers: number, costs: Readonly<Record<string, number>>): FoldTarget[][] {
  const known = Object.values(costs);
  const average = known.length > 0 ? known.reduce((sum, cost) => sum + cost, 0) / known.length : 1;
  const costOf = (target: FoldTarget) => costs[target.projection] ?? average;
  const groups = Array.from({ length: Math.max(1, Math.min(workers, targets.length)) }, () => ({ cost: 0, targets: [] as FoldTarget[] }));
  for (const target of [...targets].sort((a, b) => costOf(b) - costOf(a))) {
    const lightest = groups.reduce((least, group) => (group.cost < least.cost ? group : least));
    lightest.targets.push(target);
    lightest.cost += costOf(target);
  }
  return groups.map((group) => group.targets).filter((group) => group.length > 0);
}

/** A ParallelFold over `workers` threads for the SQLite files named. */
export function sqliteParallelFold(files: SqliteFoldFiles, workers: number, costs: Readonly<Record<string, number>>): ParallelFold {
  return (plan, onRead) => {
    const groups = balancedGroups(plan.targets, workers, costs);
    const started = groups.map((targets) => {
      const data: FoldWorkerData = { ...files, plan: { ...plan, targets } };
      return new Worker(new URL('./fold-worker.js', import.meta.url), { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: FOLD_YOUNG_GENERATION_MB } });
    });
    return new Promise<LogFoldReport>((resolve, reject) => {
      const read = started.map(() => 0);
      const reports: Array<LogFoldReport | undefined> = started.map(() => undefined);
      let reported = 0;
      let exited = 0;
      let settled = false;
      // Rejects once every worker has stopped: none writes to the file after the fold has failed.
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        const reason = error instanceof Error ? error : new Error(String(error));
        void Promise.allSettled(started.map((worker) => worker.terminate())).then(() => reject(reason));
      };
      started.forEach((worker, index) => {
        worker.on('message', (message: FoldWorkerMessage) => {
          if (settled) return;
          if ('read' in message) {
            read[index]! += message.read;
            const together = Math.min(...read);
            if (together > reported) {
              const events = together - reported;
              reported = together;
              try {
                onRead(events);
              } catch (error) {
                fail(error);
              }
            }
            return;
          }
          reports[index] = message.done;
        });
        worker.on('error', fail);
        // Settled once every worker has closed its connections (after its report).
        worker.on('exit', (code) => {
          if (reports[index] === undefined) return fail(new Error(`a fold worker exited (code ${code}) before it finished`));
          if (++exited < started.length || settled) return;
          settled = true;
          resolve(mergedReport(reports as LogFoldReport[]));
        });
      });
    });
  };
}

function mergedReport(reports: readonly LogFoldReport[]): LogFoldReport {
  return {
    position: Math.min(...reports.map((report) => report.position)),
    evicted: reports.reduce((sum, report) => sum + report.evicted, 0),
    reloaded: reports.reduce((sum, report) => sum + report.reloaded, 0),
    streamed: reports.reduce((sum, report) => sum + report.streamed, 0),
  };
}
