// A project's activity webhooks (Tracker's `webhook` resource; the deliveries: reactions/webhooks.ts).
//
//   GET    /projects/:project_id/webhooks              owners
//   POST   /projects/:project_id/webhooks              owners; `webhook_url` (required), `webhook_version`
//                                                      (`v5`, the default and only value), `secret`
//   GET    /projects/:project_id/webhooks/:webhook_id  owners
//   PUT    /projects/:project_id/webhooks/:webhook_id  owners; any of the three; every update resumes a
//                                                      webhook whose deliveries stopped failing
//   DELETE /projects/:project_id/webhooks/:webhook_id  owners; 204
//
// Only project owners (account owners and admins count as owners) see and manage webhooks: a URL often
// carries a receiver's credential. `webhook_url` must be an absolute http or https URL whose host
// resolves to public addresses only (unless the operator allows private ones); anything else is 400
// naming it. `secret` is write-only: it is kept in the credentials store under a fresh random key the
// webhook names (`secret_ref`, never rendered), stored before the write is decided; `""` or null on PUT
// stops signing. A webhook also shows how its deliveries go (from the delivery reaction, not the log):
//   last_delivered_version   every version up to it is delivered (or has no activity to deliver)
//   last_delivery_at         when the last attempt ended
//   last_delivery_status     the HTTP status the receiver answered it (absent: no answer)
//   last_delivery_error      why it failed (absent when it succeeded)
//   failing_since            when the current run of failed attempts began (absent: not failing)
//   failing                  true once deliveries stopped after failing for 24 h; an update resumes them
import { randomUUID } from 'node:crypto';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import { invalidField } from '../../domain/errors.js';
import { streams } from '../../domain/events.js';
import { decideCreateWebhook } from '../../domain/webhook/create-webhook.js';
import { decideDeleteWebhook } from '../../domain/webhook/delete-webhook.js';
import { decideUpdateWebhook, type UpdateWebhookInput } from '../../domain/webhook/update-webhook.js';
import { WEBHOOK_VERSIONS, webhookUrlProblem } from '../../domain/webhook/webhook-rules.js';
import type { WebhookDeliveryState } from '../../ports/webhook-deliveries.js';
import { commandMeta } from '../command-meta.js';
import { apiError } from '../error-catalogue.js';
import { idParam } from '../project-authorization.js';
import { requestSchema, text } from '../request-schema.js';
import type { ComputedAttribute, ResourceType } from '../resource-type.js';
import type { ApiRequest, RouteDefinition } from '../route-table.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';
import type { WebhookReadDoc } from '../../projections/documents.js';

/** What webhooks need beyond the read models and the writer. */
export interface WebhookServices {
  /** Why the URL's host may not receive deliveries (it resolves to a private address, or not at all), or null. */
  addressProblem(url: string): Promise<string | null>;
  putSecret(ref: string, secret: string): Promise<void>;
  deleteSecret(ref: string): Promise<void>;
  /** How the webhook's deliveries go now (null before the delivery reaction has registered it). */
  deliveryState(webhookId: number): WebhookDeliveryState | null;
}

interface WebhookBody {
  webhook_url?: string;
  webhook_version?: string;
  secret?: string | null;
}

const BODY = {
  type: 'object',
  properties: {
    webhook_url: text(TEXT_LIMITS.webhook_url),
    webhook_version: text(TEXT_LIMITS.short_text),
    secret: text(TEXT_LIMITS.webhook_secret, true),
    id: false,
  },
  additionalProperties: false,
} as const;
const checkCreate = requestSchema<WebhookBody & { webhook_url: string }>({ ...BODY, required: ['webhook_url'] });
const checkUpdate = requestSchema<WebhookBody>(BODY);

