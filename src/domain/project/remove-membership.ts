// Removing a membership: anyone may leave, owners remove others; a project keeps its last owner.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError, unauthorized } from '../errors.js';
import { type ProjectRole } from '../project-documents.js';
import { LAST_OWNER, type MemberName, membershipRef, named, projectRef } from './membership-rules.js';

export interface RemoveMembership extends MemberName {
  membershipId: number;
  /** The caller's role; anyone may leave a project, only owners (or operators: null actor) remove others. */
  actorRole: ProjectRole | null;
  actorId: number | null;
}

export function decideRemoveMembership(command: RemoveMembership, state: ProjectState, _context: DecisionContext): Decision {
  const project = state.project();
  const membership = state.memberships.required(command.membershipId);
  const operator = command.actorId === null;
  const leaving = membership.person_id === command.actorId;
  if (!operator && command.actorRole !== 'owner' && !leaving) throw unauthorized('Only project owners may remove other members.');
  if (membership.role === 'owner' && state.ownerCount() === 1) {
    throw new DomainError('invalid_parameter', { general_problem: LAST_OWNER, validation_errors: [{ field: 'role', problem: LAST_OWNER }] });
  }
  return {
    type: 'project_membership_delete',
    data: {
      changes: [
        {
          kind: 'project_membership',
          change_type: 'delete',
          id: membership.id,
          ...named(command.personName),
          original_values: { person_id: membership.person_id, role: membership.role },
        },
      ],
      primary_resources: [membershipRef(membership.id, command.personName)],
      secondary_resources: [projectRef(project)],
    },
    subject: { kind: 'project_membership', id: membership.id },
  };
}
