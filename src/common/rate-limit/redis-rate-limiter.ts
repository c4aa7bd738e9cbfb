import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { RateLimitRule } from '../../config/messaging-config';
import { withTimeout } from '../with-timeout';
import { MemoryRateLimiter, RateLimiter } from './rate-limiter';
import { closeRedis, redisReconnectDelay } from '../redis-connection';

// INCR and PEXPIRE in one atomic step, so a crash between them cannot leave an eternal key.
const HIT = `local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n`;

// A refund lowers a window that still exists and is above zero; an expired window stays gone.
const REFUND = `local n = tonumber(redis.call('GET', KEYS[1])) if n and n > 0 then return redis.call('DECR', KEYS[1]) end return 0`;

const RETRY_AFTER_FAILURE_MS = 1000;

export interface RedisLimiterHooks {
  /** Called with true when Redis answers again, false when an outage starts. */
  onState(up: boolean): void;
  /** One check answered from memory during an outage. */
  onFallback(): void;
}

/**
 * Several instances: counters shared in Redis. Rate limiting must never take messaging down,
 * so a Redis that is unreachable or slower than `timeoutMs` is bypassed: each instance counts
 * in memory (limits then hold per instance, not across them) until Redis answers again. The
 * outage is logged once when it starts and once when it ends.
 */
export class RedisRateLimiter extends RateLimiter {
  private readonly redis: Redis;
  private readonly fallback: MemoryRateLimiter;
  private readonly logger = new Logger('RateLimit');
  private up: boolean | null = null;
  /** After a slow or failed command, Redis is left alone until then (so requests do not each wait). */
  private retryAt = 0;
  private probing = false;

  constructor(
    url: string,
    private readonly now: () => number,
    private readonly timeoutMs: number,
    private readonly hooks: RedisLimiterHooks,
    /** Every window's key starts with it (REDIS_KEY_PREFIX). */
    private readonly keyPrefix = 'im:',
  ) {
    super();
    this.fallback = new MemoryRateLimiter(now);
    this.redis = new Redis(url, {
      lazyConnect: false,
      // Fail at once while disconnected instead of queueing behind the reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeoutMs,
      connectTimeout: Math.max(timeoutMs, 1000),
      retryStrategy: redisReconnectDelay,
    });
    // Without a listener ioredis reports every failed reconnect as an unhandled error event.
    this.redis.on('error', () => this.setUp(false));
    this.redis.on('close', () => this.setUp(false));
    this.redis.on('ready', () => {
      this.retryAt = 0;
      this.setUp(true);
    });
  }

  async hit(key: string, rule: RateLimitRule): Promise<boolean> {
    // During an outage one request at a time probes Redis (once a second); the others count in
    // memory at once instead of each waiting out the timeout.
    const probe = this.up === false;
    if (this.redis.status === 'ready' && (!probe || (Date.now() >= this.retryAt && !this.probing))) {
      this.probing ||= probe;
      try {
        const windowKey = `${this.keyPrefix}rl:${key}:${Math.floor(this.now() / rule.windowMs)}`;
        const count = Number(await this.redis.eval(HIT, 1, windowKey, String(rule.windowMs)));
        this.setUp(true);
        return count <= rule.limit;
      } catch {
        this.retryAt = Date.now() + RETRY_AFTER_FAILURE_MS;
        this.setUp(false);
      } finally {
        if (probe) this.probing = false;
      }
    }
    this.hooks.onFallback();
    return this.fallback.hit(key, rule);
  }

  async refund(key: string, rule: RateLimitRule, at: number): Promise<void> {
    if (this.redis.status === 'ready' && this.up !== false) {
      try {
        await this.redis.eval(REFUND, 1, `${this.keyPrefix}rl:${key}:${Math.floor(at / rule.windowMs)}`);
        return;
      } catch {
        this.retryAt = Date.now() + RETRY_AFTER_FAILURE_MS;
        this.setUp(false);
      }
    }
    await this.fallback.refund(key, rule, at);
  }

  /** Whether Redis answers a PING within `timeoutMs`; for readiness. */
  override async storeUp(timeoutMs: number): Promise<boolean> {
    if (this.redis.status !== 'ready') {
      // Just started or reconnecting: give the connection the same time to come up.
      let onReady = (): void => undefined;
      const ready = new Promise<boolean>((resolve) => {
        onReady = () => resolve(true);
        this.redis.once('ready', onReady);
      });
      const came = await withTimeout(timeoutMs, false, () => ready);
      this.redis.removeListener('ready', onReady);
      if (!came) return false;
    }
    return withTimeout(timeoutMs, false, async () => (await this.redis.ping()) === 'PONG');
  }

  override async close(): Promise<void> {
    this.redis.removeAllListeners('close');
    await closeRedis(this.redis);
  }

  private setUp(up: boolean): void {
    if (this.up === up) return;
    const first = this.up === null;
    this.up = up;
    this.hooks.onState(up);
    if (!up)
      this.logger.warn(
        `Redis (REDIS_URL) does not answer within ${this.timeoutMs} ms: rate limits are counted per instance in memory until it is back`,
      );
    else if (!first) this.logger.log('Redis (REDIS_URL) answers again: rate limits are shared again');
  }
}
