import { DataSource } from 'typeorm';
import { OutboxSequencer } from '../../src/outbox/outbox-sequencer';
import { DeliverableEvent, OutboxRepository } from '../../src/outbox/outbox.repository';
import type { TestApp } from './test-app';

/** A user's delivered events after `after`, once every committed event has its position. */
export async function listDelivered(
  t: TestApp,
  userId: string,
  after: string,
  limit: number,
): Promise<DeliverableEvent[]> {
  await t.app.get(OutboxSequencer).flush();
  return t.app.get(OutboxRepository).listForUser(userId, after, limit);
}

/**
 * Whether the outbox delivers the event stored in row `rowId` to a user: what the real-time
 * gateway resumes from. (Group message events have no recipient rows; membership decides.)
 */
export async function isDeliveredTo(t: TestApp, rowId: string | number, userId: string): Promise<boolean> {
  await t.app.get(OutboxSequencer).flush();
  const [row] = (await t.app
    .get(DataSource)
    .query('SELECT position FROM outbox_events WHERE id = ?', [String(rowId)])) as Array<{
    position: string | number | null;
  }>;
  if (!row || row.position === null) return false;
  const [first] = await t.app.get(OutboxRepository).listForUser(userId, String(BigInt(row.position) - 1n), 1);
  return first?.position === String(row.position);
}
