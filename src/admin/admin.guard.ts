import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { isTrustedOrigin } from '../common/security/same-origin';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { setActor } from './admin-actor';
import { AdminAuthService } from './admin-auth.service';
import { ADMIN_CSRF_HEADER, sessionCookieOf } from './admin-session-cookie';
import { AdminRole, roleAtLeast } from './admin-roles';

const ROLE = 'adminRole';
const PUBLIC = 'adminPublic';

/** The least role that may call the route. A route without it is the owner's only. */
export const AdminRoles = (role: AdminRole): MethodDecorator & ClassDecorator => SetMetadata(ROLE, role);
/** The login route: no session needed (CSRF checks still apply). */
export const AdminPublic = (): MethodDecorator => SetMetadata(PUBLIC, true);

const READS = new Set(['GET', 'HEAD']);

/**
 * Every /app/admin route: only the console's session cookie authenticates (an SDK secret, IM
 * token or host session is never read here). Writes must come from a trusted origin (the
 * page's own, wherever the console is opened, or PUBLIC_BASE_URL, CORS_ORIGINS: see
 * isTrustedOrigin) AND carry `X-Admin-CSRF: 1`, which no cross-site form or simple request can
 * set; either missing is HTTP 403 with 1004.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AdminAuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (!READS.has(request.method)) {
      if (request.headers[ADMIN_CSRF_HEADER] !== '1')
        throw new AppError(ErrorCode.INVALID_PARAMETER, 'X-Admin-CSRF: header "X-Admin-CSRF: 1" required', 403);
      if (!isTrustedOrigin(request, this.config.publicBaseUrl, this.config.operations.corsOrigins))
        throw new AppError(ErrorCode.INVALID_PARAMETER, 'Origin: not a trusted origin for the admin console', 403);
    }
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean | undefined>(PUBLIC, targets)) return true;
    const traceId = String((request as unknown as { id?: string }).id ?? '');
    const actor = await this.auth.authenticate(sessionCookieOf(request), traceId);
    const needed = this.reflector.getAllAndOverride<AdminRole | undefined>(ROLE, targets) ?? 'owner';
    if (!roleAtLeast(actor.role, needed))
      throw new AppError(
        ErrorCode.INVALID_PARAMETER,
        `role: this needs the ${needed} role (yours: ${actor.role})`,
        403,
      );
    setActor(request, actor);
    return true;
  }
}
