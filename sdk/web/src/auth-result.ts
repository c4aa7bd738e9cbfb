import { ErrorCode, ErrorKind, ImError } from './errors.js';
import { ImAuth, checkAuth } from './jwt.js';

/**
 * What the host's auth provider returned, as the SDK's credential. Two forms are accepted:
 * - the `/app/sdk/token` reply envelope `{code, msg, data}` forwarded unchanged: `code` 0 with a
 *   complete `data` is the result; any other `code` is the host's (or the service's) refusal and
 *   becomes an `ImError` with that `code` and `msg`, whatever `data` holds (spec 4.1 rule 3);
 * - the envelope's `data` alone (`user`, `token`, `expire_at`).
 *
 * Either way the JWT's `user_id` and `exp` must equal the returned object's (spec 5.2). Error
 * messages never carry the token.
 */
export function readAuthResult(result: unknown): ImAuth {
  if (!isEnvelope(result)) return checkAuth(result);
  const { code, msg } = result;
  if (typeof code !== 'number' || !Number.isInteger(code))
    throw new ImError('auth', 0, "the auth provider's result is unusable: the envelope's code is not an integer");
  if (code === 0) return checkAuth(result.data);
  const message = typeof msg === 'string' && msg !== '' ? msg : `the host answered code ${code} without a message`;
  throw new ImError(refusalKind(code), code, message);
}

interface EnvelopeLike {
  code: unknown;
  msg?: unknown;
  data?: unknown;
}

/** A token reply's `data` never has a `code`: an object with one is the whole envelope. */
function isEnvelope(result: unknown): result is EnvelopeLike {
  return result !== null && typeof result === 'object' && 'code' in result;
}

/**
 * A refusal means no credential: return to the host login (`auth`), unless the code says why
 * in a way the app handles otherwise (a disabled user or SDK, too fast, a fault to retry later).
 */
function refusalKind(code: number): ErrorKind {
  if (code === ErrorCode.SDK_DISABLED || code === ErrorCode.USER_DISABLED) return 'disabled';
  if (code === ErrorCode.TOO_FAST) return 'rate_limited';
  if (code === ErrorCode.INTERNAL) return 'server';
  return 'auth';
}
