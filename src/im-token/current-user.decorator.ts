import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { AuthUser, AuthenticatedRequest } from '../common/auth-user';

/** The authenticated SDK user; only on routes behind ImTokenGuard. */
export const CurrentUser = createParamDecorator((_data: unknown, context: ExecutionContext): AuthUser => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.authUser) throw new Error('CurrentUser used on a route without ImTokenGuard');
  return request.authUser;
});
