import { OutboxRepository } from '../../src/outbox/outbox.repository';
import type { TestApp } from './test-app';

/**
 * Whether the outbox delivers the event at `position` to a user: what the real-time gateway
 * will resume from. (Group message events have no recipient rows; membership decides.)
 */
export async function isDeliveredTo(t: TestApp, position: string | number, userId: string): Promise<boolean> {
  const [first] = await t.app.get(OutboxRepository).listForUser(userId, String(BigInt(position) - 1n), 1);
  return first?.position === String(position);
}
