// Creating an account, its creator its first owner.
import type { AccountState } from './account-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError, invalidField } from '../errors.js';
import type { ChangeValues } from '../events.js';
import { ACCOUNT_CREATOR_FLAGS } from './account-membership-flags.js';
import { ACCOUNT_NAME_MAX_LENGTH, ACCOUNT_PLAN, ACCOUNT_STATUS, accountMembershipValues } from './account-rules.js';

export interface CreateAccount {
  /** Allocated by the caller: it names the stream. */
  accountId: number;
  name: unknown;
  ownerId: number;
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

function validAccountName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidField('name', "Name can't be blank");
  if ([...value.trim()].length > ACCOUNT_NAME_MAX_LENGTH) {
    throw invalidField('name', `'name' parameter must be ${ACCOUNT_NAME_MAX_LENGTH} characters or less.`);
  }
  return value.trim();
}
