import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { insertRow, insertRows } from '../database/insert-row';
import type { DurableEventMap, DurableEventType, MessageEventType } from '../contract/events';
import { OutboxEventEntity } from './outbox-event.entity';
import { OutboxRecipientEntity } from './outbox-recipient.entity';

export interface OutboxRecipient<T extends DurableEventType = DurableEventType> {
  userId: string;
  /** Private state of this recipient (unread, pinned, muted); omit or null for shared events. */
  private?: DurableEventMap[T]['private'] | null;
}

export interface OutboxEventInput<T extends DurableEventType> {
  type: T;
  payload: DurableEventMap[T]['shared'];
  recipients: Array<OutboxRecipient<T>>;
}

export interface ConversationEventInput<T extends MessageEventType> {
  type: T;
  payload: DurableEventMap[T]['shared'];
  conversationId: string;
  /** The sequence of the message the event is about. */
  seq: string;
  /** One-to-one events: each member's private part (their conversation ID, unread), by internal user ID. */
  privateParts?: Record<string, NonNullable<DurableEventMap[T]['private']>> | null;
}

export interface DeliverableEvent {
  position: string;
  eventId: string;
  type: DurableEventType;
  payload: Record<string, unknown>;
  private: Record<string, unknown> | null;
  createdAt: number;
}

const RECIPIENT_BATCH = 500;

/** Marks the transaction, so that the sequencer is woken when it commits (OutboxCommitSubscriber). */
export const OUTBOX_WRITTEN = 'outboxWritten';

function markWritten(manager: EntityManager): void {
  if (manager.queryRunner) manager.queryRunner.data = { ...manager.queryRunner.data, [OUTBOX_WRITTEN]: true };
}

/** A recipient row holds its private part; a conversation event holds every member's, by user ID. */
export function privatePartOf(
  json: string,
  fromConversation: number | string | boolean,
  userId: string,
): Record<string, unknown> | null {
  const parsed = JSON.parse(json) as Record<string, unknown>;
  if (Number(fromConversation) !== 1) return parsed;
  return (parsed[userId] as Record<string, unknown> | undefined) ?? null;
}

/**
 * Events are appended in the transaction of the change they describe, so an event exists if
 * and only if its change committed. Each is then given a delivery position after it committed
 * (OutboxSequencer), and delivery reads them back per user in position order, resuming after
 * any position.
 */
@Injectable()
export class OutboxRepository {
  constructor(
    @InjectRepository(OutboxRecipientEntity) private readonly recipients: Repository<OutboxRecipientEntity>,
  ) {}

  async append<T extends DurableEventType>(
    manager: EntityManager,
    event: OutboxEventInput<T>,
    now: number,
    eventId: string = randomUUID(),
  ): Promise<string> {
    const eventRowId = await insertRow(manager, OutboxEventEntity, {
      eventId,
      type: event.type,
      payload: JSON.stringify(event.payload),
      createdAt: now,
    });
    const unique = new Map(event.recipients.map((r) => [r.userId, r]));
    const rows = [...unique.values()].map((r) => ({
      eventRowId,
      userId: r.userId,
      privatePayload: r.private ? JSON.stringify(r.private) : null,
    }));
    for (let i = 0; i < rows.length; i += RECIPIENT_BATCH)
      await insertRows(manager, OutboxRecipientEntity, rows.slice(i, i + RECIPIENT_BATCH));
    markWritten(manager);
    return eventId;
  }

  /**
   * A message event (new, recalled, deleted), stored once with its conversation and the
   * message's sequence: every member whose visible range holds that sequence receives it (see
   * listForUser), so a send writes one row whatever the group's size. One-to-one events keep
   * each member's private part in the same row.
   */
  async appendForConversation<T extends MessageEventType>(
    manager: EntityManager,
    event: ConversationEventInput<T>,
    now: number,
    eventId: string = randomUUID(),
  ): Promise<string> {
    await insertRow(manager, OutboxEventEntity, {
      eventId,
      type: event.type,
      payload: JSON.stringify(event.payload),
      conversationId: event.conversationId,
      seq: event.seq,
      privatePayloads: event.privateParts ? JSON.stringify(event.privateParts) : null,
      createdAt: now,
    });
    markWritten(manager);
    return eventId;
  }

