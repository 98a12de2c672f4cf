// Rules for a story's tasks, with the messages the real service gave.
import { DomainError, invalidField } from '../errors.js';
import type { ProjectDoc } from '../project-documents.js';

export const MAX_TASK_DESCRIPTION = 1000;

/** Throws unless the project has tasks turned on. */
export function assertTasksEnabled(project: ProjectDoc, field = 'enable_tasks'): void {
  if (project.enable_tasks === false) throw invalidField(field, 'Tasks are disabled in this project.');
}

/** Throws unless `description` is a non-blank string of at most 1000 characters. */
export function assertTaskDescription(description: unknown, field = 'description'): asserts description is string {
  if (typeof description !== 'string' || description.trim() === '') {
    throw invalidField(field, "Description can't be blank");
  }
  if ([...description].length > MAX_TASK_DESCRIPTION) {
    const requirement = `'${field}' parameter must be ${MAX_TASK_DESCRIPTION} characters or less.`;
    throw new DomainError('invalid_parameter', {
      requirement,
      validation_errors: [{ field, problem: requirement }],
    });
  }
}

/**
 * Throws unless `position` is a whole number from 1 to `last`. A new task may go one past the end;
 * a moved task only within the story's tasks.
 */
export function assertTaskPosition(position: number, last: number, creating: boolean): void {
  if (!Number.isInteger(position)) throw invalidField('position', "'position' must be an integer value");
  if (position < 1) throw invalidField('position', 'Task position must be 1 or greater.');
  if (position > last) {
    const bound = creating ? 'the number of tasks in the story plus 1' : 'the number of tasks in the story';
    throw invalidField('position', `Task position can not be greater than ${bound}`);
  }
}
