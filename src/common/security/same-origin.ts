import type { Request } from 'express';

/**
 * CSRF protection for cookie-authenticated writes. What it must stop is a page of another site
 * making the victim's browser send a write with the victim's cookies; a browser names the page
 * in `Origin` on every POST and sets `Host` (and `Sec-Fetch-Site`) itself, and none of these can
 * be set by page script. So a write is trusted when:
 *
 * - the browser says `Sec-Fetch-Site: same-origin`;
 * - `Origin` is the request's own scheme and host (Express's `protocol` and `host`, which read
 *   X-Forwarded-Proto/-Host only from a TRUST_PROXY peer), unless the browser marks it
 *   cross-site or same-site. A non-browser client can forge Host, but it has no victim's
 *   cookies to ride on; cookies are bound to the host the browser addressed, the one in Host.
 * - `Origin` is PUBLIC_BASE_URL's or listed in CORS_ORIGINS (not `*`), as configured.
 *
 * `Origin: null` (sandboxed frames, cross-origin redirects, file pages) is refused. A request
 * with neither `Origin` nor a cross-site `Sec-Fetch-Site` is not from a browser page (native
 * clients, curl): every current browser sends `Origin` on a POST.
 */
export function isTrustedOrigin(request: Request, publicBaseUrl: string, allowed: readonly string[]): boolean {
  const origin = request.headers.origin;
  const site = request.headers['sec-fetch-site'];
  if (origin === 'null') return false;
  if (site === 'same-origin') return true;
  if (typeof origin !== 'string') return site === undefined || site === 'none';
  const normalized = origin.replace(/\/+$/, '').toLowerCase();
  if (normalized === new URL(publicBaseUrl).origin.toLowerCase()) return true;
  if (site === undefined && normalized === ownOrigin(request)) return true;
  if (allowed.includes('*')) return false;
  return allowed.some((entry) => entry.replace(/\/+$/, '').toLowerCase() === normalized);
}

/** `scheme://host[:port]` as the client addressed this service; null without a usable Host. */
export function ownOrigin(request: Request): string | null {
  const host = request.host;
  const scheme = request.protocol.toLowerCase();
  if (!host || /[\s/\\?#@]/.test(host) || (scheme !== 'http' && scheme !== 'https')) return null;
  try {
    // URL drops a default port (":443" on https), as browsers do in Origin.
    return new URL(`${scheme}://${host}`).origin.toLowerCase();
  } catch {
    return null;
  }
}
