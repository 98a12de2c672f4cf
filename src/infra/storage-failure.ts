// Storage failures a request can meet that are not bugs: the disk is full, a data file is read-only, or
// a data file is damaged or its disk fails (a corrupt page, an I/O error). They become catalogued errors
// (507 `storage_full`, 503 `component_unavailable`) instead of a 500, and nothing is stored: SQLite
// rolls the transaction back, so the next write succeeds once space returns or the file is writable.
// A damaged file does not heal: storage-health.ts records it for /health and the log.
import { DomainError } from '../domain/errors.js';

/** The code of a damaged data file or failing disk (SQLITE_CORRUPT*, SQLITE_IOERR*, SQLITE_NOTADB, EIO...), or null. */
export function storageFaultCode(thrown: unknown): string | null {
  for (const code of [codeOf(thrown), codeOf((thrown as { cause?: unknown } | null)?.cause)]) {
    if (code !== null && isFault(code)) return code;
  }
  return null;
}

const isFault = (code: string): boolean =>
  code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_NOTADB' || code === 'SQLITE_FORMAT' || code.startsWith('SQLITE_CANTOPEN') || code === 'EIO';

/** The catalogued error for a storage failure, or the thrown value unchanged. */
export function asStorageFailure(thrown: unknown): unknown {
  if (thrown instanceof DomainError) return thrown;
  const code = codeOf(thrown);
  if (code === null) return thrown;
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
  if (storageFaultCode(thrown) !== null) {
    const failure = new DomainError('component_unavailable', {
      general_problem: 'The server cannot read or store this: one of its data files is damaged or its disk is failing. Nothing was changed.',
      possible_fix: 'Other requests may still work; the operator must restore the damaged file (GET /health names it).',
    });
    // Keeps the storage code: whoever sees the error later still knows what it was (storageFaultCode).
    return Object.assign(failure, { cause: thrown });
  }
  return thrown;
}

function codeOf(thrown: unknown): string | null {
  const code = (thrown as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}
