import { ErrorCode } from './error-code';

/**
 * A refused request. It is answered with HTTP 200 and the envelope `{code, msg, data: null}`;
 * `msg` must never contain a secret, a token or a stack trace.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    msg: string,
  ) {
    super(msg);
    this.name = 'AppError';
  }

  static invalid(field: string, problem: string): AppError {
    return new AppError(ErrorCode.INVALID_PARAMETER, `${field}: ${problem}`);
  }
}

/** A failed room-callback check: answered with HTTP 403 and exactly `{"code":1}` (spec 4.5). */
export class CallbackRejectedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'CallbackRejectedError';
  }
}
