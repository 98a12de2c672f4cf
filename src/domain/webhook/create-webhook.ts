// Creating a project's webhook: its URL and version checked, the secret it signs with named (the secret itself lives elsewhere).
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange } from '../events.js';
import { type WebhookDoc, webhookName, checkedUrl, checkedVersion, webhookRef } from './webhook-rules.js';

export interface CreateWebhookInput {
  webhook_url: string;
  webhook_version?: string;
  /** Set when the webhook signs its deliveries. */
  secret_ref?: string;
}

export function decideCreateWebhook(input: CreateWebhookInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const webhook: WebhookDoc = {
    id: context.nextId('webhook'),
    webhook_url: checkedUrl(input.webhook_url),
    webhook_version: checkedVersion(input.webhook_version ?? 'v5'),
    ...(input.secret_ref !== undefined ? { secret_ref: input.secret_ref } : {}),
    created_at: context.now,
    updated_at: context.now,
  };
  const change: DecidedChange = { kind: 'webhook', change_type: 'create', id: webhook.id, name: webhookName(webhook.webhook_url), new_values: { ...webhook } };
  return { type: 'webhook_create', data: { changes: [change], primary_resources: [webhookRef(webhook)] }, subject: { kind: 'webhook', id: webhook.id } };
}
