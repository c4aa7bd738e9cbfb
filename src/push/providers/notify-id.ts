import { createHash } from 'node:crypto';

/**
 * A non-negative 31-bit notification ID from an event ID, for providers whose replacement key is
 * an integer (Xiaomi notify_id, Huawei v3 notifyId). The same event always gives the same ID, so a
 * re-sent notification replaces the one shown instead of adding a second.
 */
export function notifyIdFromEvent(eventId: string): number {
  return createHash('sha256').update(eventId).digest().readUInt32BE(0) & 0x7fffffff;
}
