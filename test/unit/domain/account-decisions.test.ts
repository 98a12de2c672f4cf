import type { AccountState } from '../../../src/domain/account/account-state.js';
import { expect } from 'chai';
import { decideAddAccountMember } from '../../../src/domain/account/add-account-member.js';
import { ALREADY_ACCOUNT_MEMBER, LAST_ACCOUNT_OWNER } from '../../../src/domain/account/account-rules.js';
import { decideChangeAccountMember } from '../../../src/domain/account/change-account-member.js';
import { decideCreateAccount } from '../../../src/domain/account/create-account.js';
import { decideRemoveAccountMember } from '../../../src/domain/account/remove-account-member.js';
import { Scenario, T0 } from './decider-scenario.js';

const OWNER = 42;
const withAccount = () => new Scenario<AccountState>('account-3').given(decideCreateAccount, { accountId: 3, name: 'Acme', ownerId: OWNER });

describe('account decisions', () => {
  it('creates the account with its creator as owner, project creator and timekeeper, not admin', () => {
    const scenario = new Scenario<AccountState>('account-3');
    const decision = scenario.when(decideCreateAccount, { accountId: 3, name: ' Acme ', ownerId: OWNER });
    expect(decision.type).to.equal('account_create');
    expect(scenario.state.accounts.get(3)).to.deep.equal({
      id: 3,
      name: 'Acme',
      plan: 'self_hosted',
      status: 'active',
      created_at: T0,
      updated_at: T0,
    });
    expect(scenario.state.membershipOf(OWNER)).to.deep.include({
      account_id: 3, owner: true, admin: false, project_creator: true, timekeeper: true, time_enterer: false,
    });
  });

  it('requires a name', () => {
    new Scenario<AccountState>('account-3').rejects(decideCreateAccount, { accountId: 3, name: '', ownerId: OWNER }, 'invalid_parameter', 'name');
  });

  it('lets owners and admins add members; others are unauthorized', () => {
    const scenario = withAccount();
    scenario.when(decideAddAccountMember, { personId: 50, request: { admin: true }, actorId: OWNER });
    scenario.when(decideAddAccountMember, { personId: 51, request: { project_creator: true }, actorId: 50 });
    expect(scenario.state.membershipOf(51)).to.deep.include({ owner: false, admin: false, project_creator: true, timekeeper: false, time_enterer: false });
    scenario.when(decideAddAccountMember, { personId: 54, request: { owner: true }, actorId: OWNER });
    expect(scenario.state.membershipOf(54)).to.deep.include({ owner: true, timekeeper: true, time_enterer: false });
    scenario.rejects(decideAddAccountMember, { personId: 52, request: {}, actorId: 51 }, 'unauthorized_operation');
    scenario.rejects(decideAddAccountMember, { personId: 52, request: { owner: true }, actorId: 50 }, 'unauthorized_operation');
    scenario.rejects(decideAddAccountMember, { personId: 52, request: {}, actorId: 999 }, 'unauthorized_operation');
    const error = scenario.rejects(decideAddAccountMember, { personId: 51, request: {}, actorId: OWNER }, 'invalid_parameter', 'person_id');
    expect(error.details.validation_errors?.[0]?.problem).to.equal(ALREADY_ACCOUNT_MEMBER);
    scenario.rejects(decideAddAccountMember, { personId: 53, request: { admin: 'yes' }, actorId: OWNER }, 'invalid_parameter', 'admin');
  });

  it('changes flags, keeping the last owner', () => {
    const scenario = withAccount().given(decideAddAccountMember, { personId: 50, request: {}, actorId: OWNER });
    const decision = scenario.when(decideChangeAccountMember, { personId: 50, request: { project_creator: true }, actorId: OWNER }, { now: T0 + 1 });
    expect(decision.data.changes[0]?.original_values).to.deep.equal({ updated_at: T0, project_creator: false });
    const error = scenario.rejects(decideChangeAccountMember, { personId: OWNER, request: { owner: false }, actorId: OWNER }, 'invalid_parameter', 'owner');
    expect(error.details.validation_errors?.[0]?.problem).to.equal(LAST_ACCOUNT_OWNER);
    scenario.rejects(decideRemoveAccountMember, { personId: OWNER, actorId: OWNER }, 'invalid_parameter', 'owner');
    scenario.rejects(decideChangeAccountMember, { personId: 77, request: {}, actorId: OWNER }, 'unfound_resource');
  });

  it('removes a member', () => {
    const scenario = withAccount().given(decideAddAccountMember, { personId: 50, request: {}, actorId: OWNER });
    scenario.when(decideRemoveAccountMember, { personId: 50, actorId: OWNER });
    expect(scenario.state.membershipOf(50)).to.equal(undefined);
    scenario.rejects(decideRemoveAccountMember, { personId: 50, actorId: OWNER }, 'unfound_resource');
  });

  it('lets operator commands (no actor) manage members', () => {
    withAccount().when(decideAddAccountMember, { personId: 50, request: { owner: true }, actorId: null });
  });
});
