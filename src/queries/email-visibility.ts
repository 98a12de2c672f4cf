// THE rule for whose email a caller may see (spec rule 6; our reading, recorded in docs/decisions.md):
// a person's email is shown to the person themself and to callers who share a project or an account
// with them; everyone else gets the person without `email`.
//
// A response about one project (stories, their owners, releases) is cached per (project, version, role),
// so it cannot depend on who exactly the caller is: there the rule is evaluated with the one project
// the response is about as the only shared group. A caller with a role in it sees the emails of its
// members (they share that project); a caller without a role sees none.
import type { Doc, ReadCollection } from '../ports/read-store.js';
import type { AccountMembershipReadDoc, PersonReadDoc, ProjectMembershipReadDoc } from '../projections/documents.js';

type Find<D extends Doc> = Pick<ReadCollection<D>, 'find'>;

export interface EmailVisibilityReads {
  people: Find<PersonReadDoc>;
  memberships: Find<ProjectMembershipReadDoc>;
  accountMemberships: Find<AccountMembershipReadDoc>;
}

/** Who is looking: the caller, and the project the response is about when it is project-scoped. */
export interface Viewer {
  actorId: number | null;
  /** The response's project and the caller's role in it (null: no role). */
  project?: { id: number; role: string | null } | null;
}

const ACTIVE_ROLES = ['owner', 'member', 'viewer'];

export interface PeopleAsSeen {
  /** The ids among `personIds` whose email the viewer may see. */
  emailVisible(viewer: Viewer, personIds: readonly number[]): Promise<Set<number>>;
  /** People by id as the viewer may see them (email removed where not visible); unknown ids are absent. */
  byIds(viewer: Viewer, ids: readonly unknown[]): Promise<Map<number, Doc>>;
}

export function peopleAsSeen(reads: EmailVisibilityReads): PeopleAsSeen {
  /** The people among `personIds` sharing a project (or an account) with the actor: `key` names the group. */
  async function sharing<K extends 'project_id' | 'account_id', D extends Doc & Record<K, number> & { person_id: number }>(
    collection: Find<D>,
    key: K,
    actorId: number,
    personIds: number[],
  ): Promise<number[]> {
    const own = await collection.find({ person_id: actorId });
    const groups = own.map((membership) => membership[key]);
    if (groups.length === 0) return [];
    const shared = await collection.find({ [key]: { $in: groups }, person_id: { $in: personIds } });
    return shared.map((membership) => membership.person_id);
  }

  const seen: PeopleAsSeen = {
    async emailVisible(viewer, personIds) {
      const ids = [...new Set(personIds)];
      if (viewer.actorId === null || ids.length === 0) return new Set();
      if (viewer.project !== undefined) {
        const project = viewer.project;
        if (project === null || project.role === null) return new Set();
        const members = await reads.memberships.find({ project_id: project.id, person_id: { $in: ids }, role: { $in: ACTIVE_ROLES } });
        return new Set(members.map((membership) => membership.person_id));
      }
      const [byProject, byAccount] = await Promise.all([
        sharing(reads.memberships, 'project_id', viewer.actorId, ids),
        sharing(reads.accountMemberships, 'account_id', viewer.actorId, ids),
      ]);
      return new Set([viewer.actorId, ...byProject, ...byAccount]);
    },

    async byIds(viewer, ids) {
      const wanted = [...new Set(ids.filter((id): id is number => typeof id === 'number'))];
      if (wanted.length === 0) return new Map();
      const [docs, visible] = await Promise.all([reads.people.find({ id: { $in: wanted } }), seen.emailVisible(viewer, wanted)]);
      return new Map(docs.map((doc) => [doc.id, visible.has(doc.id) ? doc : withoutEmail(doc)]));
    },
  };
  return seen;
}

function withoutEmail(doc: Doc): Doc {
  const { email: _hidden, ...rest } = doc;
  return rest as Doc;
}
