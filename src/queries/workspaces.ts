// A person's workspaces as they read them (facts §12 `workspace`): their own only, by id, each listing
// only the projects the person can still see, in the workspace's order. "Can see" is the rule of
// project reads (api/project-authorization.ts): a project that exists, of which the person is a member
// (any role) or that is public.
import type { ReadOnlyCollection } from '../ports/read-store.js';
import type { ProjectMembershipReadDoc, ProjectReadDoc, WorkspaceReadDoc } from '../projections/documents.js';

export interface WorkspaceReads {
  /** resources: `workspaces` */
  workspaces: Pick<ReadOnlyCollection<WorkspaceReadDoc>, 'find'>;
  /** resources: `projects` */
  projects: Pick<ReadOnlyCollection<ProjectReadDoc>, 'find'>;
  /** resources: `project_memberships` */
  memberships: Pick<ReadOnlyCollection<ProjectMembershipReadDoc>, 'find'>;
}

/** Of `projectIds`, those the person can see now (one read of each collection). */
export async function visibleProjectIds(reads: WorkspaceReads, personId: number, projectIds: readonly number[]): Promise<number[]> {
  const ids = [...new Set(projectIds)];
  if (ids.length === 0) return [];
  const [projects, memberships] = await Promise.all([
    reads.projects.find({ id: { $in: ids } }, { fields: ['public'] }),
    reads.memberships.find({ person_id: personId, project_id: { $in: ids } }, { fields: ['project_id'] }),
  ]);
  const member = new Set(memberships.map((membership) => membership.project_id));
  const visible = new Set(projects.filter((project) => project.public === true || member.has(project.id)).map((project) => project.id));
  return ids.filter((id) => visible.has(id));
}

/** The person's workspaces (all, or the one with `workspaceId`), each with only the projects they see. */
export async function workspacesOf(reads: WorkspaceReads, personId: number, workspaceId?: number): Promise<WorkspaceReadDoc[]> {
  const filter = workspaceId === undefined ? { person_id: personId } : { person_id: personId, id: workspaceId };
  const docs = await reads.workspaces.find(filter, { sort: { id: 1 } });
  const visible = new Set(await visibleProjectIds(reads, personId, docs.flatMap((doc) => doc.project_ids)));
  return docs.map((doc) => ({ ...doc, project_ids: doc.project_ids.filter((id) => visible.has(id)) }));
}
