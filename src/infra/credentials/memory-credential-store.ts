// An in-memory credential store, for tests and throw-away servers.
import { randomBytes } from 'node:crypto';
import type { CredentialStore, PersonCredentials, StoredInvitation } from '../../ports/credentials.js';

export class MemoryCredentialStore implements CredentialStore {
  private readonly byPerson = new Map<number, PersonCredentials>();
  private readonly invitations = new Map<number, StoredInvitation>();
  private readonly secret = randomBytes(32);

  async get(personId: number): Promise<PersonCredentials | null> {
    const found = this.byPerson.get(personId);
    return found ? { ...found } : null;
  }

  async findByTokenDigest(digest: string): Promise<PersonCredentials | null> {
    for (const credentials of this.byPerson.values()) if (credentials.tokenDigest === digest) return { ...credentials };
    return null;
  }

  async put(credentials: PersonCredentials): Promise<void> {
    this.byPerson.set(credentials.personId, { ...credentials });
  }

  async putInvitation(invitation: StoredInvitation): Promise<void> {
    this.invitations.set(invitation.personId, { ...invitation });
  }

  async invitationByDigest(secretDigest: string): Promise<StoredInvitation | null> {
    for (const invitation of this.invitations.values()) if (invitation.secretDigest === secretDigest) return { ...invitation };
    return null;
  }

  async consumeInvitation(secretDigest: string, credentials: PersonCredentials): Promise<boolean> {
    const invitation = await this.invitationByDigest(secretDigest);
    if (!invitation) return false;
    this.invitations.delete(invitation.personId);
    this.byPerson.set(credentials.personId, { ...credentials });
    return true;
  }

  async revision(): Promise<number> {
    return 0; // one process only: nobody else changes it
  }

  async serverSecret(): Promise<Buffer> {
    return Buffer.from(this.secret);
  }

  private readonly webhookSecrets = new Map<string, string>();

  async webhookSecret(ref: string): Promise<string | null> {
    return this.webhookSecrets.get(ref) ?? null;
  }

  async putWebhookSecret(ref: string, secret: string): Promise<void> {
    this.webhookSecrets.set(ref, secret);
  }

  async deleteWebhookSecret(ref: string): Promise<void> {
    this.webhookSecrets.delete(ref);
  }

  async close(): Promise<void> {}
}
