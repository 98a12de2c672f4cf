// API tokens are derived, never stored: HMAC-SHA256(server secret, `${personId}:${generation}:${salt}`),
// first 32 hex characters, with a random salt per person that a reset replaces (tokens issued before
// salts existed have salt '' and the message `${personId}:${generation}`). The credential store keeps
// only the SHA-256 digest of the current token, to find its person; a reset revokes the old token, and
// a leaked file (secret and salts) yields no token issued after the next reset.
import { createHash, createHmac, randomBytes } from 'node:crypto';

export const API_TOKEN_PATTERN = /^[0-9a-f]{32}$/;

export function deriveApiToken(secret: Buffer, personId: number, generation: number, salt = ''): string {
  const message = salt === '' ? `${personId}:${generation}` : `${personId}:${generation}:${salt}`;
  return createHmac('sha256', secret).update(message).digest('hex').slice(0, 32);
}

export function newTokenSalt(): string {
  return randomBytes(16).toString('hex');
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
