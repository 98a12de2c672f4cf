// Changing a webhook's URL, version or signing secret; the change records only what differs.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange, Values } from '../events.js';
import { type WebhookDoc, webhookName, checkedUrl, checkedVersion, webhookRef } from './webhook-rules.js';

export interface UpdateWebhookInput {
  webhook_id: number;
  webhook_url?: string;
  webhook_version?: string;
  /** A new secret's ref, or null to stop signing; absent keeps the secret as it is. */
  secret_ref?: string | null;
}

/** A change of URL, version or secret; every update (even of nothing) resumes deliveries that stopped failing. */
export function decideUpdateWebhook(input: UpdateWebhookInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const before = state.webhooks.required(input.webhook_id);
  const after: WebhookDoc = {
    ...before,
    ...(input.webhook_url !== undefined ? { webhook_url: checkedUrl(input.webhook_url) } : {}),
    ...(input.webhook_version !== undefined ? { webhook_version: checkedVersion(input.webhook_version) } : {}),
    updated_at: context.now,
  };
  if (input.secret_ref === null) delete after.secret_ref;
  else if (input.secret_ref !== undefined) after.secret_ref = input.secret_ref;
  const original: Values = {};
  const next: Values = {};
  for (const key of ['webhook_url', 'webhook_version', 'secret_ref'] as const) {
    if (before[key] === after[key]) continue;
    original[key] = before[key] ?? null;
    next[key] = after[key] ?? null;
  }
  original.updated_at = before.updated_at;
  next.updated_at = after.updated_at;
  const change: DecidedChange = { kind: 'webhook', change_type: 'update', id: after.id, name: webhookName(after.webhook_url), original_values: original, new_values: next };
  return { type: 'webhook_update', data: { changes: [change], primary_resources: [webhookRef(after)] }, subject: { kind: 'webhook', id: after.id } };
}
