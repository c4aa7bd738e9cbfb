import { FailureBackoff } from './failure-backoff';

describe('FailureBackoff', () => {
  it('keeps a failing item out for 1 s, then doubling up to the cap', () => {
    const backoff = new FailureBackoff(1000, 8000);
    expect(backoff.failed('a', 0)).toBe(1000);
    expect(backoff.waiting(999)).toEqual(['a']);
    expect(backoff.waiting(1000)).toEqual([]);
    expect(backoff.failed('a', 1000)).toBe(3000);
    expect(backoff.failed('a', 3000)).toBe(7000);
    expect(backoff.failed('a', 7000)).toBe(15000);
    expect(backoff.failed('a', 15000)).toBe(23000);
  });

  it('forgets an item once it succeeds', () => {
    const backoff = new FailureBackoff();
    backoff.failed('a', 0);
    backoff.failed('a', 1000);
    backoff.succeeded('a');
    expect(backoff.waiting(1500)).toEqual([]);
    expect(backoff.failed('a', 2000)).toBe(3000);
  });

  it('lets the others through while failing items wait', () => {
    const backoff = new FailureBackoff();
    for (const id of ['1', '2', '3']) backoff.failed(id, 0);
    const due = ['1', '2', '3', '4', '5'];
    const waiting = new Set(backoff.waiting(500));
    expect(due.filter((id) => !waiting.has(id))).toEqual(['4', '5']);
  });

  it('forgets entries that were not due again long after their retry time, and bounds its size', () => {
    const backoff = new FailureBackoff(1000, 60_000, 2);
    backoff.failed('gone', 0);
    expect(backoff.waiting(1000 + 60_001)).toEqual([]);
    expect(backoff.failed('gone', 70_000)).toBe(71_000); // a first failure again
    backoff.failed('b', 70_000);
    backoff.failed('c', 70_000);
    expect(backoff.waiting(70_500).sort()).toEqual(['b', 'c']);
  });
});
