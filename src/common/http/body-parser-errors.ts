import type { NextFunction, Request, Response } from 'express';
import { AppError, CallbackRejectedError } from '../app-error';
import { ErrorCode } from '../error-code';
import { isRoomCallback } from './paths';

interface BodyParserError {
  type?: string;
  limit?: number;
  status?: number;
}

const PROBLEMS: Record<string, string> = {
  'entity.too.large': 'body: too large',
  'entity.parse.failed': 'body: malformed JSON',
  'entity.verify.failed': 'body: rejected',
  'encoding.unsupported': 'Content-Encoding: unsupported',
  'charset.unsupported': 'Content-Type: unsupported charset (use UTF-8)',
  'request.size.invalid': 'body: length does not match Content-Length',
  'request.aborted': 'body: request aborted',
  'stream.encoding.set': 'body: unreadable',
};

function problemOf(error: unknown): string | null {
  if (!error || typeof error !== 'object') return null;
  const { type, limit, status } = error as BodyParserError;
  // e.g. a corrupt gzip stream: a 4xx from the parser without a known type.
  if (!type || !(type in PROBLEMS))
    return status !== undefined && status >= 400 && status < 500
      ? 'body: unreadable (corrupt or unsupported encoding)'
      : null;
  return type === 'entity.too.large' && limit ? `body: larger than the limit of ${limit} bytes` : PROBLEMS[type];
}

/**
 * Express error middleware placed right after the body parsers: a refused body becomes a 1004
 * naming the problem (or a callback rejection on the provider route) before Nest would turn
 * it into a bare 400.
 */
export function bodyParserErrors(error: unknown, request: Request, _response: Response, next: NextFunction): void {
  const problem = problemOf(error);
  if (!problem) return next(error);
  if (isRoomCallback(request)) return next(new CallbackRejectedError(problem));
  next(new AppError(ErrorCode.INVALID_PARAMETER, problem));
}
