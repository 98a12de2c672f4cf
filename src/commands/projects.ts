// Projects: create (in an account the caller may create projects in, or in a new account created in the
// same request), update settings, delete. Name uniqueness is checked among the live projects of the same
// account, read from the `projects` read model (two concurrent creates with one name can both pass:
// accepted race).
import { decideCreateProject } from '../domain/project/create-project.js';
import { decideDeleteProject } from '../domain/project/delete-project.js';
import { decideUpdateProject } from '../domain/project/update-project.js';
import { DomainError, invalidField, unauthorized } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import { emptyState } from '../domain/decision-states.js';
import type { IdAllocation } from '../ports/id-allocation.js';
import type { Doc } from '../ports/read-store.js';
import type { AccountCommands } from './accounts.js';
import type { CommandMeta } from './command-handler.js';
import type { ResourceWriter } from './resource-writer.js';
import type { ReadView } from './read-view.js';

export interface ProjectDeps {
  writer: ResourceWriter;
  ids: IdAllocation;
  projects: ReadView;
  /** The creator's name goes on their owner membership (for the activity). */
  people: ReadView;
  accountMemberships: ReadView;
  accounts: AccountCommands;
}

/** Keys of POST /projects that are not project settings. */
const CREATE_ONLY_KEYS = ['account_id', 'new_account_name', 'no_owner'] as const;

export class ProjectCommands {
  constructor(private readonly deps: ProjectDeps) {}

  /** Creates a project for `actorId`; returns the project document (with `version`). */
  async createProject(actorId: number, request: Record<string, unknown>, meta: CommandMeta): Promise<Doc> {
    const settings = settingsOf(request);
    const noOwner = request['no_owner'];
    if (noOwner !== undefined && typeof noOwner !== 'boolean') throw invalidField('no_owner', "'no_owner' must be a boolean value");
    const owner = noOwner === true ? null : { personId: actorId, ...(await this.personName(actorId)) };

    let accountId: number;
    let takenNames: string[];
    if (request['new_account_name'] !== undefined) {
      if (request['account_id'] !== undefined) {
        throw invalidField('new_account_name', 'Give either account_id or new_account_name, not both.');
      }
      this.deps.accounts.validateNewAccount(request['new_account_name'], meta);
      // Validate the project before the account exists, so a rejected project leaves no empty account.
      decideCreateProject({ projectId: 0, accountId: 0, request: settings, owner, takenNames: [] }, emptyState(streams.project(0)), {
        now: meta.now,
        actorId: meta.actorId,
        nextId: () => 0,
      });
      const account = await this.deps.accounts.createAccount(request['new_account_name'], actorId, { ...meta, commandId: `${meta.commandId}:account` });
      accountId = account.id;
      takenNames = [];
    } else {
      accountId = await this.accountForCreation(actorId, request['account_id']);
      takenNames = await this.namesIn(accountId, null);
    }
    const projectId = await this.deps.ids.next('project');
    const command = { projectId, accountId, request: settings, owner, takenNames };
    return (await this.deps.writer.onProject(projectId, decideCreateProject, command, { ...meta, commandId: `${meta.commandId}:project` })).doc;
  }

  private async personName(personId: number): Promise<{ name?: string }> {
    const person = await this.deps.people.findOne({ id: personId });
    return typeof person?.['name'] === 'string' ? { name: person['name'] } : {};
  }

  async updateProject(projectId: number, request: Record<string, unknown>, meta: CommandMeta): Promise<{ project: Doc; version: number }> {
    const current = await this.project(projectId);
    refuseCreateOnlyKeys(request, current);
    const takenNames = await this.namesIn(Number(current['account_id']), projectId);
    const { doc, version } = await this.deps.writer.onProject(projectId, decideUpdateProject, { request: settingsOf(request), takenNames }, meta);
    return { project: doc, version };
  }

  async deleteProject(projectId: number, meta: CommandMeta): Promise<number> {
    const outcome = await this.deps.writer.execute(streams.project(projectId), decideDeleteProject, {}, meta);
    return outcome.version;
  }

  /**
   * The account a project goes in: the requested one when the caller may create projects there, else the
   * caller's first such account. Project creators, admins and owners of an account may create projects.
   */
  private async accountForCreation(actorId: number, requested: unknown): Promise<number> {
    if (requested !== undefined) {
      if (typeof requested !== 'number' || !Number.isInteger(requested)) throw invalidField('account_id', "'account_id' must be an integer value");
      const membership = await this.deps.accountMemberships.findOne({ account_id: requested, person_id: actorId });
      if (!membership || !mayCreateProjects(membership)) {
        throw unauthorized('You need the project creation permission of this account to create projects in it.');
      }
      return requested;
    }
    const memberships = await this.deps.accountMemberships.find({ person_id: actorId }, { sort: { account_id: 1 } });
    const permitted = memberships.find(mayCreateProjects);
    if (permitted) return Number(permitted['account_id']);
    if (memberships.length > 0) throw unauthorized('You need the project creation permission of an account to create projects.');
    throw new DomainError('invalid_parameter', {
      general_problem: 'this endpoint requires one of the following parameters: account_id, new_account_name',
      validation_errors: [{ field: 'account_id', problem: 'You belong to no account: give new_account_name to create one.' }],
    });
  }

  private async namesIn(accountId: number, exceptProjectId: number | null): Promise<string[]> {
    const projects = await this.deps.projects.find({ account_id: accountId });
    return projects.filter((project) => project.id !== exceptProjectId).map((project) => String(project['name']));
  }

  private async project(projectId: number): Promise<Doc> {
    const project = await this.deps.projects.findOne({ id: projectId });
    if (!project) throw new DomainError('unfound_resource');
    return project;
  }
}

export function mayCreateProjects(accountMembership: Doc): boolean {
  return accountMembership['project_creator'] === true || accountMembership['admin'] === true || accountMembership['owner'] === true;
}

/**
 * An update never drops what it cannot apply: `no_owner` and `new_account_name` only mean something on
 * create, and a project stays in its account (`account_id` naming another one is refused too).
 */
function refuseCreateOnlyKeys(request: Record<string, unknown>, current: Doc): void {
  for (const key of CREATE_ONLY_KEYS) {
    if (!(key in request)) continue;
    if (key === 'account_id' && request[key] === current['account_id']) continue;
    throw invalidField(key, key === 'account_id' ? 'A project cannot be moved to another account.' : `'${key}' can only be given when creating a project.`);
  }
}

function settingsOf(request: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(request).filter(([key]) => !(CREATE_ONLY_KEYS as readonly string[]).includes(key)));
}
