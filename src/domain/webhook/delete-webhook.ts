// Deleting a project's webhook.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange } from '../events.js';
import { webhookName, webhookRef } from './webhook-rules.js';

export interface DeleteWebhookInput {
  webhook_id: number;
}

export function decideDeleteWebhook(input: DeleteWebhookInput, state: ProjectState, _context: DecisionContext): Decision {
  state.project();
  const webhook = state.webhooks.required(input.webhook_id);
  const change: DecidedChange = { kind: 'webhook', change_type: 'delete', id: webhook.id, name: webhookName(webhook.webhook_url), original_values: { ...webhook } };
  return { type: 'webhook_delete', data: { changes: [change], primary_resources: [webhookRef(webhook)] }, subject: { kind: 'webhook', id: webhook.id } };
}
