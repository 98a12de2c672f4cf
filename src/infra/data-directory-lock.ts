// One server per data directory: `serve` holds `storyline.lock` (the holder's pid) while it runs. A lock
// whose pid is not alive (a server killed with SIGKILL, a reboot) is stale and taken over; a live holder
// makes a second `serve` refuse, naming it. CLI appends (person add ...) do not take the lock.
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorError } from './operator-error.js';

export interface DataDirectoryLock {
  /** The stale holder's pid this lock replaced, or null. */
  tookOverFrom: number | null;
  release(): void;
}

const LOCK_FILE = 'storyline.lock';

export function lockDataDirectory(dataDir: string, pid: number = process.pid): DataDirectoryLock {
  const path = join(dataDir, LOCK_FILE);
  let tookOverFrom: number | null = null;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createExclusively(path, pid)) {
      return {
        tookOverFrom,
        release() {
          if (holderOf(path) === pid) rmSync(path, { force: true });
        },
      };
    }
    const holder = holderOf(path);
    if (holder !== null && holder !== pid && isAlive(holder)) {
      throw new OperatorError(
        `another Storyline server (pid ${holder}) already serves ${dataDir}; stop it first, or give this server another data directory (STORYLINE_DATA). If no such server runs, delete ${path}.`,
      );
    }
    tookOverFrom = holder;
    rmSync(path, { force: true });
  }
  throw new OperatorError(`could not take the lock ${path}: another process keeps creating it`);
}

/** Writes the pid beside the lock, then links it into place: the lock never exists without its pid. */
function createExclusively(path: string, pid: number): boolean {
  const staged = `${path}.${pid}`;
  writeFileSync(staged, `${pid}\n`, { mode: 0o600 });
  try {
    linkSync(staged, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(staged, { force: true });
  }
}

/** The pid in the lock file, or null when it is gone or unreadable. */
function holderOf(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** True when the pid is a running process (a zombie, killed but not yet reaped, is not). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by another user
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false; // no /proc (not Linux): trust kill(pid, 0)
  }
}
