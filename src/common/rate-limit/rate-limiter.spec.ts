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
});
