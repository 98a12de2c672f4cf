// Deleting a project, and its memberships in the same event (so read models drop them).
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange } from '../events.js';

/** Deleting a project needs nothing but the stream it is decided on. */
export type DeleteProject = Record<never, never>;

/** Deletes the project and, in the same event, its memberships (so read models drop them). */
export function decideDeleteProject(_command: DeleteProject, state: ProjectState, _context: DecisionContext): Decision {
  const project = state.project();
  const name = String(project['name']);
  const changes: DecidedChange[] = [
    { kind: 'project', change_type: 'delete', id: project.id, name },
    ...[...state.memberships].map(
      (membership): DecidedChange => ({ kind: 'project_membership', change_type: 'delete', id: membership.id }),
    ),
  ];
  return {
    type: 'project_delete',
    data: { changes, primary_resources: [{ kind: 'project', id: project.id, name }] },
    subject: { kind: 'project', id: project.id },
  };
}
