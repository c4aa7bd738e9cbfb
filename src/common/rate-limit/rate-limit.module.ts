import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { MetricsService } from '../../metrics/metrics.service';
import { MemoryRateLimiter, RateLimiter } from './rate-limiter';
import { RedisRateLimiter } from './redis-rate-limiter';
import { RateLimitGuard } from './rate-limit.guard';

/** In memory for one instance; in Redis when REDIS_URL is set, so instances share the limits. */
@Global()
@Module({
  providers: [
    {
      provide: RateLimiter,
      inject: [APP_CONFIG, Clock, MetricsService],
      useFactory: (config: AppConfig, clock: Clock, metrics: MetricsService): RateLimiter =>
        config.messaging.redisUrl
          ? new RedisRateLimiter(
              config.messaging.redisUrl,
              () => clock.now(),
              config.operations.redisTimeoutMs,
              {
                onState: (up) => metrics.redisUp.set(up ? 1 : 0),
                onFallback: () => metrics.redisFallbacks.inc(),
              },
              config.messaging.redisPrefix.keys,
            )
          : new MemoryRateLimiter(() => clock.now()),
    },
    RateLimitGuard,
  ],
  exports: [RateLimiter, RateLimitGuard],
})
export class RateLimitModule implements OnApplicationShutdown {
  constructor(@Inject(RateLimiter) private readonly limiter: RateLimiter) {}

  async onApplicationShutdown(): Promise<void> {
    await this.limiter.close();
  }
}
