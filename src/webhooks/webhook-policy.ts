import type { WebhookBreakerState } from '../contract/webhooks';
export { backoffMs } from '../common/backoff';

/** closed: delivering; open: waiting out the cool-down; half_open: the next attempt is a probe. */
export function breakerState(
  failures: number,
  openUntil: number | null,
  threshold: number,
  now: number,
): WebhookBreakerState {
  if (failures < threshold || openUntil === null) return 'closed';
  return now < openUntil ? 'open' : 'half_open';
}

/** After a failure: the failures counted, and until when the breaker is open (null: closed). */
export function afterFailure(
  failures: number,
  threshold: number,
  cooldownMs: number,
  now: number,
): { failures: number; openUntil: number | null } {
  const counted = failures + 1;
  // At the threshold the breaker opens; a failed half-open probe opens it again for one more cool-down.
  return { failures: counted, openUntil: counted >= threshold ? now + cooldownMs : null };
}
