/**
 * The wait before attempt `attempt + 1` after `attempt` failures: exponential from `baseMs`,
 * capped at `maxMs`, then "equal jitter" (half fixed, half random) so that endpoints failing
 * together do not retry in step, and a wait never shrinks below half its step.
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const step = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(step / 2 + (step / 2) * random());
}
