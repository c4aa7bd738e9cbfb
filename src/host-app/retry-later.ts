import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { Observable, catchError, throwError } from 'rxjs';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import type { RateLimitRule } from '../config/messaging-config';
import type { RateLimiter } from '../common/rate-limit/rate-limiter';

/** HTTP 429 with 1005 (spec 7: the SMS rate limit), answered with `Retry-After`. */
export class RetryLaterError extends AppError {
  constructor(
    msg: string,
    readonly retryAfterSeconds: number,
  ) {
    super(ErrorCode.TOO_FAST, msg, 429);
  }
}

/**
 * Counts one hit of `key` under `rule`; past the limit, throws a RetryLaterError whose
 * Retry-After is the end of the current window. Both limiters (memory and Redis) use fixed
 * windows aligned on multiples of the window length, so the end is known without asking.
 */
export async function hitOrRetryLater(
  limiter: RateLimiter,
  key: string,
  rule: RateLimitRule,
  now: number,
  msg: string,
): Promise<void> {
  if (await limiter.hit(key, rule)) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((rule.windowMs - (now % rule.windowMs)) / 1000));
  throw new RetryLaterError(msg, retryAfterSeconds);
}

/** Adds `Retry-After` to the reply of a RetryLaterError (the exception filter writes the envelope). */
@Injectable()
export class RetryAfterInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (error instanceof RetryLaterError)
          context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(error.retryAfterSeconds));
        return throwError(() => error);
      }),
    );
  }
}
