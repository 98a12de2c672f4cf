// Decisions on a project stream about the project itself: create, update settings, delete.
// Every decision is one event; the project's version is the stream's event count. A new project starts
// with its owner's membership and Tracker's default review types (review/review-state.ts).
// What its deciders (create-project.ts, update-project.ts, delete-project.ts) share.
import { DomainError, invalidParameter, type ValidationError } from '../errors.js';
import { PROJECT_NAME_MAX_LENGTH } from './project-settings.js';

export const NAME_TAKEN = 'The project name you entered is already taken.';

/** Case-insensitive: "Alpha" and "alpha " are the same name. */
export function nameUniqueness(name: unknown, takenNames: readonly string[]): ValidationError[] {
  if (typeof name !== 'string') return [];
  const wanted = name.trim().toLowerCase();
  return takenNames.some((taken) => taken.trim().toLowerCase() === wanted) ? [{ field: 'name', problem: NAME_TAKEN }] : [];
}

/**
 * A rejected settings request. A too-long name answers as recorded (facts §4.3): the limit in
 * `requirement`, and `general_problem` "This extended_string is too long:  '<the name sent>'" (two
 * spaces, as the service wrote it).
 */
export function settingsRejected(problems: ValidationError[], request: Record<string, unknown>): DomainError {
  const error = invalidParameter(problems);
  const nameProblem = problems.find((p) => p.field === 'name' && p.problem.includes(`${PROJECT_NAME_MAX_LENGTH} characters`));
  if (!nameProblem) return error;
  return new DomainError('invalid_parameter', {
    ...error.details,
    general_problem: `This extended_string is too long:  '${String(request['name'])}'`,
    requirement: nameProblem.problem,
  });
}
