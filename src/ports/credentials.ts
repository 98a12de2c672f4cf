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

export interface CredentialStore {
  get(personId: number): Promise<PersonCredentials | null>;
  findByTokenDigest(digest: string): Promise<PersonCredentials | null>;
  put(credentials: PersonCredentials): Promise<void>;
  /**
   * A number that changes whenever another process (the CLI resetting a token) changed the stored
   * credentials, seen at the latest from the next event-loop turn after that commit; what a process
   * remembers about tokens is forgotten when it changes.
   */
  revision(): Promise<number>;
  /** The server secret tokens are derived from; created on first use. */
  serverSecret(): Promise<Buffer>;
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
}
