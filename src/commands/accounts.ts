// Accounts and their memberships. Account members are added by `person_id` or by email (a person unknown
// by that email is invited: created without a password).
//
// Removing a person from an account removes them from every project of the account too (as the A-token
// fact has it for projects: removal ends the token's access): first the account membership (its
// decision checks who may remove whom), then one membership removal in each project stream the person
// belongs to, performed by the same caller. A person who is the only owner of one of those projects is
// not removed from the account (400): ownership is handed over first. The check reads the read models;
// a race with a concurrent ownership change ends with the project removal refused by its own decision
// (the account removal then stands, the project membership stays until removed by hand).
import { decideAddAccountMember } from '../domain/account/add-account-member.js';
import { decideChangeAccountMember } from '../domain/account/change-account-member.js';
import { decideCreateAccount } from '../domain/account/create-account.js';
import { decideRemoveAccountMember } from '../domain/account/remove-account-member.js';
import { ACCOUNT_MEMBERSHIP_FLAGS } from '../domain/account/account-membership-flags.js';
import { LAST_OWNER } from '../domain/project/membership-rules.js';
import { decideRemoveMembership } from '../domain/project/remove-membership.js';
import { DomainError, invalidField } from '../domain/errors.js';
import { PROJECT_ROLES } from '../domain/project-documents.js';
import { streams } from '../domain/events.js';
import { emptyState } from '../domain/decision-states.js';
import type { IdAllocation } from '../ports/id-allocation.js';
import type { Doc } from '../ports/read-store.js';
import type { CommandMeta } from './command-handler.js';
import type { ResourceWriter } from './resource-writer.js';
import type { PeopleCommands } from './people.js';
import type { ReadView } from './read-view.js';

export interface AccountDeps {
  writer: ResourceWriter;
  ids: IdAllocation;
  accounts: ReadView;
  accountMemberships: ReadView;
  peopleRead: ReadView;
  people: PeopleCommands;
  projects: ReadView;
  projectMemberships: ReadView;
}

export class AccountCommands {
  constructor(private readonly deps: AccountDeps) {}

  /** Checks an account name without creating anything (used before a cross-stream flow starts). */
  validateNewAccount(name: unknown, meta: CommandMeta): void {
    decideCreateAccount({ accountId: 0, name, ownerId: 0 }, emptyState(streams.account(0)), { now: meta.now, actorId: meta.actorId, nextId: () => 0 });
  }

  /** A new account whose owner (also project creator and timekeeper) is `ownerId`. */
  async createAccount(name: unknown, ownerId: number, meta: CommandMeta): Promise<Doc> {
    this.validateNewAccount(name, meta);
    const accountId = await this.deps.ids.next('account');
    return (await this.deps.writer.onStream(streams.account(accountId), decideCreateAccount, { accountId, name, ownerId }, meta)).doc;
  }

  async addMember(accountId: number, request: Record<string, unknown>, meta: CommandMeta): Promise<Doc> {
    await this.account(accountId);
    const personId = await this.personFor(request, meta);
    const command = { personId, request: flagsOf(request), actorId: meta.actorId };
    const membershipMeta = { ...meta, commandId: `${meta.commandId}:account-membership` };
    return (await this.deps.writer.onStream(streams.account(accountId), decideAddAccountMember, command, membershipMeta)).doc;
  }

  async changeMember(accountId: number, personId: number, request: Record<string, unknown>, meta: CommandMeta): Promise<Doc> {
    await this.account(accountId);
    const command = { personId, request: flagsOf(request), actorId: meta.actorId };
    return (await this.deps.writer.onStream(streams.account(accountId), decideChangeAccountMember, command, meta)).doc;
  }

  async removeMember(accountId: number, personId: number, meta: CommandMeta): Promise<void> {
    await this.account(accountId);
    const projectMemberships = await this.projectMembershipsIn(accountId, personId);
    await this.assertNotOnlyOwner(projectMemberships);
    await this.deps.writer.execute(streams.account(accountId), decideRemoveAccountMember, { personId, actorId: meta.actorId }, meta);
    const person = await this.deps.peopleRead.findOne({ id: personId });
    const personName = typeof person?.['name'] === 'string' ? { personName: person['name'] } : {};
    for (const membership of projectMemberships) {
      const projectId = Number(membership['project_id']);
      await this.deps.writer.execute(
        streams.project(projectId),
        decideRemoveMembership,
        { membershipId: membership.id, actorRole: null, actorId: null, ...personName },
        { ...meta, commandId: `${meta.commandId}:project-${projectId}` },
      );
    }
  }

  /** The person's memberships in the projects of the account. */
  private async projectMembershipsIn(accountId: number, personId: number): Promise<Doc[]> {
    const projectIds = (await this.deps.projects.find({ account_id: accountId })).map((project) => project.id);
    if (projectIds.length === 0) return [];
    return this.deps.projectMemberships.find({ project_id: { $in: projectIds }, person_id: personId, role: { $in: PROJECT_ROLES } });
  }

  private async assertNotOnlyOwner(memberships: readonly Doc[]): Promise<void> {
    for (const membership of memberships) {
      if (membership['role'] !== 'owner') continue;
      const owners = await this.deps.projectMemberships.find({ project_id: membership['project_id'], role: 'owner' });
      if (owners.length > 1) continue;
      const project = await this.deps.projects.findOne({ id: membership['project_id'] });
      throw invalidField(
        'person_id',
        `${LAST_OWNER} This person is the only owner of project ${String(project?.['name'] ?? membership['project_id'])}; make someone else its owner before removing them from the account.`,
      );
    }
  }

  private async personFor(request: Record<string, unknown>, meta: CommandMeta): Promise<number> {
    if (request['person_id'] !== undefined) {
      const person = await this.deps.peopleRead.findOne({ id: request['person_id'] });
      if (!person) throw invalidField('person_id', 'No person has this id.');
      return person.id;
    }
    if (request['email'] === undefined) {
      throw new DomainError('invalid_parameter', {
        general_problem: 'this endpoint requires one of the following parameters: email, person_id',
        validation_errors: [{ field: 'email', problem: "Email can't be blank" }],
      });
    }
    const person = await this.deps.people.findOrInvite(
      { email: request['email'], name: request['name'], initials: request['initials'] },
      { ...meta, commandId: `${meta.commandId}:person` },
    );
    return person.id;
  }

  private async account(accountId: number): Promise<Doc> {
    const account = await this.deps.accounts.findOne({ id: accountId });
    if (!account) throw new DomainError('unfound_resource');
    return account;
  }
}

function flagsOf(request: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(ACCOUNT_MEMBERSHIP_FLAGS.filter((key) => key in request).map((key) => [key, request[key]]));
}
