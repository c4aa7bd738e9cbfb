import type Redis from 'ioredis';

/**
 * Reconnect delays for every Redis client of the service: 200 ms doubling to a 5 s cap, so an
 * outage costs a reconnect attempt every few seconds, not a busy loop.
 */
export function redisReconnectDelay(attempt: number): number {
  return Math.min(100 * 2 ** Math.min(attempt, 6), 5000);
}

/** Ends a client: QUIT when connected (pending replies arrive first), otherwise stops any reconnect loop at once. Never rejects. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') return redis.disconnect();
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
