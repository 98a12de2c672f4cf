// Accounts and their memberships. Account members are added by `person_id` or by email (a person unknown
// by that email is invited: created without a password).
import { addAccountMember, changeAccountMember, createAccount, removeAccountMember } from '../domain/account/account-decisions.js';
import { DomainError, invalidField } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import { emptyState } from '../domain/resource-state.js';
import type { IdAllocator } from '../infra/id-allocator.js';
import type { Doc } from '../ports/read-store.js';
import type { CommandHandler, CommandMeta } from './command-handler.js';
import type { PeopleCommands, ReadView } from './people.js';

export interface AccountDeps {
  commands: CommandHandler;
  ids: Pick<IdAllocator, 'next'>;
  accounts: ReadView;
  accountMemberships: ReadView;
  peopleRead: ReadView;
  people: PeopleCommands;
}

const FLAG_KEYS = ['owner', 'admin', 'project_creator'] as const;

export class AccountCommands {
  constructor(private readonly deps: AccountDeps) {}

  /** Checks an account name without creating anything (used before a cross-stream flow starts). */
  validateNewAccount(name: unknown, meta: CommandMeta): void {
    createAccount({ accountId: 0, name, ownerId: 0 })(emptyState(streams.account(0)), { now: meta.now, actorId: meta.actorId, nextId: () => 0 });
  }

  /** A new account whose owner (also admin and project creator) is `ownerId`. */
  async createAccount(name: unknown, ownerId: number, meta: CommandMeta): Promise<Doc> {
    this.validateNewAccount(name, meta);
    const accountId = await this.deps.ids.next('account');
    await this.deps.commands.execute(streams.account(accountId), createAccount({ accountId, name, ownerId }), meta);
    return this.account(accountId);
  }

  async addMember(accountId: number, request: Record<string, unknown>, meta: CommandMeta): Promise<Doc> {
    await this.account(accountId);
    const personId = await this.personFor(request, meta);
    await this.deps.commands.execute(
      streams.account(accountId),
      addAccountMember({ personId, request: flagsOf(request), actorId: meta.actorId }),
      { ...meta, commandId: `${meta.commandId}:account-membership` },
    );
    return this.membership(accountId, personId);
  }

  async changeMember(accountId: number, personId: number, request: Record<string, unknown>, meta: CommandMeta): Promise<Doc> {
    await this.account(accountId);
    await this.deps.commands.execute(streams.account(accountId), changeAccountMember({ personId, request: flagsOf(request), actorId: meta.actorId }), meta);
    return this.membership(accountId, personId);
  }

  async removeMember(accountId: number, personId: number, meta: CommandMeta): Promise<void> {
    await this.account(accountId);
    await this.deps.commands.execute(streams.account(accountId), removeAccountMember({ personId, actorId: meta.actorId }), meta);
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

  private async membership(accountId: number, personId: number): Promise<Doc> {
    const membership = await this.deps.accountMemberships.findOne({ account_id: accountId, person_id: personId });
    if (!membership) throw new DomainError('unfound_resource');
    return membership;
  }
}

function flagsOf(request: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(FLAG_KEYS.filter((key) => key in request).map((key) => [key, request[key]]));
}
