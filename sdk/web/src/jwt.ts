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

const CONFLICT = Symbol('conflict');

/** A field the service names in snake_case and spec 2.4's SDK form in camelCase; both must agree. */
function oneOf(source: Record<string, unknown>, snake: string, camel: string): unknown {
  const a = source[snake];
  const b = source[camel];
  if (a !== undefined && b !== undefined && a !== b) return CONFLICT;
  return a ?? b;
}

/**
 * The user as the service returns it (`user_id`) or in spec 2.4's SDK form (`userId`), always
 * handed on as `user_id`; undefined without a usable ID.
 */
function sdkUser(value: unknown): ImUser | typeof CONFLICT | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const fields = value as Record<string, unknown>;
  const userId = oneOf(fields, 'user_id', 'userId');
  if (userId === CONFLICT) return CONFLICT;
  if (typeof userId !== 'string' || userId === '') return undefined;
  const { userId: _camel, ...rest } = fields;
  return { ...rest, user_id: userId } as ImUser;
}

/**
 * Spec 5.2: before an auth result is used, the JWT's `user_id` and `exp` must equal the
 * returned object's. The SDK never verifies the signature (the server does) and never signs.
 */
export function checkAuth(auth: unknown): ImAuth {
  const invalid = (why: string) => new ImError('auth', 0, `the auth provider's result is unusable: ${why}`);
  if (!auth || typeof auth !== 'object') throw invalid('not an object');
  const { user: given, token } = auth as { user?: unknown; token?: unknown };
  if (typeof token !== 'string' || token === '') throw invalid('no token');
  const user = sdkUser(given);
  if (!user) throw invalid('no user.user_id');
  if (user === CONFLICT) throw invalid('user.user_id and user.userId differ');
  const expireAt = oneOf(auth as Record<string, unknown>, 'expire_at', 'expireAt');
  if (expireAt === CONFLICT) throw invalid('expire_at and expireAt differ');
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
