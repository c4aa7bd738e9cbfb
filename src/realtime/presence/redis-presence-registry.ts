import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import {
  DEFAULT_LAST_SEEN_RETENTION_MS,
  DEFAULT_PRESENCE_TTL_MS,
  PresenceRegistry,
  PresenceState,
  PresenceTransition,
  PresenceUnavailableError,
} from './presence-registry';
import { closeRedis, redisReconnectDelay } from '../../common/redis-connection';

// Keys, all under the prefix P (put a hash tag in P, e.g. "im:{presence}:", on Redis Cluster):
//   P users     ZSET userId → latest expiry of their connections; holds exactly the users that have
//               a connections ZSET, so sweep finds crashed instances' users without SCAN
//   P c:<user>  ZSET connectionId → expiry (heartbeat + TTL); a connection is live while expiry > now
//   P s:<user>  last-seen time (Unix ms), kept for the retention after each write
// Each script reads and writes a user's keys in one atomic step, which is what makes transitions
// exact: whichever script empties or fills a user's set is the one that reports the transition.
// Times come from the callers (ARGV), so the scripts are deterministic and replicate verbatim.
const PRELUDE = `
local P = ARGV[1]
local function latest(k)
  local r = redis.call('ZRANGE', k, -1, -1, 'WITHSCORES')
  if r[2] then return tonumber(r[2]) end
  return nil
end
local function prune(k, now)
  local r = redis.call('ZREVRANGEBYSCORE', k, now, '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if not r[2] then return nil end
  redis.call('ZREMRANGEBYSCORE', k, '-inf', now)
  return tonumber(r[2])
end
local function bumpSeen(u, t, keep)
  local k = P .. 's:' .. u
  local old = tonumber(redis.call('GET', k))
  if old and old >= t then t = old end
  redis.call('SET', k, string.format('%d', t), 'PX', keep)
  return t
end
local function touch(u, ck, now, ttl)
  local top = latest(ck)
  redis.call('ZADD', KEYS[1], top, u)
  -- Outlives its last expiry by a TTL, so it goes away even if no sweep ever runs again.
  redis.call('PEXPIRE', ck, math.floor(top - now + ttl))
end
`;

// ARGV: P, user, connection, now, ttl → 1 when the user had no live connection before.
const CONNECT = `${PRELUDE}
local u, now, ttl = ARGV[2], tonumber(ARGV[4]), tonumber(ARGV[5])
local ck = P .. 'c:' .. u
local wasOnline = redis.call('ZCOUNT', ck, '(' .. ARGV[4], '+inf') > 0
prune(ck, ARGV[4])
redis.call('ZADD', ck, now + ttl, ARGV[3])
touch(u, ck, now, ttl)
if wasOnline then return 0 end
return 1`;

// ARGV: P, user, connection, now, ttl, keep → {1, lastSeenAt} when the user's last connection went.
const DISCONNECT = `${PRELUDE}
local u, now, ttl, keep = ARGV[2], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local ck = P .. 'c:' .. u
local removed = redis.call('ZREM', ck, ARGV[3]) == 1
local pruned = prune(ck, ARGV[4])
if latest(ck) then
  touch(u, ck, now, ttl)
  if removed then bumpSeen(u, now, keep) end
  return {0}
end
local userLatest = tonumber(redis.call('ZSCORE', KEYS[1], u))
if not userLatest then return {0} end
redis.call('ZREM', KEYS[1], u)
if removed then return {1, bumpSeen(u, now, keep)} end
return {1, bumpSeen(u, math.min((pruned or userLatest) - ttl, now), keep)}`;

// ARGV: P, now, ttl, then user, connection pairs.
const REFRESH = `${PRELUDE}
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
for i = 4, #ARGV, 2 do
  local ck = P .. 'c:' .. ARGV[i]
  prune(ck, ARGV[2])
  redis.call('ZADD', ck, now + ttl, ARGV[i + 1])
  touch(ARGV[i], ck, now, ttl)
end
return 0`;

// ARGV: P, now, ttl, keep, limit → {candidates examined, {user, lastSeenAt, ...}}.
const SWEEP = `${PRELUDE}
local now, ttl, keep = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'WITHSCORES', 'LIMIT', 0, ARGV[5])
local out = {}
for i = 1, #due, 2 do
  local u = due[i]
  local ck = P .. 'c:' .. u
  local pruned = prune(ck, ARGV[2])
  if latest(ck) then
    touch(u, ck, now, ttl)
  else
    redis.call('ZREM', KEYS[1], u)
    out[#out + 1] = u
    out[#out + 1] = bumpSeen(u, math.min((pruned or tonumber(due[i + 1])) - ttl, now), keep)
  end
end
return {#due / 2, out}`;

