import { DataSource } from 'typeorm';
import type { DeliverableEvent } from '../../src/outbox/deliverable-event';
import { EventStream } from '../../src/outbox/event-stream.service';
import type { TestApp } from './test-app';

/** A user's delivered events after `after`, once every committed event has its position. */
export async function listDelivered(
  t: TestApp,
  userId: string,
  after: string,
  limit: number,
): Promise<DeliverableEvent[]> {
  await t.app.get(EventStream).flush();
  return t.app.get(EventStream).listForUser(userId, after, limit);
}

/**
 * Whether the outbox delivers the event stored in row `rowId` to a user: what the real-time
 * gateway resumes from. (Group message events have no recipient rows; membership decides.)
 */
export async function isDeliveredTo(t: TestApp, rowId: string | number, userId: string): Promise<boolean> {
  await t.app.get(EventStream).flush();
  const [row] = (await t.app
    .get(DataSource)
    .query('SELECT position FROM outbox_events WHERE id = ?', [String(rowId)])) as Array<{
    position: string | number | null;
  }>;
  if (!row || row.position === null) return false;
  const [first] = await t.app.get(EventStream).listForUser(userId, String(BigInt(row.position) - 1n), 1);
  return first?.position === String(row.position);
}
