import { ErrorCode } from './error-code';

/**
 * A refused request. It is answered with the envelope `{code, msg, data: null}`, with HTTP 200
 * for business errors (spec 7) unless `status` says otherwise; `msg` must never contain a
 * secret, a token or a stack trace.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    msg: string,
    readonly status = 200,
  ) {
    super(msg);
    this.name = 'AppError';
  }

  /** A dependency did not answer in time: HTTP 503 with code 1500, worth retrying later. */
  static unavailable(what: string): AppError {
    return new AppError(ErrorCode.INTERNAL, `service temporarily unavailable: ${what}; retry later`, 503);
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
