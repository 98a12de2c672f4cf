// GET /me: the caller's profile with their API token (the way to obtain it: HTTP Basic is accepted here),
// the accounts they belong to (account_summary) and their project memberships (membership_summary);
// `workspaces` / `workspace_ids` on request.
// A person without a stored time zone is shown in UTC.
//
// Storyline's additions to Tracker's API (the board's profile page; Tracker changed these on its web
// pages only):
//   PUT  /me            name, initials, username, email, time_zone (an Olson name or Tracker's
//                       time_zone object), receives_in_app_notifications; answers `me`
//   POST /me/api_token  revokes the caller's token at once; answers `me` with the new one
//   PUT  /me/password   current_password, password: 204; the current password is checked as a
//                       sign-in is (throttled, a failure counted), the new one by the rules of
//                       `storyline person add`
import type { ProjectViewReads } from '../../ports/project-views.js';
import type { Doc } from '../../ports/read-store.js';
import { DomainError } from '../../domain/errors.js';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import { timeZoneAt } from '../../domain/project/time-zone.js';
import { commandMeta } from '../command-meta.js';
import { requestSchema, text } from '../request-schema.js';
import type { LoadContext, ResourceType } from '../resource-type.js';
import type { ApiResult, RouteDefinition } from '../route-table.js';
import { lastViewedAtAttribute } from './memberships.js';
import { TIME_ZONE } from './projects.js';
import { workspacesOf } from '../../queries/workspaces.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

export const accountSummaryType: ResourceType = {
  name: 'account_summary',
  kind: 'account_summary',
  attributes: { id: 'integer', name: 'string', status: 'string', plan: 'string' },
  defaults: ['kind', 'id', 'name', 'status', 'plan'],
};

/** A membership of the caller; its documents carry `person_id` (not rendered) for `last_viewed_at`. */
function membershipSummaryType(views: ProjectViewReads): ResourceType {
  return {
    name: 'membership_summary',
    kind: 'membership_summary',
    attributes: {
      id: 'integer', project_id: 'integer', project_name: 'string', project_color: 'string', favorite: 'boolean',
      role: { enum: ['owner', 'member', 'viewer'] }, last_viewed_at: 'datetime',
    },
    defaults: ['kind', 'id', 'project_id', 'project_name', 'project_color', 'favorite', 'role', 'last_viewed_at'],
    computed: { last_viewed_at: lastViewedAtAttribute(views) },
  };
}

/** What `PUT /me` may change (the domain checks values; the schema types and bounds them). */
const PROFILE_FIELDS = ['name', 'initials', 'username', 'email', 'time_zone', 'receives_in_app_notifications'] as const;

const checkProfile = requestSchema<Record<string, unknown>>({
  type: 'object',
  properties: {
    name: text(TEXT_LIMITS.person_name),
    initials: text(TEXT_LIMITS.initials),
    username: text(TEXT_LIMITS.username),
    email: text(TEXT_LIMITS.email),
    time_zone: { description: "An Olson time zone name (America/Los_Angeles), or Tracker's time_zone object with olson_name." },
    receives_in_app_notifications: { type: 'boolean' },
  },
  additionalProperties: false,
});

const checkPasswordChange = requestSchema<{ current_password: string; password: string }>({
  type: 'object',
  properties: { current_password: { type: 'string' }, password: { type: 'string' } },
  required: ['current_password', 'password'],
  additionalProperties: false,
});

/**
 * The `me` resource of a person (a `people` document) with their API token; a person without a stored
 * time zone is shown in UTC.
 */
export function meDocument(person: Doc, apiToken: string, now: number): Doc {
  const zone = person.time_zone as { olson_name?: string } | undefined;
  return {
    ...person,
    api_token: apiToken,
    has_ext_identity: person.has_ext_identity === true,
    receives_in_app_notifications: person.receives_in_app_notifications !== false,
    twofactor_auth_enabled: person.twofactor_auth_enabled === true,
    time_zone: timeZoneAt(zone?.olson_name ?? 'Etc/UTC', now),
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
    attributes: {
      id: 'integer', name: 'string', initials: 'string', username: 'string', email: 'string', api_token: 'string',
      created_at: 'datetime', updated_at: 'datetime', has_ext_identity: 'boolean', receives_in_app_notifications: 'boolean',
      twofactor_auth_enabled: 'boolean', time_zone: TIME_ZONE, workspace_ids: 'integer[]',
    },
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
            return own.length ? accounts.find({ id: { $in: own.map((m) => m.account_id) } }, { sort: { id: 1 } }) : [];
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
    const names = new Map((await projects.find({ id: { $in: own.map((m) => m.project_id) } })).map((p) => [p.id, p.name]));
    return own
      .filter((membership) => names.has(membership.project_id))
      .map((membership) => ({
        id: membership.id,
        project_id: membership.project_id,
        project_name: names.get(membership.project_id),
        project_color: membership.project_color,
        favorite: membership.favorite === true,
        role: membership.role,
        person_id: personId,
      }));
  }

  /** The caller as `me`, with `apiToken` or their current token (a person without one is given one). */
  async function meOf(actor: Doc, now: number, apiToken?: string): Promise<ApiResult> {
    const person = (await people.findOne({ id: actor.id })) ?? actor;
    const token = apiToken ?? (await deps.secrets.apiToken(actor.id)) ?? (await deps.secrets.enrol(actor.id, null));
    return { kind: 'resource', type: 'me', value: meDocument(person, token, now) };
  }

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/me',
      access: 'person',
      basicAuth: true,
      answers: { type: 'me' },
      summary: "The caller's profile with their API token (HTTP Basic accepted here)",
      handle: (req) => meOf(req.actor!, req.now),
    },
    {
      method: 'PUT',
      path: '/me',
      access: 'person',
      input: { body: checkProfile },
      answers: { type: 'me' },
      summary: "Change the caller's profile (name, initials, username, email, time zone, in-app notifications)",
      async handle(req) {
        const request = checkProfile.read(req);
        if (Object.keys(request).length === 0) {
          throw new DomainError('invalid_parameter', {
            general_problem: `this endpoint requires at least one of the following parameters: ${PROFILE_FIELDS.join(', ')}`,
          });
        }
        const person = await deps.people.updatePerson(req.actor!.id, request, commandMeta(req));
        return meOf(person, req.now);
      },
    },
    {
      method: 'POST',
      path: '/me/api_token',
      access: 'person',
      answers: { type: 'me' },
      summary: "Replace the caller's API token (the old one stops working at once)",
      async handle(req) {
        return meOf(req.actor!, req.now, await deps.secrets.rotateToken(req.actor!.id));
      },
    },
    {
      method: 'PUT',
      path: '/me/password',
      access: 'person',
      input: { body: checkPasswordChange },
      answers: 'empty',
      summary: "Change the caller's password (the current one is checked as a sign-in is)",
      async handle(req) {
        const body = checkPasswordChange.read(req);
        await deps.people.changePassword(req.actor!.id, body.password, () => req.confirmPassword(body.current_password));
        return { kind: 'empty' };
      },
    },
  ];
  return { reference: { tag: 'Me', description: "The caller: profile, API token, accounts and projects." }, routes, types: [meType, accountSummaryType, membershipSummaryType(deps.projectViews)] };
}
