// Storage failures a write can meet that are not bugs: the disk is full, or the data file is read-only.
// They become catalogued errors (507 `storage_full`, 503 `component_unavailable`) instead of a 500, and
// nothing is stored: SQLite rolls the transaction back, so the next write succeeds once space returns.
import { DomainError } from '../domain/errors.js';

/** The catalogued error for a storage failure, or the thrown value unchanged. */
export function asStorageFailure(thrown: unknown): unknown {
  const code = (thrown as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return thrown;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    return new DomainError('storage_full', {
      general_problem: 'The server cannot store the change: its disk is full. Nothing was changed.',
      possible_fix: 'Retry once the operator has freed disk space.',
    });
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') {
    return new DomainError('component_unavailable', {
      general_problem: 'The server cannot store the change: its data files are read-only. Nothing was changed.',
      possible_fix: 'Reads still work; retry once the operator has made the data directory writable.',
    });
  }
  return thrown;
}
