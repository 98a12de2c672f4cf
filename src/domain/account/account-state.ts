// The state of an account's stream (`account-<id>`): the account and its memberships, typed, with the
// memberships by person kept as an index (project-state.ts ByPersonIndex) current with every change.
import { unfound } from '../errors.js';
import { ByPersonIndex } from '../project-state.js';
import { filledIndex, StreamState, type MaintainedIndex, type ResourceDoc } from '../resource-state.js';
import type { ResourceKind } from '../events.js';
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
  private membershipsByPerson: ByPersonIndex<AccountMembershipDoc> | undefined;

  /** The account of the stream (its one account document); unfound before it was created. */
  account(): AccountDoc {
    const [account] = this.accounts;
    if (!account) throw unfound();
    return account;
  }

  membershipOf(personId: number): AccountMembershipDoc | undefined {
    this.membershipsByPerson ??= filledIndex(this.memberships, new ByPersonIndex<AccountMembershipDoc>());
    return this.membershipsByPerson.of(personId);
  }

  ownerCount(): number {
    return this.memberships.filter((membership) => membership.owner === true).length;
  }

  protected override changed(kind: ResourceKind, before: ResourceDoc | undefined, after: ResourceDoc | null): void {
    if (kind === 'account_membership') (this.membershipsByPerson as MaintainedIndex | undefined)?.replace(before, after);
  }
}
