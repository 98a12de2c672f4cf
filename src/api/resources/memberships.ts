// Project memberships.
//
//   GET    /projects/:project_id/memberships                  readers; `sort_by` = id (default), name,
//                                                            initials, username, email, role, created_at
//   POST   /projects/:project_id/memberships                  owners; `person_id` or `email` (+ `name`,
//                                                            `initials` for a new person), `role`, `project_color`
//   GET    /projects/:project_id/memberships/:membership_id   readers
//   PUT    /projects/:project_id/memberships/:membership_id   owners; others their own favorite / color
//   DELETE /projects/:project_id/memberships/:membership_id   owners; anyone may remove themself (leave)
//   POST   /projects/:project_id/memberships/:membership_id/invitation   owners; a one-time link for a member
//                                                            who cannot sign in yet (Storyline's addition:
//                                                            src/api/resources/invitations.ts)
//
// Only active roles (owner, member, viewer) are ever returned. `last_viewed_at` is when the member last
// GOT the project or its stories list (see lastViewedAtAttribute).
import { DomainError, invalidField } from '../../domain/errors.js';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import { PROJECT_ROLES } from '../../domain/project-documents.js';
import type { ProjectViewReads } from '../../ports/project-views.js';
import type { ProjectMembershipReadDoc } from '../../projections/documents.js';
import { AS_OF, AS_OF_VERSION } from '../as-of-parameters.js';
import { idParam } from '../project-authorization.js';
import { text } from '../request-schema.js';
import type { ComputedAttribute, ResourceType } from '../resource-type.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import { commandMeta } from '../command-meta.js';
import { bodyChecker } from './body-schema.js';
import { invitationResult } from './invitations.js';
import { personAssociation, personDirectory } from './people.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

const PERSON_SORT_KEYS = ['name', 'initials', 'username', 'email'] as const;
const MEMBERSHIP_SORT_KEYS = ['id', 'role', 'created_at'] as const;
type PersonSortKey = (typeof PERSON_SORT_KEYS)[number];
type SortKey = (typeof MEMBERSHIP_SORT_KEYS)[number] | PersonSortKey;
export const SORT_KEYS: readonly SortKey[] = [...MEMBERSHIP_SORT_KEYS, ...PERSON_SORT_KEYS];
const isSortKey = (key: string): key is SortKey => (SORT_KEYS as readonly string[]).includes(key);
const isPersonSortKey = (key: SortKey): key is PersonSortKey => (PERSON_SORT_KEYS as readonly SortKey[]).includes(key);

