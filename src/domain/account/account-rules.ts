// Decisions on an account stream (`account-<id>`): the account and its memberships.
// Rules chosen where the spec is silent:
// - the account's creator is its owner, a project creator and its timekeeper, not an admin unless made
//   one (the flags and their defaults: account-membership-flags.ts);
// - only account owners and admins change account memberships (every flag, `timekeeper` and
//   `time_enterer` included); only owners grant or revoke `owner`;
// - the last owner can be neither removed nor demoted;
// - plan is `self_hosted` and status `active`: a self-hosted server has no billing plans.
// What its deciders (create-account.ts, add-account-member.ts, change-account-member.ts, remove-account-member.ts) share.
import type { AccountDoc, AccountState } from './account-state.js';
import { invalidParameter, unauthorized, type ValidationError } from '../errors.js';
import type { EventType, DecidedChange, ChangeValues } from '../events.js';
import { ACCOUNT_MEMBERSHIP_FLAGS, type AccountMembershipFlags } from './account-membership-flags.js';

export const ACCOUNT_NAME_MAX_LENGTH = 100;
export const ACCOUNT_PLAN = 'self_hosted';
export const ACCOUNT_STATUS = 'active';
export const LAST_ACCOUNT_OWNER = 'An account must keep at least one owner.';
export const ALREADY_ACCOUNT_MEMBER = 'This person is already a member of the account.';

export function accountMembershipValues(
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
export function requireManager(state: AccountState, actorId: number | null, touchesOwnership: boolean): void {
  if (actorId === null) return;
  const actor = state.membershipOf(actorId);
  const isOwner = actor?.['owner'] === true;
  if (!isOwner && actor?.['admin'] !== true) throw unauthorized('Only account owners and administrators may manage account members.');
  if (touchesOwnership && !isOwner) throw unauthorized('Only account owners may grant or revoke account ownership.');
}

export function requestedFlags(request: Record<string, unknown>): Partial<AccountMembershipFlags> {
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


export function accountEvent(type: EventType, account: AccountDoc, change: DecidedChange) {
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
