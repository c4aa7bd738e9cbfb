import type { Request, Response } from 'express';
import { isSessionIdShaped } from '../common/security/session-ids';

/**
 * The console's session cookie. Path=/ because a cookie names one path and the console needs it
 * on both /admin (UI) and /app/admin (API); the name is the console's own, so it never meets the
 * host application's PHPSID, and the SDK endpoints never read it. SameSite=Strict: the console
 * is never entered from another site with a state-changing request.
 */
export const ADMIN_COOKIE = 'ADMIN_SID';
/** Header every console write must carry (with a trusted Origin): a cross-site form cannot send it. */
export const ADMIN_CSRF_HEADER = 'x-admin-csrf';

/** The session ID from the Cookie header; `undefined` when there is none, `null` when it is malformed. */
export function sessionCookieOf(request: Request): string | null | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  let found: string | null | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== ADMIN_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    // Two cookies of the name (one planted on a sibling path) are refused rather than guessed between.
    if (found !== undefined) return null;
    found = isSessionIdShaped(value) ? value : null;
  }
  return found;
}

export function setSessionCookie(response: Response, sessionId: string, maxAgeSeconds: number, secure: boolean): void {
  response.setHeader(
    'Set-Cookie',
    `${ADMIN_COOKIE}=${sessionId}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
  );
}

export function clearSessionCookie(response: Response, secure: boolean): void {
  response.setHeader(
    'Set-Cookie',
    `${ADMIN_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
  );
}
