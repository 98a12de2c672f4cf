// Invitations: Storyline's addition to Tracker's API, so that people can join through the board
// (src/commands/invitations.ts holds the rules).
//
//   POST /projects/:project_id/memberships/:membership_id/invitation   owners: a new one-time link for
//        the member (who must not have a password yet), mailed when SMTP is configured
//        (src/api/resources/memberships.ts)
//   GET  /invitations/:secret          anyone holding the link: email, project, inviter, expiry
//   POST /invitations/:secret/accept   anyone holding the link: name, username, initials?, password;
//                                      answers `me` with the API token
// An unknown, used, replaced or expired secret answers 404 `unfound_resource` on both.
import type { InvitationView, MadeInvitation } from '../../commands/invitations.js';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import type { Doc } from '../../ports/read-store.js';
import { requestSchema, text } from '../request-schema.js';
import type { ResourceType } from '../resource-type.js';
import type { ApiResult, RouteDefinition } from '../route-table.js';
import { meDocument } from './me.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

const invitationType: ResourceType = {
  name: 'invitation',
  kind: 'invitation',
  attributes: {
    project_id: 'integer', person_id: 'integer', email: 'string', project_name: 'string', inviter_name: 'string', url: 'string',
    expires_at: 'datetime', emailed: 'boolean',
  },
  defaults: ['kind', 'project_id', 'project_name', 'person_id', 'email', 'inviter_name', 'url', 'expires_at', 'emailed'],
};

const checkAcceptance = requestSchema<{ name: string; username: string; initials?: string; password: string }>({
  type: 'object',
  properties: {
    name: text(TEXT_LIMITS.person_name),
    username: text(TEXT_LIMITS.username),
    initials: text(TEXT_LIMITS.initials),
    password: { type: 'string' },
  },
  required: ['name', 'username', 'password'],
  additionalProperties: false,
});

/** An invitation as the `invitation` resource: it has no id of its own (the serializer leaves `id` out). */
export function invitationResult(invitation: MadeInvitation | InvitationView): ApiResult {
  return { kind: 'resource', type: 'invitation', value: invitation as unknown as Doc };
}

export function invitationResources(deps: ResourceDeps): ResourceModule {
  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/invitations/:secret',
      access: 'public',
      answers: { type: 'invitation' },
      summary: 'An invitation by its secret (from the link mailed to the invitee)',
      async handle(req) {
        return invitationResult(await deps.invitations.describe(req.params['secret']!, req.now));
      },
    },
    {
      method: 'POST',
      path: '/invitations/:secret/accept',
      access: 'public',
      input: { body: checkAcceptance },
      answers: { type: 'me' },
      summary: 'Accept an invitation: name, username and password; answers the new person with their API token',
      async handle(req) {
        const profile = checkAcceptance.read(req);
        const meta = { commandId: req.commandId, actorId: null, now: req.now };
        const { person, apiToken } = await deps.invitations.accept(req.params['secret']!, profile, meta);
        return { kind: 'resource', type: 'me', value: meDocument(person, apiToken, req.now) };
      },
    },
  ];
  return {
    reference: { tag: 'Invitations', description: 'Joining a project through a one-time link (an addition to the Tracker API, for the board).' },
    routes,
    types: [invitationType],
  };
}
