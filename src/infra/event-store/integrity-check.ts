// The integrity check a server start runs over the embedded log, after it listens: SQLite's
// `quick_check` (every page of the file read and its b-tree structure checked, without the cross-check
// of index contents a full `integrity_check` adds) off the serving thread, so requests are served
// meanwhile. Its result and duration are logged and kept in the storage health (/health): a damaged log
// is told at start, not at the first request that meets the damaged page.
//
// It runs in a child process (integrity-check-process.ts), not a worker thread: the check is one native
// call that a worker cannot leave, and Node waits for it at worker.terminate() and even at process.exit,
// so a server stopped mid-check would wait for the whole file to be read. A child process is killed at
// once.
import { fork } from 'node:child_process';
import { basename } from 'node:path';
import type { StorageHealth } from '../storage-health.js';

/** What the check sends: quick_check's lines ('ok' alone for a sound file), or why it could not run. */
export type IntegrityCheckAnswer = { lines: string[] } | { error: string; code: string | null };

export interface RunningIntegrityCheck {
  /** Resolves once the check has ended (and its result is recorded), or was stopped. */
  readonly done: Promise<void>;
  /** Ends the check at once, its result unrecorded. */
  stop(): void;
}

export function startIntegrityCheck(path: string, health: StorageHealth): RunningIntegrityCheck {
  const file = basename(path);
  const started = performance.now();
  health.integrityCheckStarted();
  const child = fork(new URL('./integrity-check-process.js', import.meta.url), [path], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  let answer: IntegrityCheckAnswer | null = null;
  let stopped = false;
  child.once('message', (message) => (answer = message as IntegrityCheckAnswer));
  const done = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      if (!stopped) health.integrityChecked(file, Math.round(performance.now() - started), { error: error.message, code: null });
      resolve();
    });
    child.once('close', (code, signal) => {
      if (!stopped) {
        const ms = Math.round(performance.now() - started);
        health.integrityChecked(file, ms, answer ?? { error: `the check ended without an answer (${signal ?? `exit code ${code}`}): ${stderr.trim()}`, code: null });
      }
      resolve();
    });
  });
  return {
    done,
    stop() {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
