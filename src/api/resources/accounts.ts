// Accounts and account memberships.
//
//   GET /accounts                          accounts where the caller is an owner or admin
//   GET /account_summaries                 accounts the caller belongs to; `with_permission=project_creation`
//                                          keeps those where the caller may create projects
//   GET /accounts/:account_id              owners and admins only (403 for other callers, 404 when absent)
//   GET/POST /accounts/:account_id/memberships, GET/PUT/DELETE .../memberships/:person_id
//                                          owners and admins only (the deciders also keep the last owner and
//                                          let only owners grant or revoke ownership)
//
// An account membership's `id` is its person's id, as Tracker's were (the path names it so too); the
// read model keeps the membership's own id, since one person belongs to several accounts.
import { DomainError, invalidField, unauthorized } from '../../domain/errors.js';
import { mayCreateProjects } from '../../commands/projects.js';
import type { Doc } from '../../ports/read-store.js';
import type { AccountMembershipReadDoc, AccountReadDoc } from '../../projections/documents.js';
import { idParam } from '../project-authorization.js';
import type { ResourceType } from '../resource-type.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import { commandMeta } from '../command-meta.js';
import { bodyChecker } from './body-schema.js';
import { personAssociation, personDirectory } from './people.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

export const accountType: ResourceType = {
  name: 'account',
  kind: 'account',
  attributes: { id: 'integer', name: 'string', plan: 'string', status: 'string', created_at: 'datetime', updated_at: 'datetime' },
  defaults: ['kind', 'id', 'name', 'plan', 'status', 'created_at', 'updated_at'],
};

export const PERMISSIONS = ['project_creation'] as const;