// ARGV: P, now, ttl, users… → per user: 1|0, lastSeenAt or nil.
const STATE = `${PRELUDE}
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
for i = 4, #ARGV do
  local u = ARGV[i]
  local ck = P .. 'c:' .. u
  if redis.call('ZCOUNT', ck, '(' .. ARGV[2], '+inf') > 0 then
    out[#out + 1] = 1
    out[#out + 1] = false
  else
    local seen = tonumber(redis.call('GET', P .. 's:' .. u))
    local top = latest(ck) or tonumber(redis.call('ZSCORE', KEYS[1], u))
    if top then
      local t = math.min(top - ttl, now)
      if not seen or t > seen then seen = t end
    end
    out[#out + 1] = 0
    out[#out + 1] = seen or false
  end
end
return out`;

/** Bounds one script's run time (Redis does nothing else meanwhile). */
const BATCH = 200;

export interface RedisPresenceOptions {
  /** A call that Redis has not answered by then counts as failed. Default 500 ms. */
  commandTimeoutMs?: number;
  lastSeenRetentionMs?: number;
  /** Users examined per sweep script (looped until done). Default 200. */
  sweepBatchSize?: number;
}

/**
 * Several instances sharing presence in Redis. Connection IDs must be unique across instances and
 * instance clocks agree to well within the TTL (the callers' `now` goes into Redis).
 *
 * When Redis fails or does not answer within `commandTimeoutMs`, the outage is logged once (and
 * its end once), and nothing rejects except `stateOf` (PresenceUnavailableError):
 * - `connected` resolves null: no online event; the connection is written by this instance's next
 *   successful `refresh`, so the user shows online again from then on;
 * - `disconnected` resolves null: the connection is no longer refreshed, so it expires and a later
 *   `sweep` reports the offline transition (late, not lost);
 * - `refresh` resolves; connections of an outage longer than the TTL may be swept meanwhile;
 * - `sweep` resolves with what it got (often []); what it could not do stays for the next one.
 * A script whose answer is lost after it ran (a timeout on a stalled link) loses its transition.
 * Pass a URL, or a client made with `enableOfflineQueue: false`: a queued command would run
 * after its timeout, out of step with the transitions reported.
 */
export class RedisPresenceRegistry extends PresenceRegistry {
  private readonly redis: Redis;
  private readonly ownsClient: boolean;
  private readonly usersKey: string;
  private readonly timeoutMs: number;
  private readonly retentionMs: number;
  private readonly sweepBatch: number;
  /** This instance's open connections (connectionId → userId): the only ones `refresh` writes. */
  private readonly open = new Map<string, string>();
  private readonly logger = new Logger('Presence');
  private up: boolean | null = null;

  constructor(
    redis: Redis | string,
    private readonly keyPrefix: string,
    private readonly ttlMs: number = DEFAULT_PRESENCE_TTL_MS,
    options: RedisPresenceOptions = {},
  ) {
    super();
    if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new Error('ttlMs must be a positive integer');
    this.timeoutMs = options.commandTimeoutMs ?? 500;
    this.retentionMs = options.lastSeenRetentionMs ?? DEFAULT_LAST_SEEN_RETENTION_MS;
    this.sweepBatch = options.sweepBatchSize ?? BATCH;
    this.usersKey = `${keyPrefix}users`;
    this.ownsClient = typeof redis === 'string';
    if (typeof redis !== 'string') {
      this.redis = redis;
      return;
    }
    this.redis = new Redis(redis, {
      // Fail at once while disconnected instead of queueing behind the reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: this.timeoutMs,
      connectTimeout: Math.max(this.timeoutMs, 1000),
      retryStrategy: redisReconnectDelay,
    });
    // Without a listener ioredis reports every failed reconnect as an unhandled error event.
    this.redis.on('error', () => this.setUp(false));
  }

