// What the rest of the system does with secrets, over any credential store: set and check passwords,
// issue, look up and rotate API tokens. Tokens and passwords pass through here and are never logged.
import { deriveApiToken, tokenDigest } from './api-token.js';
import { DEFAULT_SCRYPT_COST, hashPassword, verifyPassword, type ScryptCost } from './password-hash.js';
import type { CredentialStore, PersonCredentials, PersonSecretsPort } from '../../ports/credentials.js';

/** Token digests remembered per process (every API request looks its token up). */
const REMEMBERED_TOKENS = 50_000;

export class PersonSecrets implements PersonSecretsPort {
  private secret: Promise<Buffer> | undefined;
  /**
   * Digest -> person for tokens seen valid. Tokens change only through rotateToken, which forgets the
   * person's entry; no other process rotates tokens (the CLI only adds people), so entries stay true.
   */
  private readonly knownTokens = new Map<string, number>();

  constructor(
    private readonly store: CredentialStore,
    private readonly scryptCost: ScryptCost = DEFAULT_SCRYPT_COST,
  ) {}

  /** Gives the person a token (generation 1) and, when given, a password; keeps an existing token. */
  async enrol(personId: number, password: string | null): Promise<string> {
    const existing = await this.store.get(personId);
    const generation = existing?.tokenGeneration ?? 1;
    const token = await this.tokenFor(personId, generation);
    const passwordHash = password === null ? (existing?.passwordHash ?? null) : await hashPassword(password, this.scryptCost);
    await this.store.put({ personId, passwordHash, tokenGeneration: generation, tokenDigest: tokenDigest(token) });
    return token;
  }

  async setPassword(personId: number, password: string): Promise<void> {
    const credentials = await this.credentialsOf(personId);
    await this.store.put({ ...credentials, passwordHash: await hashPassword(password, this.scryptCost) });
  }

  async checkPassword(personId: number, password: string): Promise<boolean> {
    const credentials = await this.store.get(personId);
    if (!credentials?.passwordHash) return false;
    return verifyPassword(password, credentials.passwordHash);
  }

  /** The person's current API token, or null when they have none. */
  async apiToken(personId: number): Promise<string | null> {
    const credentials = await this.store.get(personId);
    return credentials ? this.tokenFor(personId, credentials.tokenGeneration) : null;
  }

  /** Revokes the current token and returns the new one. */
  async rotateToken(personId: number): Promise<string> {
    const credentials = await this.credentialsOf(personId);
    const generation = credentials.tokenGeneration + 1;
    const token = await this.tokenFor(personId, generation);
    this.knownTokens.delete(credentials.tokenDigest);
    await this.store.put({ ...credentials, tokenGeneration: generation, tokenDigest: tokenDigest(token) });
    return token;
  }

  /** The person a token belongs to, or null for an unknown or revoked token. */
  async personIdForToken(token: string): Promise<number | null> {
    const digest = tokenDigest(token);
    const known = this.knownTokens.get(digest);
    if (known !== undefined) return known;
    const credentials = await this.store.findByTokenDigest(digest);
    if (!credentials) return null;
    if (this.knownTokens.size >= REMEMBERED_TOKENS) this.knownTokens.delete(this.knownTokens.keys().next().value!);
    this.knownTokens.set(digest, credentials.personId);
    return credentials.personId;
  }

  private async credentialsOf(personId: number): Promise<PersonCredentials> {
    const credentials = await this.store.get(personId);
    if (credentials) return credentials;
    const token = await this.tokenFor(personId, 1);
    return { personId, passwordHash: null, tokenGeneration: 1, tokenDigest: tokenDigest(token) };
  }

  private async tokenFor(personId: number, generation: number): Promise<string> {
    this.secret ??= this.store.serverSecret();
    return deriveApiToken(await this.secret, personId, generation);
  }
}
