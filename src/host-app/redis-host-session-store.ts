import Redis, { ChainableCommander } from 'ioredis';
import { AppError } from '../common/app-error';
import { HostSessionStore, SessionOwner, StoredHostSession } from './host-session-store';
import { closeRedis, redisReconnectDelay } from '../common/redis-connection';

/** Past this many entries an owner's index is swept of sessions that have expired meanwhile. */
const SWEEP_INDEX_ABOVE = 20;

// A use is recorded only on a session that still exists: a touch racing a logout must not revive it.
const TOUCH = `if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 's', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

const unavailable = (): AppError => AppError.unavailable('the session store (Redis) did not answer');

/**
 * Host-app sessions in Redis (`HOST_SESSION_STORE=redis`), shared by every instance without a
 * table. A session is a hash `<REDIS_KEY_PREFIX>host-session:<sha256>` that Redis drops when no request can use
 * it any more; each owner has an index `<REDIS_KEY_PREFIX>host-sessions:<IM user ID>` of its sessions, for
 * "end every other session". A Redis that does not answer makes /app/auth answer 503 / 1500;
 * nothing else in the service depends on it.
 */
export class RedisHostSessionStore extends HostSessionStore {
  private readonly redis: Redis;
  private readonly sessionKey: string;
  private readonly ownerKey: string;

  constructor(
    url: string,
    timeoutMs: number,
    /** The absolute session lifetime: an owner's index lives as long as its newest session can. */
    private readonly maxLifetimeMs: number,
    /** Every key starts with it (REDIS_KEY_PREFIX). */
    keyPrefix = 'im:',
  ) {
    super();
    this.sessionKey = `${keyPrefix}host-session:`;
    this.ownerKey = `${keyPrefix}host-sessions:`;
    this.redis = new Redis(url, {
      // Connect at the first use: with the host application switched off this store is never used.
      lazyConnect: true,
      // Queued while (re)connecting, but a command fails after timeoutMs rather than hang a login.
      commandTimeout: timeoutMs,
      connectTimeout: Math.max(timeoutMs, 1000),
      maxRetriesPerRequest: 1,
      retryStrategy: redisReconnectDelay,
    });
    // Without a listener ioredis reports every failed reconnect as an unhandled error event; the
    // failure reaches the caller as a 503 on the command that needed Redis.
    this.redis.on('error', () => undefined);
  }

  async insert(hash: string, owner: SessionOwner, now: number, ttlMs: number): Promise<void> {
    const index = this.ownerKey + owner.imUserId;
    const replies = await this.exec(
      this.redis
        .multi()
        .hset(this.sessionKey + hash, { a: owner.id, u: owner.imUserId, c: now, s: now })
        .pexpire(this.sessionKey + hash, ttlMs)
        .sadd(index, hash)
        // Every session in the index ends within the absolute lifetime of the newest one.
        .pexpire(index, this.maxLifetimeMs)
        .scard(index),
    );
    const size = Number(replies[4]);
    if (size > SWEEP_INDEX_ABOVE) await this.sweepIndex(index);
  }

  async findByHash(hash: string): Promise<StoredHostSession | null> {
    const fields = await this.call(() => this.redis.hgetall(this.sessionKey + hash));
    const createdAt = Number(fields.c);
    const lastSeenAt = Number(fields.s);
    // A hash missing a field was never written whole by insert: treat it as no session.
    if (!fields.a || !Number.isSafeInteger(createdAt) || !Number.isSafeInteger(lastSeenAt)) return null;
    return { accountId: fields.a, createdAt, lastSeenAt };
  }

  async touch(hash: string, now: number, ttlMs: number): Promise<void> {
    await this.call(() => this.redis.eval(TOUCH, 1, this.sessionKey + hash, String(now), String(ttlMs)));
  }

  async deleteByHash(hash: string): Promise<void> {
    const imUserId = await this.call(() => this.redis.hget(this.sessionKey + hash, 'u'));
    const batch = this.redis.multi().del(this.sessionKey + hash);
    if (imUserId) batch.srem(this.ownerKey + imUserId, hash);
    await this.exec(batch);
  }

  async deleteOfAccount(owner: SessionOwner, _manager?: unknown, keepHash?: string): Promise<void> {
    const index = this.ownerKey + owner.imUserId;
    const hashes = (await this.call(() => this.redis.smembers(index))).filter((hash) => hash !== keepHash);
    if (hashes.length === 0) return;
    await this.exec(
      this.redis
        .multi()
        .del(...hashes.map((hash) => this.sessionKey + hash))
        .srem(index, ...hashes),
    );
  }

  override async close(): Promise<void> {
    await closeRedis(this.redis);
  }

  /** Drops index entries whose session Redis has already expired. */
  private async sweepIndex(index: string): Promise<void> {
    const hashes = await this.call(() => this.redis.smembers(index));
    const batch = this.redis.pipeline();
    for (const hash of hashes) batch.exists(this.sessionKey + hash);
    const exists = await this.exec(batch);
    const gone = hashes.filter((_hash, i) => Number(exists[i]) === 0);
    if (gone.length) await this.call(() => this.redis.srem(index, ...gone));
  }

  /** A command's result, or a 503 when Redis fails or does not answer. */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch {
      throw unavailable();
    }
  }

  /** The values of a MULTI or pipeline, or a 503 when it or any of its commands failed. */
  private async exec(batch: ChainableCommander): Promise<unknown[]> {
    const replies = await this.call(() => batch.exec());
    if (!replies || replies.some(([error]) => error)) throw unavailable();
    return replies.map(([, value]) => value);
  }
}
