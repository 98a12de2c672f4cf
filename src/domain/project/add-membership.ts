// Adding a person to a project with a role (one membership per person and project).
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, invalidParameter } from '../errors.js';
import { ALREADY_MEMBER, type NewMembership, type MemberName, membershipCreateChange, roleProblems, colorProblems, membershipRef, projectRef } from './membership-rules.js';

export interface AddMembership extends NewMembership, MemberName {}

export function decideAddMembership(command: AddMembership, state: ProjectState, context: DecisionContext): Decision {
  const project = state.project();
  const problems = [...roleProblems(command.role), ...colorProblems(command.projectColor)];
  if (problems.length > 0) throw invalidParameter(problems);
  if (state.membershipOf(command.personId)) throw invalidField('person_id', ALREADY_MEMBER);
  const id = context.nextId('project_membership');
  const change = membershipCreateChange(project.id, id, command, context.now, [...state.memberships].length, command.personName);
  return {
    type: 'project_membership_create',
    data: { changes: [change], primary_resources: [membershipRef(id, command.personName)], secondary_resources: [projectRef(project)] },
    subject: { kind: 'project_membership', id },
  };
}
