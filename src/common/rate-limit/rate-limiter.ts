import type { RateLimitRule } from '../../config/messaging-config';

/** Counts one request against a per-key fixed window; false when the limit is exceeded. */
export abstract class RateLimiter {
  abstract hit(key: string, rule: RateLimitRule): Promise<boolean>;
  /**
   * Takes back one hit made at `at` (ms) in its window, when that window is still counted: for
   * limits on failures (a sign-in that succeeded is not an attempt to guess). Never below zero.
   */
  abstract refund(key: string, rule: RateLimitRule, at: number): Promise<void>;
  /** Whether the shared store answers within `timeoutMs` (readiness); null when there is none. */
  storeUp(_timeoutMs: number): Promise<boolean | null> {
    return Promise.resolve(null);
  }
  async close(): Promise<void> {}
}

/** One instance: counters in memory, old windows swept as they expire. */
export class MemoryRateLimiter extends RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number; windowMs: number }>();
  private sweepAt = 0;

  constructor(private readonly now: () => number) {
    super();
  }

  hit(key: string, rule: RateLimitRule): Promise<boolean> {
    const now = this.now();
    if (now >= this.sweepAt) this.sweep(now);
    const start = now - (now % rule.windowMs);
    const window = this.windows.get(key);
    if (!window || window.start !== start) {
      this.windows.set(key, { start, count: 1, windowMs: rule.windowMs });
      return Promise.resolve(true);
    }
    window.count += 1;
    return Promise.resolve(window.count <= rule.limit);
  }

  refund(key: string, rule: RateLimitRule, at: number): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.start === at - (at % rule.windowMs) && window.count > 0) window.count -= 1;
    return Promise.resolve();
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.start + window.windowMs <= now) this.windows.delete(key);
    this.sweepAt = now + 10_000;
  }
}
