// Reading a project stream's folded state: the project document and its memberships.
import { docsOf, type ResourceDoc, type StreamState } from '../resource-state.js';
import { unfound } from '../errors.js';

export type ProjectRole = 'owner' | 'member' | 'viewer';
export const PROJECT_ROLES: readonly ProjectRole[] = ['owner', 'member', 'viewer'];

/** The project of a project stream; `unfound_resource` when it was never created or was deleted. */
export function existingProject(state: StreamState): ResourceDoc {
  const [project] = docsOf(state, 'project').values();
  if (!project) throw unfound();
  return project;
}

export function membershipsOf(state: StreamState): ResourceDoc[] {
  return [...docsOf(state, 'project_membership').values()];
}

export function membershipOfPerson(state: StreamState, personId: number): ResourceDoc | undefined {
  return membershipsOf(state).find((membership) => membership.person_id === personId);
}

export function existingMembership(state: StreamState, membershipId: number): ResourceDoc {
  const membership = docsOf(state, 'project_membership').get(membershipId);
  if (!membership) throw unfound();
  return membership;
}

export function ownerCount(state: StreamState): number {
  return membershipsOf(state).filter((membership) => membership.role === 'owner').length;
}
