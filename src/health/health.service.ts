import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { RateLimiter } from '../common/rate-limit/rate-limiter';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Lifecycle } from './lifecycle';

export interface LivenessReply {
  status: 'ok';
}

export interface ReadinessReply {
  status: 'ready';
  database: 'up';
  redis: 'up' | 'disabled';
}

/** Resolves false when `work` has not answered true within `ms`. */
async function within(ms: number, work: () => Promise<boolean | null>): Promise<boolean | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work().catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

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
    const [database, redis] = await Promise.all([
      within(ms, () => this.dataSource.query('SELECT 1').then(() => true)),
      within(ms, () => this.limiter.storeUp(ms)),
    ]);
    const down = [database ? null : 'database', redis === false ? 'redis' : null].filter((name) => name !== null);
    if (down.length) throw new AppError(ErrorCode.INTERNAL, `not ready: ${down.join(' and ')} did not answer within ${ms} ms`, 503);
    return { status: 'ready', database: 'up', redis: redis === null ? 'disabled' : 'up' };
  }
}
