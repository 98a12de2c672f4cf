// Changing an account member's flags; the last owner stays an owner.
import type { AccountState } from './account-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, unfound } from '../errors.js';
import type { ChangeValues } from '../events.js';
import { LAST_ACCOUNT_OWNER, requireManager, requestedFlags, accountEvent } from './account-rules.js';

export interface ChangeAccountMember {
  personId: number;
  request: Record<string, unknown>;
  actorId: number | null;
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
