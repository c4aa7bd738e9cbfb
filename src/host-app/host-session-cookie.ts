import type { Request, Response } from 'express';
import { isSessionIdShaped } from '../common/security/session-ids';

/**
 * The host application's session: cookie `PHPSID` (HttpOnly, SameSite=Lax, Secure in
 * production, Path=/app/auth) for browsers, or the same value in a `PHPSID` request header for
 * native clients (spec 5). Lax, not Strict: a user following a link to the host's page arrives
 * logged in, and Lax still withholds the cookie from cross-site POSTs.
 */
export const HOST_COOKIE = 'PHPSID';
export const HOST_COOKIE_PATH = '/app/auth';

export type Presented = { id: string | null; via: 'cookie' | 'header' } | undefined;

/**
 * The session ID the request presents: the header when one is sent (a native client; it wins
 * over any cookie), else the cookie. `undefined` when there is neither, `id` null when malformed
 * (or two cookies of the name, one planted on a sibling path: refused rather than guessed between).
 */
export function presentedSession(request: Request): Presented {
  const header = request.headers[HOST_COOKIE.toLowerCase()];
  if (header !== undefined) {
    const value = Array.isArray(header) ? null : header.trim();
    return { id: isSessionIdShaped(value) ? value : null, via: 'header' };
  }
  const cookies = request.headers.cookie;
  if (typeof cookies !== 'string') return undefined;
  let found: Presented;
  for (const part of cookies.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== HOST_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (found !== undefined) return { id: null, via: 'cookie' };
    found = { id: isSessionIdShaped(value) ? value : null, via: 'cookie' };
  }
  return found;
}

export function setSessionCookie(response: Response, sessionId: string, maxAgeSeconds: number, secure: boolean): void {
  response.setHeader(
    'Set-Cookie',
    `${HOST_COOKIE}=${sessionId}; Path=${HOST_COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  );
}

export function clearSessionCookie(response: Response, secure: boolean): void {
  response.setHeader(
    'Set-Cookie',
    `${HOST_COOKIE}=; Path=${HOST_COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  );
}
