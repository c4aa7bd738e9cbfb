import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RateLimitName } from '../../config/messaging-config';
import { RuntimeSettingsService } from '../../settings/runtime-settings.service';
import { AuthenticatedRequest } from '../auth-user';
import { MetricsService } from '../../metrics/metrics.service';
import { AppError } from '../app-error';
import { ErrorCode } from '../error-code';
import { RateLimiter } from './rate-limiter';

const RATE_LIMIT = 'rateLimit';

/** Per-user limit (code 1005); the guard runs after ImTokenGuard. */
export const RateLimited = (name: RateLimitName): MethodDecorator & ClassDecorator => SetMetadata(RATE_LIMIT, name);

@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
    private readonly settings: RuntimeSettingsService,
    private readonly metrics: MetricsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const name = this.reflector.getAllAndOverride<RateLimitName | undefined>(RATE_LIMIT, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!name) return true;
    const user = context.switchToHttp().getRequest<AuthenticatedRequest>().authUser;
    if (!user) throw new Error('RateLimitGuard must run after ImTokenGuard');
    if (!(await this.limiter.hit(`${name}:${user.internalId}`, this.settings.current.rateLimits[name]))) {
      this.metrics.rateLimitRefusals.inc({ limit: name });
      throw new AppError(ErrorCode.TOO_FAST, `too many ${name.replace('_', ' ')} requests; retry later with backoff`);
    }
    return true;
  }
}
