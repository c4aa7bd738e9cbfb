import { MemoryRateLimiter } from './rate-limiter';

describe('MemoryRateLimiter', () => {
  it('allows the limit per window and starts afresh in the next window', async () => {
    let now = 10_000;
    const limiter = new MemoryRateLimiter(() => now);
    const rule = { limit: 3, windowMs: 1000 };
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await limiter.hit('send:1', rule));
    expect(hits).toEqual([true, true, true, false]);
    expect(await limiter.hit('send:2', rule)).toBe(true);
    now += 1000;
    expect(await limiter.hit('send:1', rule)).toBe(true);
  });

  it('takes back a hit in its own window only, never below zero', async () => {
    let now = 60_000;
    const limiter = new MemoryRateLimiter(() => now);
    const rule = { limit: 2, windowMs: 60_000 };
    expect(await limiter.hit('login:a', rule)).toBe(true);
    expect(await limiter.hit('login:a', rule)).toBe(true);
    await limiter.refund('login:a', rule, now);
    await limiter.refund('login:a', rule, now);
    await limiter.refund('login:a', rule, now);
    expect([await limiter.hit('login:a', rule), await limiter.hit('login:a', rule)]).toEqual([true, true]);
    expect(await limiter.hit('login:a', rule)).toBe(false);
    // A refund for the previous window does not lower this one.
    const before = now;
    now += 60_000;
    expect(await limiter.hit('login:a', rule)).toBe(true);
    expect(await limiter.hit('login:a', rule)).toBe(true);
    await limiter.refund('login:a', rule, before);
    expect(await limiter.hit('login:a', rule)).toBe(false);
  });
});
