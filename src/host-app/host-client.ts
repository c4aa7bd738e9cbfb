import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';
import type { Presented } from './host-session-cookie';

/** The logged-in session of a request (set by HostSessionGuard). */
export interface HostSession {
  accountId: string;
  sessionHash: string;
}

/**
 * What a host-app handler knows of its caller, set by HostSessionGuard: the client address
 * (for limits), the session ID it presented (rotated away at login), its session when logged
 * in, and how to hand a new session to it or take it away (the PHPSID cookie).
 */
export interface HostClient {
  address: string;
  presented: Presented;
  session: HostSession | null;
  startSession(sessionId: string): void;
  endSession(): void;
}

const CLIENT = Symbol('hostClient');

export function setHostClient(request: Request, client: HostClient): void {
  (request as unknown as Record<symbol, HostClient>)[CLIENT] = client;
}

export const CurrentHostClient = createParamDecorator((_data: unknown, context: ExecutionContext): HostClient => {
  const client = (context.switchToHttp().getRequest<Request>() as unknown as Record<symbol, HostClient | undefined>)[
    CLIENT
  ];
  if (!client) throw new Error('CurrentHostClient needs HostSessionGuard');
  return client;
});

/** The logged-in session; only on routes HostSessionGuard requires a session for. */
export function sessionOf(client: HostClient): HostSession {
  if (!client.session) throw new Error('the route needs a session but HostSessionGuard let none through');
  return client.session;
}
