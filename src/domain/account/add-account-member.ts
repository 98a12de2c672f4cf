// Adding a person to an account, with the flags the request gives and the defaults for the others.
import type { AccountState } from './account-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField } from '../errors.js';
import { newMembershipFlags } from './account-membership-flags.js';
import { ALREADY_ACCOUNT_MEMBER, accountMembershipValues, requireManager, requestedFlags, accountEvent } from './account-rules.js';

export interface AddAccountMember {
  personId: number;
  /** `owner`, `admin`, `project_creator`, `timekeeper`, `time_enterer` booleans; absent ones take their defaults. */
  request: Record<string, unknown>;
  actorId: number | null;
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
