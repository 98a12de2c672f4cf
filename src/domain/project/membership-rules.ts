// Decisions on a project's memberships (events in the project stream, so each raises the project version).
// Rules chosen where the spec is silent:
// - a person has at most one membership per project;
// - a change that would leave a project that has owners without any (removing or demoting its last
//   owner) is rejected; a project created with `no_owner` may stay owner-less;
// - owners may change any membership; any other member may change only their own `favorite` and
//   `project_color` (personal display preferences); anyone may leave a project, only owners remove others.
// Every membership change and the membership named as primary resource carry the member's name (given
// by the command, which reads the person), so the feed reads "added Bob Brown to this project".
// What its deciders (add-membership.ts, change-membership.ts, remove-membership.ts) share.
import { type ValidationError } from '../errors.js';
import type { ResourceChange, ChangeValues } from '../events.js';
import type { ResourceDoc } from '../resource-state.js';
import { PROJECT_ROLES, type ProjectRole } from '../project-documents.js';

/** Colors handed to new memberships in turn (hex, no `#`, as the service returns them). */
export const MEMBERSHIP_COLORS = ['8100ea', '1d8be6', '2ab500', 'f08200', 'e6001d', '00a6a6', 'c4008f', '737373'] as const;

export const LAST_OWNER = 'A project must keep at least one owner.';
export const ALREADY_MEMBER = 'This person is already a member of the project.';

export interface NewMembership {
  personId: number;
  role: ProjectRole;
  projectColor?: string;
}

/** The member's name, for the activity's change and resource names. */
export interface MemberName {
  personName?: string;
}

export function membershipCreateChange(
  projectId: number,
  membershipId: number,
  membership: NewMembership,
  now: number,
  existingMemberships: number,
  personName?: string,
): ResourceChange<'project_membership'> {
  const values: ChangeValues<'project_membership'> = {
    id: membershipId,
    project_id: projectId,
    person_id: membership.personId,
    role: membership.role,
    project_color: membership.projectColor?.toLowerCase() ?? MEMBERSHIP_COLORS[existingMemberships % MEMBERSHIP_COLORS.length],
    favorite: false,
    wants_comment_notification_emails: true,
    will_receive_mention_notifications_or_emails: true,
    created_at: now,
    updated_at: now,
  };
  return { kind: 'project_membership', change_type: 'create', id: membershipId, ...named(personName), new_values: values };
}

export function roleProblems(role: unknown): ValidationError[] {
  return PROJECT_ROLES.includes(role as ProjectRole) ? [] : [{ field: 'role', problem: "role must be one of 'owner', 'member' or 'viewer'." }];
}

export function colorProblems(color: unknown): ValidationError[] {
  if (color === undefined) return [];
  return typeof color === 'string' && /^[0-9a-fA-F]{6}$/.test(color)
    ? []
    : [{ field: 'project_color', problem: 'project_color must be six hexadecimal digits, such as 8100ea.' }];
}

export function membershipRef(id: number, name?: string) {
  return { kind: 'project_membership', id, ...named(name) };
}

export function named(name: string | undefined): { name?: string } {
  return name ? { name } : {};
}

export function projectRef(project: ResourceDoc) {
  return { kind: 'project', id: project.id, name: String(project['name']) };
}
