import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashes with Node's built-in scrypt (memory-hard, RFC 7914). The parameters are stored
 * with each hash, so raising them later keeps old hashes verifiable (and needsRehash says when to
 * re-hash at the next successful login).
 *
 * N = 2^15, r = 8, p = 1: 32 MiB of memory and roughly 50–100 ms of one core per hash on the
 * reference machine, the OWASP minimum for scrypt. The salt is 16 random bytes, the key 32 bytes.
 * Stored form: `scrypt$<log2 N>$<r>$<p>$<salt base64url>$<key base64url>`.
 */
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Node refuses scrypt above maxmem; 128·N·r bytes is what these parameters take, plus headroom. */
const maxmem = (logN: number, r: number): number => 128 * 2 ** logN * r + 8 * 1024 * 1024;

/** Passwords longer than this are refused before hashing: hashing cost must not be the caller's to choose. */
export const MAX_PASSWORD_BYTES = 1024;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { N: 2 ** logN, r, p, maxmem: maxmem(logN, r) }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, LOG_N, R, P);
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Whether `password` matches `stored`, compared in constant time. A malformed stored value never
 * matches. `stored` null (no password set, or an unknown account) still costs one derivation, so
 * that the time taken does not tell whether the account exists.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split('$') ?? [];
  const valid = parts.length === 6 && parts[0] === 'scrypt';
  const [logN, r, p] = valid ? [Number(parts[1]), Number(parts[2]), Number(parts[3])] : [LOG_N, R, P];
  if (!Number.isInteger(logN) || logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 4) return false;
  const salt = valid ? Buffer.from(parts[4], 'base64url') : randomBytes(SALT_BYTES);
  const expected = valid ? Buffer.from(parts[5], 'base64url') : randomBytes(KEY_BYTES);
  const key = await derive(password, salt, logN, r, p);
  return valid && expected.length === key.length && timingSafeEqual(expected, key);
}

/** Whether a hash was made with weaker parameters than today's. */
export function needsRehash(stored: string): boolean {
  const parts = stored.split('$');
  return parts[0] !== 'scrypt' || Number(parts[1]) < LOG_N || Number(parts[2]) < R;
}
