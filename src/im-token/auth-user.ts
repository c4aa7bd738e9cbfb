import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';

/** The identity proven by a valid IM token. */
export interface AuthUser {
  /** Internal user ID (decimal string). */
  id: string;
  /** External user ID: the SDK identity. */
  userId: string;
}

export interface AuthenticatedRequest extends Request {
  authUser?: AuthUser;
}

/** The authenticated SDK user; only on routes behind ImTokenGuard. */
export const CurrentUser = createParamDecorator((_data: unknown, context: ExecutionContext): AuthUser => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.authUser) throw new Error('CurrentUser used on a route without ImTokenGuard');
  return request.authUser;
});
