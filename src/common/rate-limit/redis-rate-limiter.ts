import Redis from 'ioredis';
import type { RateLimitRule } from '../../config/messaging-config';
import { RateLimiter } from './rate-limiter';

// INCR and PEXPIRE in one atomic step, so a crash between them cannot leave an eternal key.
const HIT = `local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n`;

/** Several instances: counters shared in Redis. */
export class RedisRateLimiter extends RateLimiter {
  private readonly redis: Redis;

  constructor(url: string, private readonly now: () => number) {
    super();
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  }

  async hit(key: string, rule: RateLimitRule): Promise<boolean> {
    const now = this.now();
    const windowKey = `im:rl:${key}:${Math.floor(now / rule.windowMs)}`;
    const count = Number(await this.redis.eval(HIT, 1, windowKey, String(rule.windowMs)));
    return count <= rule.limit;
  }

  override async close(): Promise<void> {
    await this.redis.quit();
  }
}
