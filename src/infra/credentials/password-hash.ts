// Password hashing with scrypt (node:crypto): a random salt per hash, parameters kept in the hash string
// (`scrypt$N$r$p$salt$hash`, base64 parts) so they can be raised later without breaking old hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** About 50 ms on one core: slow for guessing, fine for a login. */
export const DEFAULT_SCRYPT_COST: ScryptCost = { N: 16384, r: 8, p: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_SCRYPT_COST): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, KEY_LENGTH, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** True when the password matches; false for a wrong password or a malformed hash. Constant-time compare. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (!N || !r || !p) return false;
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  if (expected.length === 0) return false;
  if (N > 2 ** 20 || r > 32 || p > 16) return false; // refuse hashes that would cost a denial of service
  try {
    const actual = await derive(password, salt, expected.length, { N, r, p });
    return timingSafeEqual(actual, expected);
  } catch {
    return false; // parameters scrypt refuses (N not a power of two...)
  }
}

function derive(password: string, salt: Buffer, length: number, cost: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
