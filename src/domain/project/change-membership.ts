// Changing a membership: owners change any; members only their own display preferences.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, invalidParameter, unauthorized, type ValidationError } from '../errors.js';
import type { ChangeValues } from '../events.js';
import { PROJECT_ROLES, type ProjectRole } from '../project-documents.js';
import { LAST_OWNER, type MemberName, roleProblems, colorProblems, membershipRef, named, projectRef } from './membership-rules.js';

export interface ChangeMembership extends MemberName {
  membershipId: number;
  /** Requested `role`, `project_color`, `favorite` (others ignored). */
  request: Record<string, unknown>;
  /** The caller's effective role in the project (account owners and admins act as owners). */
  actorRole: ProjectRole | null;
  /** null for operator commands, which may change anything. */
  actorId: number | null;
}

export function decideChangeMembership(command: ChangeMembership, state: ProjectState, context: DecisionContext): Decision {
  const project = state.project();
  const membership = state.memberships.required(command.membershipId);
  const request = command.request;
  const isOwner = command.actorRole === 'owner' || command.actorId === null;
  const ownPreference = membership.person_id === command.actorId && !('role' in request);
  if (!isOwner && !ownPreference) throw unauthorized('Only project owners may change memberships other than their own display preferences.');

  const problems: ValidationError[] = [];
  const next: ChangeValues<'project_membership'> = {};
  if ('role' in request) {
    const role = request['role'];
    problems.push(...roleProblems(role));
    if (PROJECT_ROLES.includes(role as ProjectRole)) next['role'] = role as ProjectRole;
  }
  if ('project_color' in request) {
    const color = request['project_color'];
    problems.push(...colorProblems(color));
    if (problems.every((p) => p.field !== 'project_color')) next['project_color'] = String(color).toLowerCase();
  }
  if ('favorite' in request) {
    if (typeof request['favorite'] === 'boolean') next['favorite'] = request['favorite'];
    else problems.push({ field: 'favorite', problem: "'favorite' must be a boolean value" });
  }
  if (problems.length > 0) throw invalidParameter(problems);
  if (membership.role === 'owner' && next['role'] !== undefined && next['role'] !== 'owner' && state.ownerCount() === 1) {
    throw invalidField('role', LAST_OWNER);
  }
  const original: ChangeValues<'project_membership'> = {};
  const changed: ChangeValues<'project_membership'> = {};
  for (const [key, value] of Object.entries(next)) {
    if (membership[key] === value) continue;
    original[key] = membership[key] ?? null;
    changed[key] = value;
  }
  original['updated_at'] = membership['updated_at'] ?? null;
  changed['updated_at'] = context.now;
  return {
    type: 'project_membership_update',
    data: {
      changes: [
        { kind: 'project_membership', change_type: 'update', id: membership.id, ...named(command.personName), original_values: original, new_values: changed },
      ],
      primary_resources: [membershipRef(membership.id, command.personName)],
      secondary_resources: [projectRef(project)],
    },
    subject: { kind: 'project_membership', id: membership.id },
  };
}
