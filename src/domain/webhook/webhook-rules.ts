// A project's activity webhooks (Tracker's `webhook` resource): create, change, remove. Each is a write
// like any other: one event, one activity, one version. What a webhook holds: `webhook_url` (an absolute
// http or https URL), `webhook_version` (`v5`, the only one delivered) and, when it signs its deliveries,
// `secret_ref`: the key its secret is kept under in the credentials store. The secret itself never
// enters an event; a new secret is a new ref (the API stores the secret under it before deciding).
// Whether the URL's host is a public address is checked by the API before deciding (it needs DNS).
// What its deciders (create-webhook.ts, update-webhook.ts, delete-webhook.ts) share.
import { invalidField } from '../errors.js';
import type { ResourceRef } from '../events.js';
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

export function checkedUrl(url: string): string {
  const problem = webhookUrlProblem(url);
  if (problem) throw invalidField('webhook_url', problem);
  return url;
}

export function checkedVersion(version: string): WebhookVersion {
  if (!(WEBHOOK_VERSIONS as readonly string[]).includes(version)) {
    throw invalidField('webhook_version', `'webhook_version' must be one of ${WEBHOOK_VERSIONS.join(', ')}: Storyline delivers v5 activity.`);
  }
  return version as WebhookVersion;
}

export function webhookRef(webhook: WebhookDoc): ResourceRef {
  return { kind: 'webhook', id: webhook.id, name: webhookName(webhook.webhook_url) };
}
