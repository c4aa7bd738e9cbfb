import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { EntityManager, MoreThan, Repository } from 'typeorm';
import { insertRow, insertRows } from '../database/insert-row';
import { OutboxEventEntity } from './outbox-event.entity';
import { OutboxRecipientEntity } from './outbox-recipient.entity';

export interface OutboxRecipient {
  userId: string;
  /** Private state of this recipient (unread, pinned, muted); omit or null for shared events. */
  private?: Record<string, unknown> | null;
}

export interface OutboxEventInput {
  type: string;
  payload: Record<string, unknown>;
  recipients: OutboxRecipient[];
}

export interface DeliverableEvent {
  position: string;
  eventId: string;
  type: string;
  payload: Record<string, unknown>;
  private: Record<string, unknown> | null;
  createdAt: number;
}

const RECIPIENT_BATCH = 500;

/**
 * Events are appended in the transaction of the change they describe, so an event exists if
 * and only if its change committed. Delivery reads them back per user in position order and
 * can resume after any position.
 */
@Injectable()
export class OutboxRepository {
  constructor(@InjectRepository(OutboxRecipientEntity) private readonly recipients: Repository<OutboxRecipientEntity>) {}

  async append(manager: EntityManager, event: OutboxEventInput, now: number, eventId: string = randomUUID()): Promise<string> {
    const position = await insertRow(manager, OutboxEventEntity, { eventId, type: event.type, payload: JSON.stringify(event.payload), createdAt: now });
    const unique = new Map(event.recipients.map((r) => [r.userId, r]));
    const rows = [...unique.values()].map((r) => ({ position, userId: r.userId, privatePayload: r.private ? JSON.stringify(r.private) : null }));
    for (let i = 0; i < rows.length; i += RECIPIENT_BATCH) await insertRows(manager, OutboxRecipientEntity, rows.slice(i, i + RECIPIENT_BATCH));
    return eventId;
  }

  /**
   * A shared event for everyone currently in a conversation. The recipients are copied inside
   * the database (INSERT … SELECT from conversation_members), so a large group's fan-out costs
   * one statement and never passes through the application while the send holds its lock.
   */
  async appendForConversation(manager: EntityManager, type: string, payload: Record<string, unknown>, conversationId: string, now: number, eventId: string = randomUUID()): Promise<string> {
    const position = await insertRow(manager, OutboxEventEntity, { eventId, type, payload: JSON.stringify(payload), createdAt: now });
    await manager.query(
      'INSERT INTO outbox_recipients (position, user_id, private_payload) SELECT ?, user_id, NULL FROM conversation_members WHERE conversation_id = ? AND visible_to_seq IS NULL',
      [position, conversationId],
    );
    return eventId;
  }

  /** A user's events after `afterPosition`, oldest first. */
  async listForUser(userId: string, afterPosition: string, limit: number): Promise<DeliverableEvent[]> {
    const rows = await this.recipients
      .createQueryBuilder('r')
      .innerJoin(OutboxEventEntity, 'e', 'e.id = r.position')
      .select(['r.position AS position', 'r.private_payload AS private_payload', 'e.event_id AS event_id', 'e.type AS type', 'e.payload AS payload', 'e.created_at AS created_at'])
      .where({ userId, position: MoreThan(afterPosition) })
      .orderBy('r.position', 'ASC')
      .limit(limit)
      .getRawMany<{ position: string | number; private_payload: string | null; event_id: string; type: string; payload: string; created_at: string | number }>();
    return rows.map((row) => ({
      position: String(row.position),
      eventId: row.event_id,
      type: row.type,
      payload: JSON.parse(row.payload) as Record<string, unknown>,
      private: row.private_payload ? (JSON.parse(row.private_payload) as Record<string, unknown>) : null,
      createdAt: Number(row.created_at),
    }));
  }
}
