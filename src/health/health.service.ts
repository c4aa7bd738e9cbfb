import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { withTimeout } from '../common/with-timeout';
import { RateLimiter } from '../common/rate-limit/rate-limiter';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { LivenessReply, ReadinessReply } from './health.reply';
import { Lifecycle } from './lifecycle';

@Injectable()
export class HealthService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly limiter: RateLimiter,
    private readonly lifecycle: Lifecycle,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The process answers; no dependency is asked, so a slow database never restarts healthy pods. */
  live(): LivenessReply {
    return { status: 'ok' };
  }

  async ready(): Promise<ReadinessReply> {
    if (this.lifecycle.shuttingDown) throw new AppError(ErrorCode.INTERNAL, 'not ready: shutting down', 503);
    const ms = this.config.operations.readyTimeoutMs;
    const database = this.dataSource.query('SELECT 1').then(() => true);
    const redis = this.config.messaging.redisUrl
      ? withTimeout<boolean | null>(ms, false, () => this.limiter.storeUp(ms))
      : null;
    const [databaseUp, redisUp] = await Promise.all([withTimeout(ms, false, () => database), redis]);
    // A Redis outage does not stop this instance from serving (rate limits fall back to memory):
    // failing readiness for it would take every instance out of the balancer at once.
    const redisBlocks = redisUp === false && this.config.operations.readyRequiresRedis;
    const down = [databaseUp ? null : 'database', redisBlocks ? 'redis' : null].filter((name) => name !== null);
    if (down.length)
      throw new AppError(ErrorCode.INTERNAL, `not ready: ${down.join(' and ')} did not answer within ${ms} ms`, 503);
    return { status: 'ready', database: 'up', redis: redisUp === null ? 'disabled' : redisUp ? 'up' : 'down' };
  }
}
