import { ImError } from './errors.js';

/** The SDK's credential: the `data` of the `/app/sdk/token` reply (spec 2.4, 4.1 rule 2). */
export interface ImAuth {
  user: ImUser;
  token: string;
  /** Unix seconds. */
  expire_at: number;
}

export interface ImUser {
  user_id: string;
  username?: string;
  nickname: string;
  avatar?: string;
  signature?: string;
  [field: string]: unknown;
}

function base64UrlDecode(part: string): string {
  const base64 = part
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(part.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/**
 * Spec 5.2: before an auth result is used, the JWT's `user_id` and `exp` must equal the
 * returned object's. The SDK never verifies the signature (the server does) and never signs.
 */
export function checkAuth(auth: unknown): ImAuth {
  const invalid = (why: string) => new ImError('auth', 0, `the auth provider's result is unusable: ${why}`);
  if (!auth || typeof auth !== 'object') throw invalid('not an object');
  const { user, token, expire_at: expireAt } = auth as Partial<ImAuth>;
  if (typeof token !== 'string' || token === '') throw invalid('no token');
  if (!user || typeof user.user_id !== 'string' || user.user_id === '') throw invalid('no user.user_id');
  if (typeof expireAt !== 'number' || !Number.isInteger(expireAt)) throw invalid('expire_at is not Unix seconds');
  const parts = token.split('.');
  if (parts.length !== 3) throw invalid('the token is not a JWT');
  let claims: { user_id?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(base64UrlDecode(parts[1])) as typeof claims;
  } catch {
    throw invalid('the token payload is not JSON');
  }
  if (claims.user_id !== user.user_id) throw invalid('the token belongs to another user than user.user_id');
  if (claims.exp !== expireAt) throw invalid('the token expiry differs from expire_at');
  return { user, token, expire_at: expireAt };
}