  /**
   * A user's sequenced events after `afterPosition`, oldest first: those addressed to them,
   * and the message events of conversations they are or were in, within the range they could
   * see and, for a former member, written before they left (a later recall of a message they
   * saw is not theirs to hear: it would tell them of the group's later state). "Before they
   * left" compares row IDs, not positions: closeMembers records the highest event row of the
   * conversation under the conversation's lock, which every message event is written under.
   * It reads the conversations module's membership rows, the one place that knows that range;
   * OutboxSequenceRepository.withRecipients applies the same rule to live delivery.
   */
  async listForUser(userId: string, afterPosition: string, limit: number): Promise<DeliverableEvent[]> {
    // Each part is limited on its own, so a long absence reads at most `limit` rows of each.
    const rows = (await this.recipients.query(
      'SELECT * FROM (SELECT r.position AS position, r.private_payload AS private_payload, 0 AS from_conversation, e.event_id AS event_id, e.type AS type, e.payload AS payload, e.created_at AS created_at ' +
        'FROM outbox_recipients r JOIN outbox_events e ON e.id = r.event_row_id WHERE r.user_id = ? AND r.position > ? ORDER BY r.position LIMIT ?) personal ' +
        'UNION ALL ' +
        'SELECT * FROM (SELECT e.position AS position, e.private_payloads AS private_payload, 1 AS from_conversation, e.event_id AS event_id, e.type AS type, e.payload AS payload, e.created_at AS created_at ' +
        'FROM conversation_members m JOIN outbox_events e ON e.conversation_id = m.conversation_id AND e.position > ? ' +
        'AND e.seq > m.visible_from_seq AND (m.visible_to_seq IS NULL OR (e.seq <= m.visible_to_seq AND e.id <= m.visible_to_position)) WHERE m.user_id = ? ' +
        'ORDER BY e.position LIMIT ?) shared ' +
        'ORDER BY position LIMIT ?',
      [userId, afterPosition, limit, afterPosition, userId, limit, limit],
    )) as Array<{
      position: string | number;
      private_payload: string | null;
      from_conversation: number | string;
      event_id: string;
      type: string;
      payload: string;
      created_at: string | number;
    }>;
    return rows.map((row) => ({
      position: String(row.position),
      eventId: row.event_id,
      type: row.type as DurableEventType,
      payload: JSON.parse(row.payload) as Record<string, unknown>,
      private: row.private_payload ? privatePartOf(row.private_payload, row.from_conversation, userId) : null,
      createdAt: Number(row.created_at),
    }));
  }

  /**
   * How many of the user's events lie after `afterPosition`, counted up to `cap` (a resume
   * that is further behind than the backlog gives no replay, and must not read it all to know).
   */
  async countForUser(userId: string, afterPosition: string, cap: number): Promise<number> {
    const [row] = (await this.recipients.query(
      'SELECT (SELECT COUNT(*) FROM (SELECT 1 AS one FROM outbox_recipients WHERE user_id = ? AND position > ? LIMIT ?) personal) + ' +
        '(SELECT COUNT(*) FROM (SELECT 1 AS one FROM conversation_members m JOIN outbox_events e ON e.conversation_id = m.conversation_id AND e.position > ? ' +
        'AND e.seq > m.visible_from_seq AND (m.visible_to_seq IS NULL OR (e.seq <= m.visible_to_seq AND e.id <= m.visible_to_position)) WHERE m.user_id = ? LIMIT ?) shared) AS n',
      [userId, afterPosition, cap, afterPosition, userId, cap],
    )) as Array<{ n: string | number }>;
    return Math.min(Number(row?.n ?? 0), cap);
  }
}
