// Who may see a project, answered from the read models: the project document and the caller's
// membership in it. Memberships marked inactive count as none. Owners and admins of the project's
// account act as owners of every project in it (read, write, settings, memberships), member or not.
// Every request asks this first: answers are remembered per (project, caller) until the read models
// next change (queries/read-model-memo.ts), so a hot read costs a Map lookup, not three store lookups;
// the caller's role is remembered until the memberships change, so a write's access check reads only the
// project document.
import { ReadModelMemo } from '../../queries/read-model-memo.js';
import type { ProjectAccessResolver, ResolvedProject } from '../app-dependencies.js';
import type { ProjectRole } from '../route-table.js';
import type { ResourceDeps } from './resource-module.js';

const ROLES: ReadonlySet<unknown> = new Set<ProjectRole>(['owner', 'member', 'viewer']);

export function projectAccessResolver(deps: Pick<ResourceDeps, 'read' | 'readModelChanges'>): ProjectAccessResolver {
  const projects = deps.read('projects');
  const memberships = deps.read('project_memberships');
  const accountMemberships = deps.read('account_memberships');

  async function managesAccount(accountId: unknown, personId: number): Promise<boolean> {
    if (typeof accountId !== 'number') return false;
    const membership = await accountMemberships.findOne({ account_id: accountId, person_id: personId });
    return membership?.owner === true || membership?.admin === true;
  }

  async function roleOf(projectId: number, accountId: unknown, personId: number): Promise<ProjectRole | null> {
    const membership = await memberships.findOne({ project_id: projectId, person_id: personId });
    const role = membership && ROLES.has(membership.role) ? (membership.role as ProjectRole) : null;
    return role !== 'owner' && (await managesAccount(accountId, personId)) ? 'owner' : role;
  }

  // A role depends on memberships (and the project's account, in the key) alone: it survives the writes
  // to stories and the like, which move every project document's version.
  const roles = new ReadModelMemo<string, ProjectRole | null>(deps.readModelChanges, { dependsOn: ['project_memberships', 'account_memberships'] });

  async function resolve(projectId: number, personId: number | null): Promise<ResolvedProject | null> {
    const project = await projects.findOne({ id: projectId });
    if (!project) return null;
    const accountId = project.account_id;
    const role = personId === null ? null : await roles.get(`${projectId}:${personId}:${String(accountId)}`, () => roleOf(projectId, accountId, personId));
    return { project, role, public: project.public === true };
  }

  const remembered = new ReadModelMemo<string, ResolvedProject | null>(deps.readModelChanges);
  return {
    resolve(projectId, actor) {
      const personId = actor ? actor.id : null;
      return remembered.get(`${projectId}:${personId}`, () => resolve(projectId, personId));
    },
  };
}

/** The project's current version from its read model, null when it does not exist. */
export function projectVersionReader(deps: Pick<ResourceDeps, 'read'>): (projectId: number) => Promise<number | null> {
  const projects = deps.read('projects');
  return async (projectId) => {
    const project = await projects.findOne({ id: projectId });
    return typeof project?.version === 'number' ? project.version : null;
  };
}
