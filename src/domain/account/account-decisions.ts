// Decisions on an account stream (`account-<id>`): the account and its memberships.
// Rules chosen where the spec is silent:
// - the account's creator is its owner, a project creator and its timekeeper, not an admin unless made
//   one (the flags and their defaults: account-membership-flags.ts);
// - only account owners and admins change account memberships (every flag, `timekeeper` and
//   `time_enterer` included); only owners grant or revoke `owner`;
// - the last owner can be neither removed nor demoted;
// - plan is `self_hosted` and status `active`: a self-hosted server has no billing plans.
import type { AccountDoc, AccountState } from './account-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError, invalidField, invalidParameter, unauthorized, unfound, type ValidationError } from '../errors.js';
import type { EventType, DecidedChange, ChangeValues } from '../events.js';
import { ACCOUNT_CREATOR_FLAGS, ACCOUNT_MEMBERSHIP_FLAGS, newMembershipFlags, type AccountMembershipFlags } from './account-membership-flags.js';

export const ACCOUNT_NAME_MAX_LENGTH = 100;
export const ACCOUNT_PLAN = 'self_hosted';
export const ACCOUNT_STATUS = 'active';
export const LAST_ACCOUNT_OWNER = 'An account must keep at least one owner.';
export const ALREADY_ACCOUNT_MEMBER = 'This person is already a member of the account.';

export interface CreateAccount {
  /** Allocated by the caller: it names the stream. */
  accountId: number;
  name: unknown;
  ownerId: number;
}

export interface AddAccountMember {
  personId: number;
  /** `owner`, `admin`, `project_creator`, `timekeeper`, `time_enterer` booleans; absent ones take their defaults. */
  request: Record<string, unknown>;
  actorId: number | null;
}

export interface ChangeAccountMember {
  personId: number;
  request: Record<string, unknown>;
  actorId: number | null;
}

export interface RemoveAccountMember {
  personId: number;
  actorId: number | null;
}

export function decideCreateAccount(command: CreateAccount, state: AccountState, context: DecisionContext): Decision {
  if (state.version > 0) throw new DomainError('duplicate_entry', { general_problem: 'The account already exists.' });
  const name = validAccountName(command.name);
  const account: ChangeValues<'account'> = {
    id: command.accountId,
    name,
    plan: ACCOUNT_PLAN,
    status: ACCOUNT_STATUS,
    created_at: context.now,
    updated_at: context.now,
  };
  const membershipId = context.nextId('account_membership');
  const owner = accountMembershipValues(command.accountId, membershipId, command.ownerId, ACCOUNT_CREATOR_FLAGS, context.now);
  return {
    type: 'account_create',
    data: {
      changes: [
        { kind: 'account', change_type: 'create', id: command.accountId, name, new_values: account },
        { kind: 'account_membership', change_type: 'create', id: membershipId, new_values: owner },
      ],
      primary_resources: [{ kind: 'account', id: command.accountId, name }],
    },
    subject: { kind: 'account', id: command.accountId },
  };
}

export function decideAddAccountMember(command: AddAccountMember, state: AccountState, context: DecisionContext): Decision {
  const account = state.account();
  const flags = requestedFlags(command.request);
  requireManager(state, command.actorId, flags.owner === true);
  if (state.membershipOf(command.personId)) throw invalidField('person_id', ALREADY_ACCOUNT_MEMBER);
  const id = context.nextId('account_membership');
  const values = accountMembershipValues(account.id, id, command.personId, newMembershipFlags(flags), context.now);
  return accountEvent('account_membership_create', account, { kind: 'account_membership', change_type: 'create', id, new_values: values });
}

export function decideChangeAccountMember(command: ChangeAccountMember, state: AccountState, context: DecisionContext): Decision {
  const account = state.account();
  const membership = state.membershipOf(command.personId);
  if (!membership) throw unfound();
  const flags = requestedFlags(command.request);
  requireManager(state, command.actorId, flags.owner !== undefined && flags.owner !== membership['owner']);
  if (membership['owner'] === true && flags.owner === false && state.ownerCount() === 1) throw invalidField('owner', LAST_ACCOUNT_OWNER);
  const original: ChangeValues<'account_membership'> = { updated_at: membership['updated_at'] ?? null };
  const changed: ChangeValues<'account_membership'> = { updated_at: context.now };
  for (const [key, value] of Object.entries(flags)) {
    if (membership[key] === value) continue;
    original[key] = membership[key] ?? null;
    changed[key] = value;
  }
  return accountEvent('account_membership_update', account, {
    kind: 'account_membership',
    change_type: 'update',
    id: membership.id,
    original_values: original,
    new_values: changed,
  });
}

export function decideRemoveAccountMember(command: RemoveAccountMember, state: AccountState, _context: DecisionContext): Decision {
  const account = state.account();
  const membership = state.membershipOf(command.personId);
  if (!membership) throw unfound();
  requireManager(state, command.actorId, membership['owner'] === true);
  if (membership['owner'] === true && state.ownerCount() === 1) throw invalidField('owner', LAST_ACCOUNT_OWNER);
  return accountEvent('account_membership_delete', account, {
    kind: 'account_membership',
    change_type: 'delete',
    id: membership.id,
    original_values: { person_id: membership['person_id'] },
  });
}

function accountMembershipValues(
  accountId: number,
  id: number,
  personId: number,
  flags: Readonly<AccountMembershipFlags>,
  now: number,
): ChangeValues<'account_membership'> {
  return {
    id,
    account_id: accountId,
    person_id: personId,
    ...flags,
    created_at: now,
    updated_at: now,
  };
}

/** Owners and admins manage memberships; only owners touch the `owner` flag. Operator commands (no actor) may do all. */
function requireManager(state: AccountState, actorId: number | null, touchesOwnership: boolean): void {
  if (actorId === null) return;
  const actor = state.membershipOf(actorId);
  const isOwner = actor?.['owner'] === true;
  if (!isOwner && actor?.['admin'] !== true) throw unauthorized('Only account owners and administrators may manage account members.');
  if (touchesOwnership && !isOwner) throw unauthorized('Only account owners may grant or revoke account ownership.');
}

function requestedFlags(request: Record<string, unknown>): Partial<AccountMembershipFlags> {
  const flags: Partial<AccountMembershipFlags> = {};
  const problems: ValidationError[] = [];
  for (const flag of ACCOUNT_MEMBERSHIP_FLAGS) {
    if (!(flag in request)) continue;
    const value = request[flag];
    if (typeof value === 'boolean') flags[flag] = value;
    else problems.push({ field: flag, problem: `'${flag}' must be a boolean value` });
  }
  if (problems.length > 0) throw invalidParameter(problems);
  return flags;
}


function validAccountName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidField('name', "Name can't be blank");
  if ([...value.trim()].length > ACCOUNT_NAME_MAX_LENGTH) {
    throw invalidField('name', `'name' parameter must be ${ACCOUNT_NAME_MAX_LENGTH} characters or less.`);
  }
  return value.trim();
}

function accountEvent(type: EventType, account: AccountDoc, change: DecidedChange) {
  return {
    type,
    data: {
      changes: [change],
      primary_resources: [{ kind: change.kind, id: change.id }],
      secondary_resources: [{ kind: 'account', id: account.id, name: String(account['name']) }],
    },
    subject: { kind: change.kind, id: change.id },
  };
}
