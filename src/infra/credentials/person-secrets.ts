// What the rest of the system does with secrets, over any credential store: set and check passwords,
// issue, look up and rotate API tokens, make and use up invitation secrets. Tokens, passwords and
// invitation secrets pass through here and are never logged.
import { randomBytes } from 'node:crypto';
import { deriveApiToken, newTokenSalt, tokenDigest } from './api-token.js';
import { INVITATION_SECRET_PATTERN, newInvitationSecret } from './invitation-secret.js';
import { DEFAULT_SCRYPT_COST, hashPassword, verifyPassword, type ScryptCost } from './password-hash.js';
import type { CredentialStore, PersonCredentials, PersonSecretsPort, StoredInvitation } from '../../ports/credentials.js';

/** Tokens remembered per process (every API request looks its token up). */
const REMEMBERED_TOKENS = 50_000;

export class PersonSecrets implements PersonSecretsPort {
  private secret: Promise<Buffer> | undefined;
  /**
   * Token -> person for tokens seen valid, keyed by the token itself so that a known token costs no
   * digest (the process can derive every token from the secret anyway, so remembering some adds no
   * exposure). rotateToken forgets the old token; a reset by another process (the CLI) changes the
   * store's revision, which empties the map before the first lookup of the next event-loop turn.
   */
  private readonly knownTokens = new Map<string, number>();
  /** A hash of a random password at `scryptCost`, verified when there is no real hash to verify. */
  private dummy: Promise<string> | undefined;
  private knownRevision: number | null = null;
  /** Rotations in this process: a lookup remembers what it read only if none happened meanwhile. */
  private tokensForgotten = 0;

  constructor(
    private readonly store: CredentialStore,
    private readonly scryptCost: ScryptCost = DEFAULT_SCRYPT_COST,
    /** The scrypt functions (injected by tests that count verifications). */
    private readonly verify: typeof verifyPassword = verifyPassword,
    private readonly hash: typeof hashPassword = hashPassword,
  ) {}

  /** Gives the person a token (generation 1) and, when given, a password; keeps an existing token. */
  async enrol(personId: number, password: string | null): Promise<string> {
    const existing = await this.store.get(personId);
    const generation = existing?.tokenGeneration ?? 1;
    const tokenSalt = existing?.tokenSalt ?? newTokenSalt();
    const token = await this.tokenFor(personId, generation, tokenSalt);
    const passwordHash = password === null ? (existing?.passwordHash ?? null) : await this.hash(password, this.scryptCost);
    await this.store.put({ personId, passwordHash, tokenGeneration: generation, tokenDigest: tokenDigest(token), tokenSalt });
    return token;
  }

  async setPassword(personId: number, password: string): Promise<void> {
    const credentials = await this.credentialsOf(personId);
    await this.store.put({ ...credentials, passwordHash: await this.hash(password, this.scryptCost) });
  }

  async hasPassword(personId: number): Promise<boolean> {
    return ((await this.store.get(personId))?.passwordHash ?? null) !== null;
  }

  async invite(invitation: Omit<StoredInvitation, 'secretDigest'>): Promise<string> {
    const secret = newInvitationSecret();
    await this.store.putInvitation({ ...invitation, secretDigest: tokenDigest(secret) });
    return secret;
  }

  async invitation(secret: string, now: number): Promise<StoredInvitation | null> {
    if (!INVITATION_SECRET_PATTERN.test(secret)) return null;
    const invitation = await this.store.invitationByDigest(tokenDigest(secret));
    return invitation && invitation.expiresAt > now ? invitation : null;
  }

  async acceptInvitation(secret: string, password: string, now: number): Promise<boolean> {
    const invitation = await this.invitation(secret, now);
    if (!invitation) return false;
    const credentials = await this.credentialsOf(invitation.personId);
    const passwordHash = await this.hash(password, this.scryptCost);
    return this.store.consumeInvitation(invitation.secretDigest, { ...credentials, passwordHash });
  }

  /**
   * Whether `password` is the person's. Always runs exactly one scrypt verification, against a dummy hash
   * of the same cost when there is no person (null) or the person has no password, so the answer takes
   * the same time for an unknown login, a login without password and a wrong password.
   */
  async checkPassword(personId: number | null, password: string): Promise<boolean> {
    const credentials = personId === null ? null : await this.store.get(personId);
    const hash = credentials?.passwordHash ?? null;
    const matches = await this.verify(password, hash ?? (await this.dummyHash()));
    return hash !== null && matches;
  }

  /** The person's current API token, or null when they have none. */
  async apiToken(personId: number): Promise<string | null> {
    const credentials = await this.store.get(personId);
    return credentials ? this.tokenFor(personId, credentials.tokenGeneration, credentials.tokenSalt) : null;
  }

  /** Revokes the current token and returns a new one, derived with a new random salt. */
  async rotateToken(personId: number): Promise<string> {
    const credentials = await this.credentialsOf(personId);
    const generation = credentials.tokenGeneration + 1;
    const tokenSalt = newTokenSalt();
    const token = await this.tokenFor(personId, generation, tokenSalt);
    const revoked = await this.tokenFor(personId, credentials.tokenGeneration, credentials.tokenSalt);
    await this.store.put({ ...credentials, tokenGeneration: generation, tokenDigest: tokenDigest(token), tokenSalt });
    // Forgotten once the store no longer knows it, and a lookup that read the store before cannot
    // remember it again.
    this.knownTokens.delete(revoked);
    this.tokensForgotten++;
    return token;
  }

  /** The person a token belongs to, or null for an unknown or revoked token. */
  async personIdForToken(token: string): Promise<number | null> {
    const revision = await this.store.revision();
    if (revision !== this.knownRevision) {
      this.knownTokens.clear();
      this.knownRevision = revision;
    }
    const known = this.knownTokens.get(token);
    if (known !== undefined) return known;
    const forgottenBefore = this.tokensForgotten;
    const credentials = await this.store.findByTokenDigest(tokenDigest(token));
    if (!credentials || this.tokensForgotten !== forgottenBefore) return credentials?.personId ?? null;
    if (this.knownTokens.size >= REMEMBERED_TOKENS) this.knownTokens.delete(this.knownTokens.keys().next().value!);
    this.knownTokens.set(token, credentials.personId);
    return credentials.personId;
  }

  private async credentialsOf(personId: number): Promise<PersonCredentials> {
    const credentials = await this.store.get(personId);
    if (credentials) return credentials;
    const tokenSalt = newTokenSalt();
    const token = await this.tokenFor(personId, 1, tokenSalt);
    return { personId, passwordHash: null, tokenGeneration: 1, tokenDigest: tokenDigest(token), tokenSalt };
  }

  private dummyHash(): Promise<string> {
    this.dummy ??= this.hash(randomBytes(16).toString('hex'), this.scryptCost);
    return this.dummy;
  }

  private async tokenFor(personId: number, generation: number, salt: string): Promise<string> {
    this.secret ??= this.store.serverSecret();
    return deriveApiToken(await this.secret, personId, generation, salt);
  }
}
