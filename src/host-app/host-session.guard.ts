import { CanActivate, ExecutionContext, Inject, Injectable, NotFoundException, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { isTrustedOrigin } from '../common/security/same-origin';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { setHostClient } from './host-client';
import { HostAuthService } from './host-auth.service';
import { clearSessionCookie, presentedSession, setSessionCookie } from './host-session-cookie';

const PUBLIC = 'hostPublic';
/** A route that needs no session (sign-up, logins, SMS); the CSRF check still applies to its POST. */
export const HostPublic = (): MethodDecorator => SetMetadata(PUBLIC, true);

const READS = new Set(['GET', 'HEAD']);

/**
 * Every /app/auth route. HOST_APP_ENABLED=false: HTTP 404, as if the routes did not exist.
 * Only the PHPSID session authenticates (cookie, or the header of the same name): an
 * Authorization header, SDK secret or IM token, is never read here (spec 5.3). A write not
 * carrying the header must come from a trusted origin (a page of the service itself, wherever
 * it is opened, or PUBLIC_BASE_URL, CORS_ORIGINS: see isTrustedOrigin), else HTTP 403 with
 * 1004: a cross-site page can make the browser send the cookie, but not the header (a custom
 * header needs a CORS preflight, which /app/auth never answers).
 */
@Injectable()
export class HostSessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: HostAuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.config.hostApp.enabled) throw new NotFoundException();
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const presented = presentedSession(request);
    if (
      !READS.has(request.method) &&
      presented?.via !== 'header' &&
      !isTrustedOrigin(request, this.config.publicBaseUrl, this.config.operations.corsOrigins)
    )
      throw new AppError(ErrorCode.INVALID_PARAMETER, 'Origin: not a trusted origin for the host application', 403);
    const secure = this.config.nodeEnv === 'production';
    const client = {
      address: request.ip ?? request.socket.remoteAddress ?? '',
      presented,
      session: null,
      startSession: (id: string) => setSessionCookie(response, id, this.config.hostApp.sessionAbsoluteSeconds, secure),
      endSession: () => clearSessionCookie(response, secure),
    };
    setHostClient(request, client);
    if (this.reflector.getAllAndOverride<boolean | undefined>(PUBLIC, [context.getHandler(), context.getClass()]))
      return true;
    setHostClient(request, { ...client, session: await this.auth.authenticate(presented) });
    return true;
  }
}
