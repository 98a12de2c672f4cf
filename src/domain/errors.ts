// Errors a decision can reach. They carry an error code of the catalogue (error-codes.ts, given status
// and text by api/error-catalogue.ts) so that every layer reports the same failure the same way.
import type { ErrorCode } from './error-codes.js';

export interface ValidationError {
  field: string;
  problem: string;
}

export interface DomainErrorDetails {
  general_problem?: string;
  requirement?: string;
  possible_fix?: string;
  validation_errors?: ValidationError[];
}

export class DomainError extends Error {
  /** Seconds after which the request may succeed when retried (refusals under load): the `Retry-After` header. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly code: ErrorCode,
    readonly details: DomainErrorDetails = {},
    options: { retryAfterSeconds?: number } = {},
  ) {
    super(details.general_problem ?? details.requirement ?? code);
    this.name = 'DomainError';
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** A rejected parameter: 400 `invalid_parameter`, one validation error per field. */
export function invalidParameter(problems: ValidationError[], general?: string): DomainError {
  const merged = mergeProblems(problems);
  return new DomainError('invalid_parameter', {
    general_problem: general ?? merged[0]?.problem,
    validation_errors: merged,
  });
}

export function invalidField(field: string, problem: string): DomainError {
  return invalidParameter([{ field, problem }]);
}

/** A missing or inaccessible resource: 404 `unfound_resource`. */
export function unfound(): DomainError {
  return new DomainError('unfound_resource');
}

export function unauthorized(general?: string): DomainError {
  return new DomainError('unauthorized_operation', general ? { general_problem: general } : {});
}

/** Each field appears at most once; several problems for one field are joined. */
export function mergeProblems(problems: ValidationError[]): ValidationError[] {
  const byField = new Map<string, string[]>();
  for (const { field, problem } of problems) {
    const list = byField.get(field) ?? [];
    if (!list.includes(problem)) list.push(problem);
    byField.set(field, list);
  }
  return [...byField].map(([field, list]) => ({ field, problem: list.join(' ') }));
}
