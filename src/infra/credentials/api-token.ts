// API tokens are derived, never stored: HMAC-SHA256(server secret, `${personId}:${generation}`), first 32
// hex characters. The credential store keeps only the SHA-256 digest of the current token, to find its
// person; raising the generation revokes the old token.
import { createHash, createHmac } from 'node:crypto';

export const API_TOKEN_PATTERN = /^[0-9a-f]{32}$/;

export function deriveApiToken(secret: Buffer, personId: number, generation: number): string {
  return createHmac('sha256', secret).update(`${personId}:${generation}`).digest('hex').slice(0, 32);
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
