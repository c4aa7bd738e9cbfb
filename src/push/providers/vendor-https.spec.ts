import { retryAfterMs } from './vendor-https';

describe('retryAfterMs', () => {
  const now = Date.UTC(2026, 0, 1);

  it('reads seconds and HTTP dates, ignoring what it cannot use', () => {
    expect(retryAfterMs('30', now)).toBe(30_000);
    expect(retryAfterMs(new Date(now + 5000).toUTCString(), now)).toBe(5000);
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(new Date(now - 5000).toUTCString(), now)).toBeUndefined();
  });
});
