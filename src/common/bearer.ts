import type { Request } from 'express';
import { AppError } from './app-error';
import { ErrorCode } from './error-code';

/**
 * The credential of an `Authorization: Bearer <value>` header, or null when there is none.
 * Node keeps only the first of repeated Authorization headers; a proxy or the next hop may
 * keep another, so a request carrying two is refused (1102) rather than guessed at.
 */
export function bearerCredential(request: Request): string | null {
  const all = request.headersDistinct?.authorization;
  if (all && all.length > 1)
    throw new AppError(ErrorCode.TOKEN_INVALID, 'Authorization: sent more than once; send exactly one credential');
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  return match ? match[1] : null;
}
