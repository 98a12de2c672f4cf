// What webhook deliveries (reactions/webhooks.ts) need outside themselves: where each webhook's delivery
// progress is kept (adapter: infra/reaction/sqlite-webhook-deliveries.ts, a table in reactions.sqlite
// beside the reactions' checkpoints), how a delivery is sent (infra/webhooks/http-webhook-sender.ts) and
// where signing secrets are read (the credentials store).

/** One webhook's delivery progress: its checkpoint in its project's stream and its last outcome. */
export interface WebhookDeliveryState {
  webhookId: number;
  projectId: number;
  /** Every version up to this one is delivered (or has no activity): the next delivery is the one after. */
  deliveredVersion: number;
  /** Global position of the last create / update / delete of the webhook applied here (replays skip it). */
  registeredAt: number;
  /** Failed attempts in a row at the version after `deliveredVersion` (0: none). */
  failures: number;
  /** When the current run of failures began (null: not failing). */
  failingSince: number | null;
  /** Deliveries stopped after failing for the give-up period; an update of the webhook resumes them. */
  paused: boolean;
  /** The last attempt: when it ended, the HTTP status answered (null: none), why it failed (null: it did not). */
  lastAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
}

export interface WebhookDeliveryStore {
  /** Every webhook's state (one row per webhook: bounded by the webhooks, not by history). */
  all(): Promise<WebhookDeliveryState[]>;
  /** Writes the states together (one transaction). */
  save(states: readonly WebhookDeliveryState[]): Promise<void>;
  remove(webhookId: number): Promise<void>;
  close(): Promise<void>;
}

/** One delivery as sent: the URL is the webhook's, checked and resolved again by the sender. */
export interface WebhookRequest {
  url: string;
  body: string;
  headers: Readonly<Record<string, string>>;
}

/** What came back: delivered when `error` is null (a 2xx answer). */
export interface WebhookAnswer {
  status: number | null;
  error: string | null;
}

export interface WebhookSender {
  post(request: WebhookRequest): Promise<WebhookAnswer>;
  close(): void;
}

/** Signing secrets by their ref (webhook `secret_ref`). */
export interface WebhookSecrets {
  secret(ref: string): Promise<string | null>;
}
