// Removing a person from an account; the last owner cannot be removed.
import type { AccountState } from './account-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, unfound } from '../errors.js';
import { LAST_ACCOUNT_OWNER, requireManager, accountEvent } from './account-rules.js';

export interface RemoveAccountMember {
  personId: number;
  actorId: number | null;
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
