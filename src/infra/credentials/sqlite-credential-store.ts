// The embedded credential store: tables in a better-sqlite3 database file (its own file, or the event
// store's, given by path). Person rows hold only a password hash, a token generation and the token's
// SHA-256 digest, and each person's pending invitation by its secret's SHA-256 digest; the server secret
// is created on first use; webhook signing secrets are kept as they were set (a signature needs the
// secret itself), under the ref their webhook names.
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import type { CredentialStore, PersonCredentials, StoredInvitation } from '../../ports/credentials.js';
import { asStorageFailure } from '../storage-failure.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS person_credentials (
    person_id        INTEGER PRIMARY KEY,
    password_hash    TEXT,
    token_generation INTEGER NOT NULL,
    token_digest     TEXT NOT NULL UNIQUE,
    token_salt       TEXT NOT NULL DEFAULT ''
  );
  CREATE TABLE IF NOT EXISTS person_invitations (
    person_id     INTEGER PRIMARY KEY,
    secret_digest TEXT NOT NULL UNIQUE,
    project_id    INTEGER NOT NULL,
    inviter_id    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS server_secret (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    secret BLOB NOT NULL
  );
  CREATE TABLE IF NOT EXISTS webhook_secrets (
    ref    TEXT PRIMARY KEY,
    secret TEXT NOT NULL
  );
`;

interface InvitationRow {
  person_id: number;
  secret_digest: string;
  project_id: number;
  inviter_id: number;
  expires_at: number;
}

interface Row {
  person_id: number;
  password_hash: string | null;
  token_generation: number;
  token_digest: string;
  token_salt: string;
}

export interface SqliteCredentialStoreOptions {
  /** Database file, or ':memory:'. */
  path: string;
  busyTimeoutMs?: number;
}

export class SqliteCredentialStore implements CredentialStore {
  private readonly db: Database.Database;
  private readonly byPerson: Database.Statement<[number], Row>;
  private readonly byDigest: Database.Statement<[string], Row>;
  private readonly upsert: Database.Statement<[number, string | null, number, string, string]>;
  private readonly dataVersion: Database.Statement<[], number>;
  private readonly upsertInvitation: Database.Statement<[number, string, number, number, number]>;
  private readonly invitationOf: Database.Statement<[string], InvitationRow>;
  private readonly deleteInvitation: Database.Statement<[string]>;
  /** data_version as read in this event-loop turn (null: not read yet in this turn). */
  private revisionThisTurn: number | null = null;

  constructor(options: SqliteCredentialStoreOptions) {
    this.db = new Database(options.path);
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
    if (options.path !== ':memory:') this.db.pragma('journal_mode = WAL');
    this.db.exec(SCHEMA);
    addSaltColumnToOlderFiles(this.db);
    this.byPerson = this.db.prepare('SELECT * FROM person_credentials WHERE person_id = ?');
    this.byDigest = this.db.prepare('SELECT * FROM person_credentials WHERE token_digest = ?');
    this.upsert = this.db.prepare(`
      INSERT INTO person_credentials (person_id, password_hash, token_generation, token_digest, token_salt) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (person_id) DO UPDATE SET password_hash = excluded.password_hash,
        token_generation = excluded.token_generation, token_digest = excluded.token_digest, token_salt = excluded.token_salt`);
    // SQLite's data_version changes when another connection commits to the file: a cheap cross-process check.
    this.dataVersion = this.db.prepare<[], number>('PRAGMA data_version').pluck();
    this.upsertInvitation = this.db.prepare(`
      INSERT INTO person_invitations (person_id, secret_digest, project_id, inviter_id, expires_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (person_id) DO UPDATE SET secret_digest = excluded.secret_digest, project_id = excluded.project_id,
        inviter_id = excluded.inviter_id, expires_at = excluded.expires_at`);
    this.invitationOf = this.db.prepare('SELECT * FROM person_invitations WHERE secret_digest = ?');
    this.deleteInvitation = this.db.prepare('DELETE FROM person_invitations WHERE secret_digest = ?');
  }

  async get(personId: number): Promise<PersonCredentials | null> {
    return fromRow(this.byPerson.get(personId));
  }

  async findByTokenDigest(digest: string): Promise<PersonCredentials | null> {
    return fromRow(this.byDigest.get(digest));
  }

  async put(credentials: PersonCredentials): Promise<void> {
    try {
      this.upsert.run(credentials.personId, credentials.passwordHash, credentials.tokenGeneration, credentials.tokenDigest, credentials.tokenSalt);
    } catch (error) {
      throw asStorageFailure(error);
    }
  }

  async putInvitation(invitation: StoredInvitation): Promise<void> {
    const { personId, secretDigest, projectId, inviterId, expiresAt } = invitation;
    try {
      this.upsertInvitation.run(personId, secretDigest, projectId, inviterId, expiresAt);
    } catch (error) {
      throw asStorageFailure(error);
    }
  }

  async invitationByDigest(secretDigest: string): Promise<StoredInvitation | null> {
    const row = this.invitationOf.get(secretDigest);
    return row
      ? { personId: row.person_id, secretDigest: row.secret_digest, projectId: row.project_id, inviterId: row.inviter_id, expiresAt: row.expires_at }
      : null;
  }

  async consumeInvitation(secretDigest: string, credentials: PersonCredentials): Promise<boolean> {
    const consume = this.db.transaction(() => {
      if (this.deleteInvitation.run(secretDigest).changes === 0) return false;
      this.upsert.run(credentials.personId, credentials.passwordHash, credentials.tokenGeneration, credentials.tokenDigest, credentials.tokenSalt);
      return true;
    });
    try {
      return consume.immediate();
    } catch (error) {
      throw asStorageFailure(error);
    }
  }

  /**
   * Read once per event-loop turn: the pragma costs file-lock system calls, and every API request asks.
   * A commit by another process is seen from the next turn on; requests handled in the turn that already
   * read it are concurrent with that commit either way.
   */
  async revision(): Promise<number> {
    if (this.revisionThisTurn === null) {
      this.revisionThisTurn = this.dataVersion.get()!;
      setImmediate(() => (this.revisionThisTurn = null)).unref();
    }
    return this.revisionThisTurn;
  }

  async serverSecret(): Promise<Buffer> {
    // INSERT OR IGNORE then SELECT: two processes starting together agree on one secret.
    this.db.prepare('INSERT OR IGNORE INTO server_secret (id, secret) VALUES (1, ?)').run(randomBytes(32));
    const row = this.db.prepare('SELECT secret FROM server_secret WHERE id = 1').get() as { secret: Buffer };
    return Buffer.from(row.secret);
  }

  async webhookSecret(ref: string): Promise<string | null> {
    const row = this.db.prepare<[string], { secret: string }>('SELECT secret FROM webhook_secrets WHERE ref = ?').get(ref);
    return row?.secret ?? null;
  }

  async putWebhookSecret(ref: string, secret: string): Promise<void> {
    try {
      this.db.prepare('INSERT INTO webhook_secrets (ref, secret) VALUES (?, ?) ON CONFLICT (ref) DO UPDATE SET secret = excluded.secret').run(ref, secret);
    } catch (error) {
      throw asStorageFailure(error);
    }
  }

  async deleteWebhookSecret(ref: string): Promise<void> {
    try {
      this.db.prepare('DELETE FROM webhook_secrets WHERE ref = ?').run(ref);
    } catch (error) {
      throw asStorageFailure(error);
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

function fromRow(row: Row | undefined): PersonCredentials | null {
  if (!row) return null;
  return {
    personId: row.person_id,
    passwordHash: row.password_hash,
    tokenGeneration: row.token_generation,
    tokenDigest: row.token_digest,
    tokenSalt: row.token_salt,
  };
}

/** Credentials files from before per-person salts: their tokens keep salt '' until reset. */
function addSaltColumnToOlderFiles(db: Database.Database): void {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(person_credentials)').all();
  if (!columns.some((column) => column.name === 'token_salt')) {
    db.exec("ALTER TABLE person_credentials ADD COLUMN token_salt TEXT NOT NULL DEFAULT ''");
  }
}
