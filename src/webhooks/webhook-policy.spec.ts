import { afterFailure, backoffMs, breakerState } from './webhook-policy';

describe('webhook policy', () => {
  it('backs off exponentially with equal jitter, capped', () => {
    expect(backoffMs(1, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffMs(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffMs(3, 1000, 60_000, () => 1)).toBe(4000);
    expect(backoffMs(40, 1000, 60_000, () => 1)).toBe(60_000);
    expect(backoffMs(40, 1000, 60_000, () => 0)).toBe(30_000);
  });

  it('opens the breaker at the threshold and probes after the cool-down', () => {
    let state = { failures: 0, openUntil: null as number | null };
    state = afterFailure(state.failures, 3, 100, 0);
    state = afterFailure(state.failures, 3, 100, 0);
    expect(breakerState(state.failures, state.openUntil, 3, 0)).toBe('closed');
    state = afterFailure(state.failures, 3, 100, 10);
    expect(state.openUntil).toBe(110);
    expect(breakerState(state.failures, state.openUntil, 3, 50)).toBe('open');
    expect(breakerState(state.failures, state.openUntil, 3, 110)).toBe('half_open');
    expect(afterFailure(state.failures, 3, 100, 120).openUntil).toBe(220);
    expect(breakerState(0, null, 3, 500)).toBe('closed');
  });
});
