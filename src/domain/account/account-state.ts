// The state of an account's stream (`account-<id>`): the account and its memberships, typed, with the
// memberships by person kept as an index (project-state.ts ByPersonIndex) current with every change.
import { unfound } from '../errors.js';
import { ByPersonIndex } from '../project-state.js';
import { filledIndex, StreamState, type ResourceDoc } from '../resource-state.js';
import type { AccountMembershipFlags } from './account-membership-flags.js';

export interface AccountDoc extends ResourceDoc {
  name: string;
}

export interface AccountMembershipDoc extends ResourceDoc, Partial<AccountMembershipFlags> {
  account_id: number;
  person_id: number;
}

export class AccountState extends StreamState {
  readonly accounts = this.collection<AccountDoc>('account');
  readonly memberships = this.collection<AccountMembershipDoc>('account_membership');

  /** The account of the stream (its one account document); unfound before it was created. */
  account(): AccountDoc {
    const [account] = this.accounts;
    if (!account) throw unfound();
    return account;
  }

  membershipOf(personId: number): AccountMembershipDoc | undefined {
    return this.indexed('account_membership', () => filledIndex(this.memberships, new ByPersonIndex<AccountMembershipDoc>())).of(personId);
  }

  ownerCount(): number {
    return this.memberships.filter((membership) => membership.owner === true).length;
  }
}
