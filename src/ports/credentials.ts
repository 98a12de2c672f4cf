// Secrets live beside the event log, never in it: password hashes and the material API tokens are
// derived from. An exported or replayed log carries no secret.

export interface PersonCredentials {
  personId: number;
  /** scrypt hash in the form `scrypt$N$r$p$salt$hash` (base64 parts). */
  passwordHash: string | null;
  /** Incremented to revoke a token: the token is derived from (server secret, person id, generation, salt). */
  tokenGeneration: number;
  /**
   * Random per person, replaced on every reset, so a leaked credentials file yields no future token;
   * '' for tokens issued before salts existed (they stay valid until reset).
   */
  tokenSalt: string;
  /** SHA-256 (hex) of the current API token, for lookup by token. */
  tokenDigest: string;
}

/** A person's one-time invitation (at most one per person: a new one replaces the old). */
export interface StoredInvitation {
  personId: number;
  /** SHA-256 (hex) of the secret in the invitation link; the secret itself is never stored. */
  secretDigest: string;
  /** The project the person was invited to, and who invited them. */
  projectId: number;
  inviterId: number;
  /** ms since the epoch; past it the invitation no longer counts. */
  expiresAt: number;
}

export interface CredentialStore {
  get(personId: number): Promise<PersonCredentials | null>;
  findByTokenDigest(digest: string): Promise<PersonCredentials | null>;
  put(credentials: PersonCredentials): Promise<void>;
  /** Stores the person's invitation, replacing the one they had (its link stops working). */
  putInvitation(invitation: StoredInvitation): Promise<void>;
  invitationByDigest(secretDigest: string): Promise<StoredInvitation | null>;
  /**
   * In one write: removes the invitation with this digest and stores `credentials` (of its person).
   * False, and nothing written, when no invitation has the digest (used or replaced meanwhile).
   */
  consumeInvitation(secretDigest: string, credentials: PersonCredentials): Promise<boolean>;
  /**
   * A number that changes whenever another process (the CLI resetting a token) changed the stored
   * credentials, seen at the latest from the next event-loop turn after that commit; what a process
   * remembers about tokens is forgotten when it changes.
   */
  revision(): Promise<number>;
  /** The server secret tokens are derived from; created on first use. */
  serverSecret(): Promise<Buffer>;
  /**
   * A webhook's signing secret, kept under the random key its webhook names (`secret_ref`, the only
   * trace of it in the log); null when none is kept there (never set, removed, or an imported log).
   */
  webhookSecret(ref: string): Promise<string | null>;
  putWebhookSecret(ref: string, secret: string): Promise<void>;
  deleteWebhookSecret(ref: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * What the layers inside the composition root do with secrets (implemented by
 * infra/credentials/person-secrets.ts over a CredentialStore): tokens and passwords pass through here.
 */
export interface PersonSecretsPort {
  /** Gives the person a token (kept when they have one) and, when given, a password; returns the token. */
  enrol(personId: number, password: string | null): Promise<string>;
  checkPassword(personId: number | null, password: string): Promise<boolean>;
  /** The person's current API token, null when they have no credentials. */
  apiToken(personId: number): Promise<string | null>;
  personIdForToken(token: string): Promise<number | null>;
  /** Revokes the current token at once and returns a new one (`storyline person reset-token`). */
  rotateToken(personId: number): Promise<string>;
  /** Whether the person can sign in with a password. */
  hasPassword(personId: number): Promise<boolean>;
  /** Sets (or replaces) the person's password; their token is kept. */
  setPassword(personId: number, password: string): Promise<void>;
  /** A new one-time invitation for the person, replacing theirs; returns the secret of its link. */
  invite(invitation: Omit<StoredInvitation, 'secretDigest'>): Promise<string>;
  /** What a secret invites to: null when it is malformed, unknown, used, replaced or expired at `now`. */
  invitation(secret: string, now: number): Promise<StoredInvitation | null>;
  /**
   * Sets the invited person's password and uses up the secret, in one write; false (nothing written)
   * when the secret no longer invites at `now`.
   */
  acceptInvitation(secret: string, password: string, now: number): Promise<boolean>;
}
