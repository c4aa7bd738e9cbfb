// Errors by business code (spec section 7). Apps branch on `code` or `kind`, never on `message`.

/** The service's business codes the SDK tells apart. */
export const ErrorCode = {
  NETWORK: 0,
  SDK_DISABLED: 1002,
  USER_DISABLED: 1003,
  INVALID_PARAMETER: 1004,
  TOO_FAST: 1005,
  TOKEN_MISSING: 1101,
  TOKEN_INVALID: 1102,
  TOKEN_EXPIRED: 1103,
  CONVERSATION_INACCESSIBLE: 1201,
  CAPABILITY_CLOSED: 1202,
  SEND_FORBIDDEN: 1203,
  PROFILE_INACCESSIBLE: 1204,
  REQUEST_INACCESSIBLE: 1205,
  ALREADY_FRIENDS: 1206,
  MESSAGE_ABSENT: 1207,
  RECALL_FORBIDDEN: 1208,
  GROUP_OPERATION_FORBIDDEN: 1209,
  INVITATION_INVALID: 1210,
  RELATIONSHIP_RESTRICTED: 1211,
  GROUP_DISABLED: 1218,
  INTERNAL: 1500,
} as const;

/**
 * What an error means for the app:
 * - `network`: no reply (offline, timeout), or the auth provider's fetch could not reach the host
 *   backend (a TypeError); keep what is shown and let the user retry.
 * - `auth`: no usable credential: it could not be renewed, the auth provider's result was unusable,
 *   the provider threw (code 0, the thrown error as `cause`), or the provider's envelope carried a
 *   refusal (then `code` and `message` are the host's `code` and `msg`); return to the host login.
 * - `identity_changed`: the auth provider answered another user; the session stopped.
 * - `stale`: the reply belongs to an earlier login (after logout or a switch) and was dropped.
 * - `disabled`: the SDK (1002) or the user (1003) is disabled, in a reply or in the auth provider's envelope.
 * - `rate_limited`: 1005 after the SDK's bounded retries.
 * - `rejected`: a business refusal (1004, 12xx); show the server's message.
 * - `server`: 1500 or an HTTP 5xx; retry later.
 * - `aborted`: the app cancelled the request (an upload's `signal`).
 * - `invalid`: the SDK was called wrongly (e.g. `retry` of a message that did not fail); nothing was sent.
 */
export type ErrorKind =
  | 'network'
  | 'auth'
  | 'identity_changed'
  | 'stale'
  | 'disabled'
  | 'rate_limited'
  | 'rejected'
  | 'server'
  | 'aborted'
  | 'invalid';

export class ImError extends Error {
  override readonly name = 'ImError';
  /** What failed underneath, e.g. the error the auth provider threw. */
  override readonly cause?: unknown;

  constructor(
    readonly kind: ErrorKind,
    /** The service's business code; 0 when the service did not answer. */
    readonly code: number,
    message: string,
    /** HTTP status of the reply; 0 when there was none. */
    readonly httpStatus = 0,
    options: { cause?: unknown } = {},
  ) {
    super(message);
    // Set here rather than through Error's options, which older browsers ignore.
    if ('cause' in options) this.cause = options.cause;
  }
}

export const AUTH_CODES: readonly number[] = [
  ErrorCode.TOKEN_MISSING,
  ErrorCode.TOKEN_INVALID,
  ErrorCode.TOKEN_EXPIRED,
];

/** The kind of a reply with a non-zero code. */
export function kindOf(code: number, httpStatus: number): ErrorKind {
  if (AUTH_CODES.includes(code)) return 'auth';
  if (code === ErrorCode.SDK_DISABLED || code === ErrorCode.USER_DISABLED) return 'disabled';
  if (code === ErrorCode.TOO_FAST) return 'rate_limited';
  if (code === ErrorCode.INTERNAL || httpStatus >= 500) return 'server';
  return 'rejected';
}
