import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { insertRow, insertRows } from '../database/insert-row';
import type { DurableEventType, MessageEventType } from '../contract/events';
import { OutboxEventEntity } from './outbox-event.entity';
import { OutboxRecipientEntity } from './outbox-recipient.entity';
import type { ConversationEventInput, OutboxEventInput } from './outbox-event-input';

const RECIPIENT_BATCH = 500;

/**
 * Events are appended in the transaction of the change they describe, so an event exists if
 * and only if its change committed. Each is then given a delivery position after it committed
 * (OutboxSequencer); EventStream reads them back.
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
    const payload = JSON.stringify(event.payload);
    if (event.privatePartsSql) {
      await manager.query(
        'INSERT INTO outbox_events (event_id, type, payload, conversation_id, seq, private_payloads, created_at) ' +
          `VALUES (?, ?, ?, ?, ?, ${event.privatePartsSql.sql}, ?)`,
        [eventId, event.type, payload, event.conversationId, event.seq, ...event.privatePartsSql.params, now],
      );
      return eventId;
    }
    await insertRow(manager, OutboxEventEntity, {
      eventId,
      type: event.type,
      payload,
      conversationId: event.conversationId,
      seq: event.seq,
      privatePayloads: event.privateParts ? JSON.stringify(event.privateParts) : null,
      createdAt: now,
    });
    return eventId;
  }
}
