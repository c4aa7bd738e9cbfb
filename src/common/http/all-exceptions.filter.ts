import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Inject } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger as PinoRoot } from 'pino';
import { isDatabaseUnavailable } from '../../database/db-errors';
import { MetricsService } from '../../metrics/metrics.service';
import { AppError, CallbackRejectedError } from '../app-error';
import { failure } from '../envelope';
import { ErrorCode } from '../error-code';
import { ROOT_LOGGER } from '../logging/root-logger.token';
import type { TraceableRequest } from '../logging/request-context';
import { isRoomCallback } from './paths';
import { setReplyCode } from './reply-code';

/**
 * The one place where failures become replies: `{code, msg, data: null}` with HTTP 200 for
 * business errors, 404 for unknown routes, 503 with code 1500 when the database did not answer
 * in time, 500 with code 1500 and no internals for faults, and HTTP 403 `{"code":1}` for
 * anything refused on the room callback.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(ROOT_LOGGER) private readonly log: PinoRoot,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const response = host.switchToHttp().getResponse<Response>();
    const request = host.switchToHttp().getRequest<Request>();
    if (response.headersSent) return;
    response.setHeader('Cache-Control', 'no-store');

    const callback = isRoomCallback(request);
    if (callback && (exception instanceof CallbackRejectedError || exception instanceof AppError)) {
      setReplyCode(response, 1);
      response.status(HttpStatus.FORBIDDEN).json({ code: 1 });
      return;
    }
    if (!(exception instanceof AppError) && isDatabaseUnavailable(exception)) {
      this.metrics.databaseUnavailable.inc();
      this.log.warn(
        { trace_id: (request as TraceableRequest).id, context: 'Exceptions' },
        `${request.method} ${request.path}: database unavailable (${(exception as Error | null)?.message ?? String(exception)})`,
      );
      // The provider retries a callback that was not answered 200; it needs no Retry-After.
      if (!callback) response.setHeader('Retry-After', '1');
      exception = AppError.unavailable('the database did not answer in time');
    }
    if (exception instanceof AppError) {
      setReplyCode(response, exception.code);
      if (callback) response.status(exception.status).json({ code: exception.code });
      else response.status(exception.status).json(failure(exception.code, exception.message));
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === HttpStatus.NOT_FOUND) {
        setReplyCode(response, ErrorCode.INVALID_PARAMETER);
        response
          .status(HttpStatus.NOT_FOUND)
          .json(failure(ErrorCode.INVALID_PARAMETER, `no such endpoint: ${request.method} ${request.path}`));
        return;
      }
      if (status < 500) {
        setReplyCode(response, ErrorCode.INVALID_PARAMETER);
        response.status(HttpStatus.OK).json(failure(ErrorCode.INVALID_PARAMETER, exception.message));
        return;
      }
    }
    // Read the error by shape: one from another realm (a VM context) fails instanceof Error.
    const { message, stack } = (exception ?? {}) as { message?: unknown; stack?: unknown };
    const err = {
      message: typeof message === 'string' ? message : String(exception),
      stack: typeof stack === 'string' ? stack : undefined,
    };
    this.log.error(
      { trace_id: (request as TraceableRequest).id, context: 'Exceptions', err },
      `${request.method} ${request.path} failed`,
    );
    setReplyCode(response, ErrorCode.INTERNAL);
    if (callback) {
      response.status(HttpStatus.INTERNAL_SERVER_ERROR).json({ code: ErrorCode.INTERNAL });
      return;
    }
    response.status(HttpStatus.INTERNAL_SERVER_ERROR).json(failure(ErrorCode.INTERNAL, 'internal error'));
  }
}
