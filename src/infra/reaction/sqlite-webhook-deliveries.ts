// Webhook delivery progress in a table of `reactions.sqlite` (its own connection), beside the reactions'
// checkpoints and with the same durability: WAL with `synchronous = NORMAL`, so a crash of the process
// loses nothing committed and a power loss may take back the last saves, which only delivers those
// versions again (deliveries are at least once; receivers drop duplicates by X-Storyline-Delivery).
import Database from 'better-sqlite3';
import type { WebhookDeliveryState, WebhookDeliveryStore } from '../../ports/webhook-deliveries.js';

interface Row {
  webhook_id: number;
  project_id: number;
  delivered_version: number;
  registered_at: number;
  failures: number;
  failing_since: number | null;
  paused: number;
  last_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
}

export function openSqliteWebhookDeliveries(path: string): WebhookDeliveryStore {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 10000');
  db.exec(`CREATE TABLE IF NOT EXISTS webhook_deliveries (
    webhook_id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL, delivered_version INTEGER NOT NULL,
    registered_at INTEGER NOT NULL, failures INTEGER NOT NULL, failing_since INTEGER, paused INTEGER NOT NULL,
    last_attempt_at INTEGER, last_status INTEGER, last_error TEXT)`);
  const all = db.prepare<[], Row>('SELECT * FROM webhook_deliveries ORDER BY webhook_id');
  const upsert = db.prepare(`INSERT INTO webhook_deliveries VALUES (@webhook_id, @project_id, @delivered_version, @registered_at,
      @failures, @failing_since, @paused, @last_attempt_at, @last_status, @last_error)
    ON CONFLICT (webhook_id) DO UPDATE SET project_id = excluded.project_id, delivered_version = excluded.delivered_version,
      registered_at = excluded.registered_at, failures = excluded.failures, failing_since = excluded.failing_since,
      paused = excluded.paused, last_attempt_at = excluded.last_attempt_at, last_status = excluded.last_status,
      last_error = excluded.last_error`);
  const remove = db.prepare<[number]>('DELETE FROM webhook_deliveries WHERE webhook_id = ?');
  const saveAll = db.transaction((rows: Row[]) => {
    for (const row of rows) upsert.run(row);
  });
  return {
    async all() {
      return all.all().map(fromRow);
    },
    async save(states) {
      saveAll(states.map(toRow));
    },
    async remove(webhookId) {
      remove.run(webhookId);
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

function fromRow(row: Row): WebhookDeliveryState {
  return {
    webhookId: row.webhook_id,
    projectId: row.project_id,
    deliveredVersion: row.delivered_version,
    registeredAt: row.registered_at,
    failures: row.failures,
    failingSince: row.failing_since,
    paused: row.paused === 1,
    lastAttemptAt: row.last_attempt_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
  };
}

function toRow(state: WebhookDeliveryState): Row {
  return {
    webhook_id: state.webhookId,
    project_id: state.projectId,
    delivered_version: state.deliveredVersion,
    registered_at: state.registeredAt,
    failures: state.failures,
    failing_since: state.failingSince,
    paused: state.paused ? 1 : 0,
    last_attempt_at: state.lastAttemptAt,
    last_status: state.lastStatus,
    last_error: state.lastError,
  };
}
