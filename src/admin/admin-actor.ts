import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';
import type { AdminRole } from './admin-roles';

/** The administrator behind a request, as AdminGuard found them. */
export interface AdminActor {
  id: string;
  username: string;
  role: AdminRole;
  /** Hash of the session that authenticated the request. */
  sessionHash: string;
  /** The request's trace ID, copied into the audit log. */
  traceId: string;
}

const ACTOR = Symbol('adminActor');

export function setActor(request: Request, actor: AdminActor): void {
  (request as unknown as Record<symbol, AdminActor>)[ACTOR] = actor;
}

export function actorOf(request: Request): AdminActor | undefined {
  return (request as unknown as Record<symbol, AdminActor | undefined>)[ACTOR];
}

export const CurrentAdmin = createParamDecorator((_data: unknown, context: ExecutionContext): AdminActor => {
  const actor = actorOf(context.switchToHttp().getRequest<Request>());
  if (!actor) throw new Error('CurrentAdmin used on a route without AdminGuard');
  return actor;
});
