import type { CorsOptions, CorsOptionsDelegate } from '@nestjs/common/interfaces/external/cors-options.interface';
import type { Request } from 'express';
import { ROOM_CALLBACK_PATH } from './paths';

/**
 * Browsers of the listed origins may call the IM-token endpoints (the Web SDK runs on the
 * host's own pages). The host-secret endpoints and the provider callback are never offered to
 * a browser: the SDK secret must not be in browser code, and a refused preflight says so early.
 * Bearer tokens need no credentials mode, so cookies are never allowed.
 */
const SERVER_ONLY = new Set(['/app/sdk/token', '/app/sdk/users/upsert', ROOM_CALLBACK_PATH]);

const OPEN: CorsOptions = {
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
  exposedHeaders: ['X-Request-Id', 'Retry-After'],
  credentials: false,
  // Browsers cap it (Chromium at 2 hours); one preflight per endpoint and page session.
  maxAge: 7200,
};

export function corsFor(origins: string[]): CorsOptionsDelegate<Request> | null {
  if (origins.length === 0) return null;
  const allowed: CorsOptions = { ...OPEN, origin: origins[0] === '*' ? '*' : origins };
  const closed: CorsOptions = { origin: false };
  return (request, callback) => {
    const path = request.path.toLowerCase().replace(/\/+$/, '');
    callback(null, path.startsWith('/app/sdk/') && !SERVER_ONLY.has(path) ? allowed : closed);
  };
}
