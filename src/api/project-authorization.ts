// The access rules of project-scoped requests, applied to every route through `Access`.
//
// Missing and forbidden projects: the real service answered 403 `unauthorized_operation` both for projects
// the caller may not see and for deleted ones (facts §4.2, §11). We answer 403 `unauthorized_operation`
// when the project exists and the caller may not do this, and 404 `unfound_resource` when no project has
// this id (the spec's "Missing ... resource id" case), so a client can tell a typo from a permission.
// An anonymous caller always gets 401 `unauthenticated` for a project that is not public, existing or
// not, so anonymous requests cannot probe which ids exist.

import { apiError } from './error-catalogue.js';
import { missingCredentials } from './authentication.js';
import type { ProjectAccessResolver } from './app-dependencies.js';
import type { Actor, HttpMethod, ProjectAccess, ProjectAccessLevel } from './route-table.js';

export interface AuthorizationInput {
  projectId: number;
  actor: Actor | null;
  level: ProjectAccessLevel;
  method: HttpMethod;
  xhr: boolean;
}

export async function authorizeProject(resolver: ProjectAccessResolver, input: AuthorizationInput): Promise<ProjectAccess> {
  const { projectId, actor, level, method, xhr } = input;
  const resolved = Number.isSafeInteger(projectId) && projectId > 0 ? await resolver.resolve(projectId, actor) : null;
  if (!resolved) throw actor ? apiError('unfound_resource') : missingCredentials(xhr);
  const access: ProjectAccess = { id: projectId, project: resolved.project, role: resolved.role, public: resolved.public };
  if (allows(access, level, method)) return access;
  throw actor ? apiError('unauthorized_operation') : missingCredentials(xhr);
}

function allows(access: ProjectAccess, level: ProjectAccessLevel, method: HttpMethod): boolean {
  switch (level) {
    case 'project:read':
      return access.role !== null || (access.public && method === 'GET');
    case 'project:write':
      return access.role === 'owner' || access.role === 'member';
    case 'project:owner':
      return access.role === 'owner';
  }
}

/** A path id (`:project_id`, `:story_id`): a positive integer, else the resource cannot exist. */
export function idParam(value: string | undefined): number {
  if (value === undefined || !/^[1-9][0-9]{0,15}$/.test(value)) throw apiError('unfound_resource');
  const id = Number(value);
  if (!Number.isSafeInteger(id)) throw apiError('unfound_resource');
  return id;
}
