// The secret of an invitation link: 32 random bytes, base64url (43 characters), too long to guess; only
// its SHA-256 digest (the one `tokenDigest` computes) is stored, so the credentials file yields no link.
import { randomBytes } from 'node:crypto';

export const INVITATION_SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newInvitationSecret(): string {
  return randomBytes(32).toString('base64url');
}