export function webhookResources(deps: ResourceDeps): ResourceModule {
  const webhooks = deps.read('webhooks');
  const services = deps.webhooks;
  const { writer } = deps;

  async function pathWebhook(req: ApiRequest): Promise<WebhookReadDoc> {
    const webhook = await webhooks.findOne({ id: idParam(req.params['webhook_id']), project_id: req.project!.id });
    if (!webhook) throw apiError('unfound_resource');
    return webhook;
  }

  /** The URL as given, once its form and its host's addresses are acceptable; 400 naming it otherwise. */
  async function checkedUrl(url: string): Promise<string> {
    const problem = webhookUrlProblem(url) ?? (await services.addressProblem(url));
    if (problem) throw invalidField('webhook_url', problem.startsWith("'webhook_url'") ? problem : `'webhook_url' cannot receive deliveries: ${problem}.`);
    return url;
  }

  /** Stores a new secret under a fresh ref; a failed write removes it again. */
  async function withSecret<T>(secret: string, write: (ref: string) => Promise<T>): Promise<T> {
    const ref = randomUUID();
    await services.putSecret(ref, secret);
    try {
      return await write(ref);
    } catch (error) {
      await services.deleteSecret(ref);
      throw error;
    }
  }

  /** A delivery attribute; `before` when the delivery reaction has not registered the webhook yet. */
  const computed = (pick: (state: WebhookDeliveryState) => unknown, before: unknown = null): ComputedAttribute => async (docs) =>
    docs.map((doc) => {
      const state = services.deliveryState(doc.id);
      return state ? pick(state) : before;
    });

  const webhookType: ResourceType = {
    name: 'webhook',
    kind: 'webhook',
    attributes: {
      id: 'integer', project_id: 'integer', webhook_url: 'string', webhook_version: { enum: [...WEBHOOK_VERSIONS] }, created_at: 'datetime', updated_at: 'datetime',
      last_delivered_version: 'integer', last_delivery_at: 'datetime', last_delivery_status: 'integer', last_delivery_error: 'string',
      failing_since: 'datetime', failing: 'boolean',
    },
    defaults: [
      'kind', 'id', 'project_id', 'webhook_url', 'webhook_version', 'created_at', 'updated_at',
      'last_delivered_version', 'last_delivery_at', 'last_delivery_status', 'last_delivery_error', 'failing_since', 'failing',
    ],
    computed: {
      last_delivered_version: computed((state) => state.deliveredVersion),
      last_delivery_at: computed((state) => state.lastAttemptAt),
      last_delivery_status: computed((state) => state.lastStatus),
      last_delivery_error: computed((state) => state.lastError),
      failing_since: computed((state) => state.failingSince),
      failing: computed((state) => state.paused, false),
    },
  };

  const routes: RouteDefinition[] = [
    {
      method: 'GET',
      path: '/projects/:project_id/webhooks',
      access: 'project:owner',
      answers: { type: 'webhook', list: true },
      summary: "A project's activity webhooks (owners)",
      async handle(req) {
        const value = await webhooks.find({ project_id: req.project!.id }, { sort: { id: 1 } });
        return { kind: 'resource', type: 'webhook', value };
      },
    },
    {
      method: 'POST',
      path: '/projects/:project_id/webhooks',
      access: 'project:owner',
      input: { body: checkCreate },
      answers: { type: 'webhook', created: true },
      summary: 'Create a webhook: every activity of the project is posted to its URL',
      async handle(req) {
        const body = checkCreate.read(req);
        const command = {
          webhook_url: await checkedUrl(body.webhook_url),
          ...(body.webhook_version !== undefined ? { webhook_version: body.webhook_version } : {}),
        };
        const create = (secretRef?: string) =>
          writer.onProject(req.project!.id, decideCreateWebhook, { ...command, ...(secretRef ? { secret_ref: secretRef } : {}) }, commandMeta(req));
        const { doc, version } = body.secret ? await withSecret(body.secret, create) : await create();
        return { kind: 'resource', type: 'webhook', value: doc, created: true, projectVersion: version };
      },
    },
    {
      method: 'GET',
      path: '/projects/:project_id/webhooks/:webhook_id',
      access: 'project:owner',
      answers: { type: 'webhook' },
      summary: 'A webhook, with how its deliveries go',
      handle: async (req) => ({ kind: 'resource', type: 'webhook', value: await pathWebhook(req) }),
    },
    {
      method: 'PUT',
      path: '/projects/:project_id/webhooks/:webhook_id',
      access: 'project:owner',
      input: { body: checkUpdate },
      answers: { type: 'webhook' },
      summary: "Change a webhook's URL, version or secret (resumes a failing webhook)",
      async handle(req) {
        const current = await pathWebhook(req);
        const body = checkUpdate.read(req);
        const command: UpdateWebhookInput = {
          webhook_id: current.id,
          ...(body.webhook_url !== undefined ? { webhook_url: await checkedUrl(body.webhook_url) } : {}),
          ...(body.webhook_version !== undefined ? { webhook_version: body.webhook_version } : {}),
          ...(body.secret === null || body.secret === '' ? { secret_ref: null } : {}),
        };
        const update = (secretRef?: string) =>
          writer.onProject(req.project!.id, decideUpdateWebhook, secretRef ? { ...command, secret_ref: secretRef } : command, commandMeta(req));
        const { doc, version } = body.secret ? await withSecret(body.secret, update) : await update();
        const oldRef = current.secret_ref;
        if (typeof oldRef === 'string' && oldRef !== doc.secret_ref) await services.deleteSecret(oldRef);
        return { kind: 'resource', type: 'webhook', value: doc, projectVersion: version };
      },
    },
    {
      method: 'DELETE',
      path: '/projects/:project_id/webhooks/:webhook_id',
      access: 'project:owner',
      answers: 'empty',
      summary: 'Delete a webhook',
      async handle(req) {
        const current = await pathWebhook(req);
        const outcome = await writer.execute(streams.project(req.project!.id), decideDeleteWebhook, { webhook_id: current.id }, commandMeta(req));
        if (typeof current.secret_ref === 'string') await services.deleteSecret(current.secret_ref);
        return { kind: 'empty', projectVersion: outcome.version };
      },
    },
  ];
  return { routes, types: [webhookType], reference: { tag: 'Webhooks', description: "A project's activity posted to receivers' URLs as it happens, signed with the webhook's secret." } };
}
