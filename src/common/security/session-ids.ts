import { createHash, randomBytes } from 'node:crypto';

/**
 * Session identifiers for cookie sessions (the bundled host application, the admin console):
 * 32 random bytes, base64url. Only their SHA-256 is stored, so a leaked table or backup holds no
 * usable session.
 */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function sessionIdHash(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

/** The shape of a session ID, checked before any lookup (43 base64url characters). */
export function isSessionIdShaped(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}
