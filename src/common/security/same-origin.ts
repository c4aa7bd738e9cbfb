import type { Request } from 'express';

/**
 * CSRF protection for cookie-authenticated writes: a browser sends `Origin` on every cross-site
 * POST (and `Sec-Fetch-Site` in current browsers), so a write whose origin is neither the
 * service's own (PUBLIC_BASE_URL) nor a listed one (CORS_ORIGINS) is refused. A request without
 * either header is not from a browser page (native clients, curl) and carries no ambient
 * cookie risk when it authenticates with a header instead.
 */
export function isTrustedOrigin(request: Request, publicBaseUrl: string, allowed: readonly string[]): boolean {
  const origin = request.headers.origin;
  if (typeof origin === 'string') {
    if (origin === 'null') return false;
    const normalized = origin.replace(/\/+$/, '').toLowerCase();
    if (normalized === new URL(publicBaseUrl).origin.toLowerCase()) return true;
    if (allowed.includes('*')) return false;
    return allowed.some((entry) => entry.replace(/\/+$/, '').toLowerCase() === normalized);
  }
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}
