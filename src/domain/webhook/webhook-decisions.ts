// A project's activity webhooks (Tracker's `webhook` resource): create, change, remove. Each is a write
// like any other: one event, one activity, one version. What a webhook holds: `webhook_url` (an absolute
// http or https URL), `webhook_version` (`v5`, the only one delivered) and, when it signs its deliveries,
// `secret_ref`: the key its secret is kept under in the credentials store. The secret itself never
// enters an event; a new secret is a new ref (the API stores the secret under it before deciding).
// Whether the URL's host is a public address is checked by the API before deciding (it needs DNS).
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, unfound } from '../errors.js';
import type { DecidedChange, ResourceRef, Values } from '../events.js';
import type { ResourceDoc } from '../resource-state.js';

export const WEBHOOK_VERSIONS = ['v5'] as const;
export type WebhookVersion = (typeof WEBHOOK_VERSIONS)[number];

export interface WebhookDoc extends ResourceDoc {
  webhook_url: string;
  webhook_version: WebhookVersion;
  secret_ref?: string;
  created_at: number;
  updated_at: number;
}

export interface CreateWebhookInput {
  webhook_url: string;
  webhook_version?: string;
  /** Set when the webhook signs its deliveries. */
  secret_ref?: string;
}

export interface UpdateWebhookInput {
  webhook_id: number;
  webhook_url?: string;
  webhook_version?: string;
  /** A new secret's ref, or null to stop signing; absent keeps the secret as it is. */
  secret_ref?: string | null;
}

export interface DeleteWebhookInput {
  webhook_id: number;
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

/** A change of URL, version or secret; every update (even of nothing) resumes deliveries that stopped failing. */
export function decideUpdateWebhook(input: UpdateWebhookInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const before = webhookOf(state, input.webhook_id);
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

export function decideDeleteWebhook(input: DeleteWebhookInput, state: ProjectState, _context: DecisionContext): Decision {
  state.project();
  const webhook = webhookOf(state, input.webhook_id);
  const change: DecidedChange = { kind: 'webhook', change_type: 'delete', id: webhook.id, name: webhookName(webhook.webhook_url), original_values: { ...webhook } };
  return { type: 'webhook_delete', data: { changes: [change], primary_resources: [webhookRef(webhook)] }, subject: { kind: 'webhook', id: webhook.id } };
}

export function webhookOf(state: ProjectState, id: number): WebhookDoc {
  const webhook = state.webhooks.get(id);
  if (!webhook) throw unfound();
  return webhook;
}

/** Why `url` cannot be a webhook's address (not absolute, not http or https, unparsable), or null. */
export function webhookUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "'webhook_url' must be an absolute http or https URL.";
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return "'webhook_url' must be an absolute http or https URL.";
  if (parsed.hostname === '') return "'webhook_url' must name a host.";
  return null;
}

/**
 * How activities show a webhook: its address's origin only (`https://hooks.example.com`). The path of a
 * receiver's URL is often its credential (chat services' incoming hooks), and activities are read by
 * every reader of the project.
 */
export function webhookName(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

function checkedUrl(url: string): string {
  const problem = webhookUrlProblem(url);
  if (problem) throw invalidField('webhook_url', problem);
  return url;
}

function checkedVersion(version: string): WebhookVersion {
  if (!(WEBHOOK_VERSIONS as readonly string[]).includes(version)) {
    throw invalidField('webhook_version', `'webhook_version' must be one of ${WEBHOOK_VERSIONS.join(', ')}: Storyline delivers v5 activity.`);
  }
  return version as WebhookVersion;
}

function webhookRef(webhook: WebhookDoc): ResourceRef {
  return { kind: 'webhook', id: webhook.id, name: webhookName(webhook.webhook_url) };
}
