import { CanActivate, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { RateLimiter } from '../common/rate-limit/rate-limiter';
import { MetricsService } from '../metrics/metrics.service';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';

/**
 * The `server_api` limit (1005): per host, over every server API endpoint. There is one host
 * (one SDK secret), so the key is fixed; with REDIS_URL the instances share the count. Runs
 * after SecretGuard, so an unauthenticated caller never spends the host's budget.
 */
@Injectable()
export class ServerApiRateLimitGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly settings: RuntimeSettingsService,
    private readonly metrics: MetricsService,
  ) {}

  async canActivate(): Promise<boolean> {
    if (!(await this.limiter.hit('server_api:host', this.settings.current.rateLimits.server_api))) {
      this.metrics.rateLimitRefusals.inc({ limit: 'server_api' });
      throw new AppError(ErrorCode.TOO_FAST, 'too many server API requests; retry later with backoff');
    }
    return true;
  }
}