  /** Whether the connection is up within `timeoutMs` (calls before then fail fast and are healed by refresh). */
  async whenReady(timeoutMs: number): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    let onReady = (): void => undefined;
    let timer: NodeJS.Timeout | undefined;
    const ready = await new Promise<boolean>((resolve) => {
      onReady = () => resolve(true);
      this.redis.once('ready', onReady);
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    clearTimeout(timer);
    this.redis.removeListener('ready', onReady);
    return ready;
  }

  async connected(userId: string, connectionId: string, now: number): Promise<PresenceTransition | null> {
    this.open.set(connectionId, userId);
    try {
      const first = await this.run(CONNECT, [userId, connectionId, now, this.ttlMs]);
      return first === 1 ? { userId, online: true, lastSeenAt: null } : null;
    } catch {
      return null;
    }
  }

  async disconnected(userId: string, connectionId: string, now: number): Promise<PresenceTransition | null> {
    // Synchronously, before any await: a refresh issued after this call must not write it back.
    if (this.open.get(connectionId) === userId) this.open.delete(connectionId);
    try {
      const [last, lastSeenAt] = (await this.run(DISCONNECT, [
        userId,
        connectionId,
        now,
        this.ttlMs,
        this.retentionMs,
      ])) as [number, number?];
      return last === 1 ? { userId, online: false, lastSeenAt: Number(lastSeenAt) } : null;
    } catch {
      return null;
    }
  }

  async refresh(connections: ReadonlyArray<{ userId: string; connectionId: string }>, now: number): Promise<void> {
    const pairs: string[] = [];
    for (const { userId, connectionId } of connections)
      if (this.open.get(connectionId) === userId) pairs.push(userId, connectionId);
    // All batches are sent before any answer is awaited: Redis runs them in the order of this
    // connection's commands, so a later disconnect always lands after them.
    const batches: Promise<unknown>[] = [];
    for (let i = 0; i < pairs.length; i += 2 * BATCH)
      batches.push(this.run(REFRESH, [now, this.ttlMs, ...pairs.slice(i, i + 2 * BATCH)]));
    await Promise.allSettled(batches);
  }

  async sweep(now: number): Promise<PresenceTransition[]> {
    const wentOffline: PresenceTransition[] = [];
    try {
      for (;;) {
        const [examined, flat] = (await this.run(SWEEP, [now, this.ttlMs, this.retentionMs, this.sweepBatch])) as [
          number,
          Array<string | number>,
        ];
        for (let i = 0; i < flat.length; i += 2)
          wentOffline.push({ userId: String(flat[i]), online: false, lastSeenAt: Number(flat[i + 1]) });
        // The users examined but not dropped now score above `now`, so the loop ends.
        if (examined < this.sweepBatch) break;
      }
    } catch {
      // Logged by run(); the rest stays due for the next sweep.
    }
    return wentOffline;
  }

  async stateOf(userIds: readonly string[], now: number): Promise<Map<string, PresenceState>> {
    const unique = [...new Set(userIds)];
    const states = new Map<string, PresenceState>();
    const batches: Promise<unknown>[] = [];
    for (let i = 0; i < unique.length; i += BATCH)
      batches.push(this.run(STATE, [now, this.ttlMs, ...unique.slice(i, i + BATCH)]));
    let answers: unknown[];
    try {
      answers = await Promise.all(batches);
    } catch {
      throw new PresenceUnavailableError();
    }
    answers.forEach((answer, batch) => {
      const flat = answer as Array<number | null>;
      for (let i = 0; i < flat.length; i += 2) {
        const online = flat[i] === 1;
        states.set(unique[batch * BATCH + i / 2], {
          online,
          lastSeenAt: online || flat[i + 1] === null ? null : Number(flat[i + 1]),
        });
      }
    });
    return states;
  }

  /** Quits the client only when it was made here from a URL. Never rejects. */
  async close(): Promise<void> {
    this.open.clear();
    if (!this.ownsClient) return;
    this.redis.removeAllListeners('error');
    // Keep errors of a last reconnect attempt from being reported as unhandled.
    this.redis.on('error', () => undefined);
    await closeRedis(this.redis);
  }

  /** One script, failing when Redis has not answered within the timeout. */
  private async run(script: string, args: Array<string | number>): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('presence command timed out')), this.timeoutMs);
    });
    try {
      const answer = await Promise.race([
        this.redis.eval(script, 1, this.usersKey, this.keyPrefix, ...args.map(String)),
        late,
      ]);
      this.setUp(true);
      return answer;
    } catch (error) {
      // A script error is a bug or a foreign key under the prefix, not an outage: say which.
      if (error instanceof Error && error.name === 'ReplyError')
        this.logger.error(`Presence script failed: ${error.message}`);
      else this.setUp(false);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private setUp(up: boolean): void {
    if (this.up === up) return;
    const first = this.up === null;
    this.up = up;
    if (!up)
      this.logger.warn(
        `Redis (presence) does not answer within ${this.timeoutMs} ms: presence events are late or missing until it is back`,
      );
    else if (!first) this.logger.log('Redis (presence) answers again');
  }
}
