import type { Request, Response } from 'express';
import { isSessionIdShaped } from '../common/security/session-ids';

/**
 * The console's session cookie, set twice with the same value: on Path=/admin (the UI) and on
 * Path=/app/admin (the API), so no other route of the service (the SDK endpoints, the host
 * application) is ever sent it. SameSite=Strict: the console is never entered from another site
 * with a state-changing request.
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

const PATHS = ['/admin', '/app/admin'];
/** Versions before 0.2 set the cookie on Path=/: a browser still holding one would send two. */
const LEGACY_PATH = '/';

function cookies(value: string, maxAgeSeconds: number, secure: boolean): string[] {
  const attributes = `HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  return [
    ...PATHS.map((path) => `${ADMIN_COOKIE}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; ${attributes}`),
    `${ADMIN_COOKIE}=; Path=${LEGACY_PATH}; Max-Age=0; ${attributes}`,
  ];
}

export function setSessionCookie(response: Response, sessionId: string, maxAgeSeconds: number, secure: boolean): void {
  response.setHeader('Set-Cookie', cookies(sessionId, maxAgeSeconds, secure));
}

export function clearSessionCookie(response: Response, secure: boolean): void {
  response.setHeader('Set-Cookie', cookies('', 0, secure));
}
