import type { CorsOptions, CorsOptionsDelegate } from '@nestjs/common/interfaces/external/cors-options.interface';
import type { Request } from 'express';
import { routeMatcher } from './guarded-routes';
import { ROOM_CALLBACK_PATH } from './paths';

const OPEN: CorsOptions = {
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
  exposedHeaders: ['X-Request-Id', 'Retry-After'],
  credentials: false,
  // Browsers cap it (Chromium at 2 hours); one preflight per endpoint and page session.
  maxAge: 7200,
};

/**
 * Browsers of the listed origins may call the IM-token endpoints (the Web SDK runs on the
 * host's own pages). The host-secret endpoints (`secretRoutes`: every route SecretGuard
 * protects, read from the controllers at boot by routesGuardedBy) and the provider callback
 * are never offered to a browser: the SDK secret must not be in browser code, and a refused
 * preflight says so early. Bearer tokens need no credentials mode, so cookies are never
 * allowed. Nothing outside /app/sdk is offered either (the console and the host application
 * are same-origin pages).
 */
export function corsFor(origins: string[], secretRoutes: readonly string[]): CorsOptionsDelegate<Request> | null {
  if (origins.length === 0) return null;
  const serverOnly = routeMatcher([...secretRoutes, ROOM_CALLBACK_PATH]);
  const allowed: CorsOptions = { ...OPEN, origin: origins[0] === '*' ? '*' : origins };
  const closed: CorsOptions = { origin: false };
  return (request, callback) => {
    const path = request.path;
    callback(null, /^\/app\/sdk\//i.test(path) && !serverOnly(path) ? allowed : closed);
  };
}
