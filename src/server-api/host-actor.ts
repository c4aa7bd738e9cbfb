import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';

/** The host backend behind a server API request (SecretGuard proved it): what its audit rows name. */
export interface HostActor {
  /** The request's trace ID (X-Request-Id), copied into the audit log. */
  traceId: string;
}

export const CurrentHost = createParamDecorator((_data: unknown, context: ExecutionContext): HostActor => ({
  traceId: String((context.switchToHttp().getRequest<Request>() as unknown as { id?: string }).id ?? ''),
}));
