// What the server knows of its data files' health: the damaged files and failing disks it has met (a
// read or write that failed with SQLITE_CORRUPT, SQLITE_IOERR, SQLITE_NOTADB...: storage-failure.ts)
// and the log's integrity check at start (integrity-check.ts). Each file is logged once, at error,
// the first time it fails (never once per request), and stays listed until a restart: a damaged page
// does not heal, and other requests that miss it still succeed. /health turns `degraded` with it.
//
// guardedStore() wraps a store of one file, so that every failure of its methods passes through here
// with the file's name: a storage fault becomes 503 `component_unavailable` (asStorageFailure) and is
// recorded. A fault reaching the API unguarded (another file, a worker's read) is recorded without a file.
import { basename } from 'node:path';
import type { Log } from './log.js';
import { asStorageFailure, storageFaultCode } from './storage-failure.js';

export interface StorageFault {
  /** The data file (its name in the data directory), null when the failure did not say which. */
  file: string | null;
  /** SQLite's or the system's code (SQLITE_CORRUPT...), or `quick_check` for what the integrity check found. */
  code: string;
  problem: string;
  /** When it was first met (ms since the epoch). */
  since: number;
}

export type IntegrityCheckState =
  | { state: 'not_run' }
  | { state: 'running'; started: number }
  | { state: 'ok' | 'damaged' | 'failed'; ms: number; problem?: string };

/** Lines of quick_check's answer kept as the problem (it lists every damaged page otherwise). */
const PROBLEM_LINES = 5;

export class StorageHealth {
  private readonly recorded = new Map<string | null, StorageFault>();
  private integrity: IntegrityCheckState = { state: 'not_run' };

  constructor(
    private readonly log: Log,
    private readonly clock: () => number = Date.now,
  ) {}

  /** `thrown` as a request should see it: a storage fault of `file` becomes 503 and is recorded; other failures as asStorageFailure says. */
  failure(thrown: unknown, file: string | null): unknown {
    const code = storageFaultCode(thrown);
    if (code !== null) this.record(file, code, messageOf((thrown as { cause?: unknown }).cause ?? thrown));
    return asStorageFailure(thrown);
  }

  /** Records a fault of `file` (the first per file is kept and logged; later ones change nothing). */
  record(file: string | null, code: string, problem: string): void {
    if (this.recorded.has(file)) return;
    if (file === null && this.recorded.size > 0) return; // already named: the unattributed one adds nothing
    const fault = { file, code, problem, since: this.clock() };
    this.recorded.set(file, fault);
    this.log.error('a data file is damaged or its disk fails: requests that need it answer 503 until it is restored', {
      file: file ?? 'unknown (a failure outside a guarded store)',
      code,
      problem,
    });
  }

  /** The integrity check of the log started. */
  integrityCheckStarted(): void {
    this.integrity = { state: 'running', started: this.clock() };
  }

  /** What the integrity check of `file` found: quick_check's lines ('ok' alone when sound), or why it could not run. */
  integrityChecked(file: string, ms: number, outcome: { lines: string[] } | { error: string; code: string | null }): void {
    if ('lines' in outcome && outcome.lines.length === 1 && outcome.lines[0] === 'ok') {
      this.integrity = { state: 'ok', ms };
      this.log.info('log integrity checked', { file, check: 'quick_check', result: 'ok', ms });
      return;
    }
    if ('lines' in outcome) {
      // One finding a line (SQLite heads the first with the database's name).
      const findings = outcome.lines.flatMap((line) => line.split('\n')).filter((line) => line !== '' && !line.startsWith('*** in database'));
      const more = findings.length - PROBLEM_LINES;
      const problem = `${findings.slice(0, PROBLEM_LINES).join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
      this.integrity = { state: 'damaged', ms, problem };
      this.log.info('log integrity checked', { file, check: 'quick_check', result: 'damaged', ms });
      this.record(file, 'quick_check', problem);
      return;
    }
    // SQLite may stop the check itself at a damaged page (SQLITE_CORRUPT): that is its finding too.
    const fault = outcome.code !== null && storageFaultCode({ code: outcome.code }) !== null;
    this.integrity = { state: fault ? 'damaged' : 'failed', ms, problem: outcome.error };
    this.log.info('log integrity checked', { file, check: 'quick_check', result: this.integrity.state, ms, error: outcome.error });
    if (fault) this.record(file, outcome.code!, outcome.error);
  }

  faults(): StorageFault[] {
    return [...this.recorded.values()].map((fault) => ({ ...fault }));
  }

  integrityCheck(): IntegrityCheckState {
    return { ...this.integrity };
  }
}

/**
 * `store` with every method's failure (a throw or a rejection) passed through `health.failure` with the
 * file `path` names; the results of the methods named in `nested` (a read store's collections) are
 * guarded the same way. Properties that are not functions are read through unchanged.
 */
export function guardedStore<T extends object>(store: T, path: string, health: StorageHealth, nested: readonly string[] = []): T {
  const file = basename(path);
  const guardedResults = new WeakMap<object, object>();
  const guardedResult = (result: object): object => {
    let guarded = guardedResults.get(result);
    if (!guarded) guardedResults.set(result, (guarded = guard(result, false)));
    return guarded;
  };
  const guard = <U extends object>(target: U, wrapsResults: boolean): U => {
    const wrapped = new Map<PropertyKey, unknown>();
    return new Proxy(target, {
      get(object, key) {
        const value = Reflect.get(object, key, object) as unknown;
        if (typeof value !== 'function') return value;
        if (!wrapped.has(key)) {
          const method = value as (...args: unknown[]) => unknown;
          const guardsResult = wrapsResults && nested.includes(String(key));
          wrapped.set(key, (...args: unknown[]) => {
            let result: unknown;
            try {
              result = method.apply(object, args);
            } catch (error) {
              throw health.failure(error, file);
            }
            if (result instanceof Promise) return result.catch((error: unknown) => Promise.reject(health.failure(error, file)));
            return guardsResult && typeof result === 'object' && result !== null ? guardedResult(result) : result;
          });
        }
        return wrapped.get(key);
      },
    });
  };
  return guard(store, true);
}

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
