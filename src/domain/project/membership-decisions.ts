// Decisions on a project's memberships (events in the project stream, so each raises the project version).
// Rules chosen where the spec is silent:
// - a person has at most one membership per project;
// - a change that would leave a project that has owners without any (removing or demoting its last
//   owner) is rejected; a project created with `no_owner` may stay owner-less;
// - owners may change any membership; any other member may change only their own `favorite` and
//   `project_color` (personal display preferences); anyone may leave a project, only owners remove others.
// Every membership change and the membership named as primary resource carry the member's name (given
// by the command, which reads the person), so the feed reads "added Bob Brown to this project".
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError, invalidField, invalidParameter, unauthorized, type ValidationError } from '../errors.js';
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

export interface AddMembership extends NewMembership, MemberName {}

export interface ChangeMembership extends MemberName {
  membershipId: number;
  /** Requested `role`, `project_color`, `favorite` (others ignored). */
  request: Record<string, unknown>;
  /** The caller's effective role in the project (account owners and admins act as owners). */
  actorRole: ProjectRole | null;
  /** null for operator commands, which may change anything. */
  actorId: number | null;
}

export interface RemoveMembership extends MemberName {
  membershipId: number;
  /** The caller's role; anyone may leave a project, only owners (or operators: null actor) remove others. */
  actorRole: ProjectRole | null;
  actorId: number | null;
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

function roleProblems(role: unknown): ValidationError[] {
  return PROJECT_ROLES.includes(role as ProjectRole) ? [] : [{ field: 'role', problem: "role must be one of 'owner', 'member' or 'viewer'." }];
}

function colorProblems(color: unknown): ValidationError[] {
  if (color === undefined) return [];
  return typeof color === 'string' && /^[0-9a-fA-F]{6}$/.test(color)
    ? []
    : [{ field: 'project_color', problem: 'project_color must be six hexadecimal digits, such as 8100ea.' }];
}

function membershipRef(id: number, name?: string) {
  return { kind: 'project_membership', id, ...named(name) };
}

function named(name: string | undefined): { name?: string } {
  return name ? { name } : {};
}

function projectRef(project: ResourceDoc) {
  return { kind: 'project', id: project.id, name: String(project['name']) };
}
