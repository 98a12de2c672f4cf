// GET /me: the caller's profile with their API token (the way to obtain it: HTTP Basic is accepted here),
// the accounts they belong to (account_summary) and their project memberships (membership_summary);
// `workspaces` / `workspace_ids` on request.
// A person without a stored time zone is shown in UTC.
import type { ProjectViewReads } from '../../ports/project-views.js';
import type { Doc } from '../../ports/read-store.js';
import { timeZoneAt } from '../../domain/project/time-zone.js';
import type { LoadContext, ResourceType } from '../resource-type.js';
import type { RouteDefinition } from '../route-table.js';
import { lastViewedAtAttribute } from './memberships.js';
import { workspacesOf } from '../../queries/workspaces.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

export const accountSummaryType: ResourceType = {
  name: 'account_summary',
  kind: 'account_summary',
  attributes: ['id', 'name', 'status', 'plan'],
  defaults: ['kind', 'id', 'name', 'status', 'plan'],
};

/** A membership of the caller; its documents carry `person_id` (not rendered) for `last_viewed_at`. */
function membershipSummaryType(views: ProjectViewReads): ResourceType {
  return {
    name: 'membership_summary',
    kind: 'membership_summary',
    attributes: ['id', 'project_id', 'project_name', 'project_color', 'favorite', 'role'],
    datetimes: ['last_viewed_at'],
    defaults: ['kind', 'id', 'project_id', 'project_name', 'project_color', 'favorite', 'role', 'last_viewed_at'],
    computed: { last_viewed_at: lastViewedAtAttribute(views) },
  };
}

export function meResources(deps: ResourceDeps): ResourceModule {
  const people = deps.read('people');
  const accounts = deps.read('accounts');
  const accountMemberships = deps.read('account_memberships');
  const memberships = deps.read('project_memberships');
  const projects = deps.read('projects');
  const workspaceReads = { workspaces: deps.read('workspaces'), projects, memberships };

  const meType: ResourceType = {
    name: 'me',
    kind: 'me',
    attributes: [
      'id', 'name', 'initials', 'username', 'email', 'api_token', 'created_at', 'updated_at', 'has_ext_identity',
      'receives_in_app_notifications', 'twofactor_auth_enabled', 'time_zone',
    ],
    datetimes: ['created_at', 'updated_at'],
    defaults: [
      'kind', 'id', 'name', 'initials', 'username', 'email', 'api_token', 'created_at', 'updated_at', 'has_ext_identity',
      'receives_in_app_notifications', 'twofactor_auth_enabled', 'time_zone', 'accounts', 'projects',
    ],
    associations: {
      accounts: {
        type: 'account_summary',
        many: true,
        async load(docs: readonly Doc[]) {
          return Promise.all(docs.map(async (me) => {
            const own = await accountMemberships.find({ person_id: me.id }, { sort: { account_id: 1 } });
            return own.length ? accounts.find({ id: { $in: own.map((m) => m['account_id']) } }, { sort: { id: 1 } }) : [];
          }));
        },
      },
      projects: {
        type: 'membership_summary',
        many: true,
        async load(docs: readonly Doc[], _ctx: LoadContext) {
          return Promise.all(docs.map((me) => membershipSummaries(me.id)));
        },
      },
      // On request only (facts §12): the caller's workspaces, as GET /my/workspaces lists them.
      workspaces: {
        type: 'workspace',
        many: true,
        ids: 'workspace_ids',
        idsFromLoad: true,
        async load(docs: readonly Doc[]) {
          return Promise.all(docs.map((me) => workspacesOf(workspaceReads, me.id)));
        },
      },
    },
  };

  async function membershipSummaries(personId: number): Promise<Doc[]> {
    const own = await memberships.find({ person_id: personId, role: { $in: ['owner', 'member', 'viewer'] } }, { sort: { project_id: 1 } });
    if (own.length === 0) return [];
    const names = new Map((await projects.find({ id: { $in: own.map((m) => m['project_id']) } })).map((p) => [p.id, p['name']]));
    return own
      .filter((membership) => names.has(Number(membership['project_id'])))
      .map((membership) => ({
        id: membership.id,
        project_id: membership['project_id'],
        project_name: names.get(Number(membership['project_id'])),
        project_color: membership['project_color'],
        favorite: membership['favorite'] === true,
        role: membership['role'],
        person_id: personId,
      }));
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/me',
      access: 'person',
      basicAuth: true,
      async handle(req) {
        const actor = req.actor!;
        const person = (await people.findOne({ id: actor.id })) ?? actor;
        const apiToken = (await deps.secrets.apiToken(actor.id)) ?? (await deps.secrets.enrol(actor.id, null));
        const zone = person['time_zone'] as { olson_name?: string } | undefined;
        const me: Doc = {
          ...person,
          api_token: apiToken,
          has_ext_identity: person['has_ext_identity'] === true,
          receives_in_app_notifications: person['receives_in_app_notifications'] !== false,
          twofactor_auth_enabled: person['twofactor_auth_enabled'] === true,
          time_zone: timeZoneAt(zone?.olson_name ?? 'Etc/UTC', req.now),
        };
        return { kind: 'resource', type: 'me', value: me };
      },
    },
  ];
  return { routes, types: [meType, accountSummaryType, membershipSummaryType(deps.projectViews)] };
}