export function membershipResources(deps: ResourceDeps): ResourceModule {
  const memberships = deps.read('project_memberships');
  const people = deps.read('people');
  const directory = personDirectory(deps);
  const commands = deps.memberships;
  const checkBody = bodyChecker({
    person_id: 'integer',
    favorite: 'boolean',
    email: text(TEXT_LIMITS.email),
    name: text(TEXT_LIMITS.person_name),
    initials: text(TEXT_LIMITS.initials),
    role: text(TEXT_LIMITS.short_text),
    project_color: text(TEXT_LIMITS.short_text),
  });

  const membershipType: ResourceType = {
    name: 'project_membership',
    kind: 'project_membership',
    attributes: {
      id: 'integer', project_id: 'integer', person_id: 'integer', role: { enum: PROJECT_ROLES }, project_color: 'string',
      favorite: 'boolean', created_at: 'datetime', updated_at: 'datetime', wants_comment_notification_emails: 'boolean',
      will_receive_mention_notifications_or_emails: 'boolean', last_viewed_at: 'datetime',
    },
    defaults: [
      'kind', 'id', 'project_id', 'person', 'role', 'project_color', 'favorite', 'last_viewed_at', 'created_at', 'updated_at',
      'wants_comment_notification_emails', 'will_receive_mention_notifications_or_emails',
    ],
    associations: { person: personAssociation(directory, 'person_id') },
    computed: { last_viewed_at: lastViewedAtAttribute(deps.projectViews) },
  };

  const active = { role: { $in: PROJECT_ROLES } };

  async function membershipOf(req: ApiRequest): Promise<ProjectMembershipReadDoc> {
    const membership = await memberships.findOne({ id: idParam(req.params['membership_id']), project_id: req.project!.id, ...active });
    if (!membership) throw new DomainError('unfound_resource');
    return membership;
  }

  async function sorted(list: ProjectMembershipReadDoc[], key: SortKey): Promise<ProjectMembershipReadDoc[]> {
    if (!isPersonSortKey(key)) {
      return list.sort((a, b) => compare(a[key], b[key]) || a.id - b.id);
    }
    const byId = new Map((await people.find({ id: { $in: list.map((m) => m.person_id) } })).map((p) => [p.id, p]));
    const value = (membership: ProjectMembershipReadDoc) => byId.get(membership.person_id)?.[key];
    return list.sort((a, b) => compare(value(a), value(b)) || a.id - b.id);
  }

  /** An order by email would reveal what the caller may not read: refused unless every email is visible. */
  async function assertEmailsVisible(req: ApiRequest, list: readonly ProjectMembershipReadDoc[]): Promise<void> {
    const personIds = list.map((membership) => membership.person_id);
    const visible = await directory.emailVisibleTo(req.actor, personIds);
    if (personIds.every((id) => visible.has(id))) return;
    throw invalidField('sort_by', "sort_by=email is only available to callers who may see the members' emails.");
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/projects/:project_id/memberships',
      access: 'project:read',
      input: { query: { type: 'object', properties: { sort_by: { enum: SORT_KEYS, default: 'id', description: 'The order of the list.' } } } },
      answers: { type: 'project_membership', list: true },
      summary: "A project's members",
      async handle(req) {
        const key = req.query['sort_by'] ?? 'id';
        if (!isSortKey(key)) throw invalidField('sort_by', `sort_by must be one of: ${SORT_KEYS.join(', ')}`);
        const list = await memberships.find({ project_id: req.project!.id, ...active });
        if (key === 'email') await assertEmailsVisible(req, list);
        return { kind: 'resource', type: 'project_membership', value: await sorted(list, key) };
      },
    },
    {
      method: 'POST',
      path: '/projects/:project_id/memberships',
      access: 'project:owner',
      input: { body: checkBody },
      answers: { type: 'project_membership', created: true },
      summary: 'Add a member (a person by id, or by email: invited when unknown)',
      async handle(req) {
        const { membership, version } = await commands.addMembership(req.project!.id, checkBody.read(req), commandMeta(req));
        return { kind: 'resource', type: 'project_membership', value: membership, created: true, projectVersion: version };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/memberships/:membership_id',
      access: 'project:read',
      answers: { type: 'project_membership' },
      summary: 'A membership',
      async handle(req) {
        return { kind: 'resource', type: 'project_membership', value: await membershipOf(req) };
      },
    },
    {
      method: 'PUT',
      path: '/projects/:project_id/memberships/:membership_id',
      access: 'project:read',
      input: { body: checkBody },
      answers: { type: 'project_membership' },
      summary: "Change a membership (owners; a member their own favorite and color)",
      async handle(req) {
        const current = await membershipOf(req);
        const { membership, version } = await commands.changeMembership(req.project!.id, current.id, checkBody.read(req), req.project!.role, commandMeta(req));
        return { kind: 'resource', type: 'project_membership', value: membership, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: '/projects/:project_id/memberships/:membership_id',
      access: 'project:read',
      answers: 'empty',
      summary: 'Remove a member (owners; anyone may leave)',
      async handle(req) {
        const current = await membershipOf(req);
        const version = await commands.removeMembership(req.project!.id, current.id, req.project!.role, commandMeta(req));
        return { kind: 'empty', projectVersion: version };
      },
    },
    {
      method: 'POST',
      path: '/projects/:project_id/memberships/:membership_id/invitation',
      access: 'project:owner',
      answers: { type: 'invitation' },
      summary: 'A new one-time invitation link for a member without a password (mailed when the server sends mail)',
      async handle(req) {
        const membership = await membershipOf(req);
        const meta = { ...commandMeta(req), actorId: req.actor!.id };
        return invitationResult(await deps.invitations.invite(req.project!.id, Number(membership.person_id), meta));
      },
    },
  ];
  return { reference: { tag: 'Memberships', description: "Who is in a project, with which role." }, routes, types: [membershipType] };
}

/**
 * `last_viewed_at` of membership documents (`person_id`, `project_id`): when the person last viewed the
 * project, read from the view store (views never enter the log). Not a cached answer's input: no route
 * rendering memberships is `cacheable`, so a view shows at the next GET at the same project version. An
 * answer as of a past version shows none: views are not part of the project's history.
 */
export function lastViewedAtAttribute(views: ProjectViewReads): ComputedAttribute {
  return async (docs, ctx) => {
    if (ctx.query[AS_OF_VERSION] !== undefined || ctx.query[AS_OF] !== undefined) return docs.map(() => null);
    return views.lastViewedAt(docs.map((doc) => ({ personId: Number(doc.person_id), projectId: Number(doc.project_id) })));
  };
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), 'en', { sensitivity: 'base' });
}