export function accountResources(deps: ResourceDeps): ResourceModule {
  const accounts = deps.read('accounts');
  const accountMemberships = deps.read('account_memberships');
  const commands = deps.accounts;
  const directory = personDirectory(deps);
  const checkMemberBody = bodyChecker({
    person_id: 'integer', owner: 'boolean', admin: 'boolean', project_creator: 'boolean', timekeeper: 'boolean', time_enterer: 'boolean',
  });

  const accountMembershipType: ResourceType = {
    name: 'account_membership',
    kind: 'account_membership',
    attributes: {
      id: 'integer', account_id: 'integer', person_id: 'integer', owner: 'boolean', admin: 'boolean', project_creator: 'boolean',
      timekeeper: 'boolean', time_enterer: 'boolean', created_at: 'datetime', updated_at: 'datetime',
    },
    defaults: ['kind', 'id', 'account_id', 'person', 'owner', 'admin', 'project_creator', 'timekeeper', 'time_enterer', 'created_at', 'updated_at'],
    associations: { person: personAssociation(directory, 'person_id') },
  };

  /** The account, when the caller owns or administers it; 404 when it does not exist, else 403. */
  /** The accounts whose membership of the caller passes `keep`, in id order. */
  async function callerAccounts(req: ApiRequest, keep: (membership: AccountMembershipReadDoc) => boolean): Promise<AccountReadDoc[]> {
    const own = await accountMemberships.find({ person_id: req.actor!.id });
    const ids = own.filter(keep).map((membership) => membership.account_id);
    return ids.length ? accounts.find({ id: { $in: ids } }, { sort: { id: 1 } }) : [];
  }

  async function managedAccount(req: ApiRequest): Promise<AccountReadDoc> {
    const accountId = idParam(req.params['account_id']);
    const account = await accounts.findOne({ id: accountId });
    if (!account) throw new DomainError('unfound_resource');
    const membership = await accountMemberships.findOne({ account_id: accountId, person_id: req.actor!.id });
    if (membership?.owner !== true && membership?.admin !== true) {
      throw unauthorized('Only account owners and administrators may access the account.');
    }
    return account;
  }


  async function membershipOf(accountId: number, req: ApiRequest): Promise<AccountMembershipReadDoc> {
    const membership = await accountMemberships.findOne({ account_id: accountId, person_id: idParam(req.params['person_id']) });
    if (!membership) throw new DomainError('unfound_resource');
    return membership;
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/accounts',
      access: 'person',
      answers: { type: 'account', list: true },
      summary: 'Accounts the caller owns or administers',
      async handle(req) {
        const value = await callerAccounts(req, (m) => m.owner === true || m.admin === true);
        return { kind: 'resource', type: 'account', value };
      },
    },
    {
      method: 'GET',
      path: '/account_summaries',
      access: 'person',
      input: {
        query: { type: 'object', properties: { with_permission: { enum: PERMISSIONS, description: 'Only the accounts where the caller may create projects.' } } },
      },
      answers: { type: 'account_summary', list: true },
      summary: 'Accounts the caller belongs to',
      async handle(req) {
        const permission = req.query['with_permission'];
        if (permission !== undefined && !(PERMISSIONS as readonly string[]).includes(permission)) {
          throw invalidField('with_permission', `with_permission must be one of: ${PERMISSIONS.join(', ')}`);
        }
        const value = await callerAccounts(req, (m) => permission === undefined || mayCreateProjects(m));
        return { kind: 'resource', type: 'account_summary', value };
      },
    },
    {
      method: 'GET',
      path: '/accounts/:account_id',
      access: 'person',
      answers: { type: 'account' },
      summary: 'An account (owners and administrators)',
      async handle(req) {
        return { kind: 'resource', type: 'account', value: await managedAccount(req) };
      },
    },
    {
      method: 'GET',
      path: '/accounts/:account_id/memberships',
      access: 'person',
      answers: { type: 'account_membership', list: true },
      summary: "An account's members",
      async handle(req) {
        const account = await managedAccount(req);
        const value = await accountMemberships.find({ account_id: account.id }, { sort: { id: 1 } });
        return { kind: 'resource', type: 'account_membership', value: value.map(asServed) };
      },
    },
    {
      method: 'POST',
      path: '/accounts/:account_id/memberships',
      access: 'person',
      input: { body: checkMemberBody },
      answers: { type: 'account_membership', created: true },
      summary: 'Add a person to an account',
      async handle(req) {
        const account = await managedAccount(req);
        const value = await commands.addMember(account.id, checkMemberBody.read(req), commandMeta(req));
        return { kind: 'resource', type: 'account_membership', value: asServed(value), created: true };
      },
    },
    {
      method: 'GET',
      path: '/accounts/:account_id/memberships/:person_id',
      access: 'person',
      answers: { type: 'account_membership' },
      summary: "A person's membership of an account",
      async handle(req) {
        const account = await managedAccount(req);
        return { kind: 'resource', type: 'account_membership', value: asServed(await membershipOf(account.id, req)) };
      },
    },
    {
      method: 'PUT',
      path: '/accounts/:account_id/memberships/:person_id',
      access: 'person',
      input: { body: checkMemberBody },
      answers: { type: 'account_membership' },
      summary: "Change a person's permissions in an account",
      async handle(req) {
        const account = await managedAccount(req);
        const membership = await membershipOf(account.id, req);
        const value = await commands.changeMember(account.id, membership.person_id, checkMemberBody.read(req), commandMeta(req));
        return { kind: 'resource', type: 'account_membership', value: asServed(value) };
      },
    },
    {
      method: 'DELETE',
      path: '/accounts/:account_id/memberships/:person_id',
      access: 'person',
      answers: 'empty',
      summary: 'Remove a person from an account',
      async handle(req) {
        const account = await managedAccount(req);
        const membership = await membershipOf(account.id, req);
        await commands.removeMember(account.id, membership.person_id, commandMeta(req));
        return { kind: 'empty' };
      },
    },
  ];
  return { reference: { tag: 'Accounts', description: "Accounts and their members' permissions (owners and administrators)." }, routes, types: [accountType, accountMembershipType] };
}

/** A membership as clients see it: identified by its person. */
function asServed(membership: Doc): Doc {
  return { ...membership, id: Number(membership.person_id) };
}
