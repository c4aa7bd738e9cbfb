import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { dialectOf } from '../database/sql-dialect';
import {
  EventRecipient,
  SequencedEvent,
  StoredEventRow,
  privatePartOf,
  privatePartsOf,
  sequencedEventOf,
} from './deliverable-event';
import { ConversationAudienceRef } from './conversation-audience';
import { OutboxEventEntity } from './outbox-event.entity';

interface EventRow extends StoredEventRow {
  id: string | number;
  conversation_id: string | number | null;
  seq: string | number | null;
  private_payloads: string | null;
}

const EVENT_COLUMNS = 'id, position, event_id, type, payload, conversation_id, seq, private_payloads, created_at';

/** A stored event as its text, for readers that forward the shared part as it is (webhooks). */
export interface SharedStoredEvent {
  position: string;
  eventId: string;
  type: string;
  /** The shared part's JSON, as stored. */
  payload: string;
  createdAt: number;
  /** One-to-one message events: both members' internal IDs; null otherwise. */
  memberIds: string[] | null;
}

function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/**
 * The statements of the delivery sequence (see OutboxSequencer): which committed events still
 * wait for a position, assigning positions, the head, and reading sequenced events back with
 * their recipients for live delivery.
 */
@Injectable()
export class OutboxSequenceRepository {
  constructor(
    @InjectRepository(OutboxEventEntity) private readonly events: Repository<OutboxEventEntity>,
    private readonly audience: ConversationAudienceRef,
  ) {}

  /** The last position assigned. */
  async head(): Promise<string> {
    const [row] = (await this.events.query('SELECT last_position FROM outbox_sequence WHERE id = 1')) as Array<{
      last_position: string | number;
    }>;
    return String(row?.last_position ?? 0);
  }

  /** Locks the sequence row: position assignment is one writer at a time, on every instance. */
  async lockHead(manager: EntityManager): Promise<string> {
    const [row] = (await manager.query(
      `SELECT last_position FROM outbox_sequence WHERE id = 1${dialectOf(manager).forUpdate}`,
    )) as Array<{ last_position: string | number }>;
    return String(row?.last_position ?? 0);
  }

  /**
   * Committed events without a position, oldest row first. A plain (non-locking) read: an
   * event whose transaction is still open is invisible here and is never waited on; it gets
   * a position, higher than every one given now, in a later round after it commits.
   */
  async unsequenced(manager: EntityManager, limit: number): Promise<EventRow[]> {
    return (await manager.query(
      `SELECT ${EVENT_COLUMNS} FROM outbox_events WHERE position IS NULL ORDER BY id LIMIT ?`,
      [limit],
    )) as EventRow[];
  }

  /** Creation time of the oldest committed event without a position, or null when there is none. */
  async oldestUnsequenced(): Promise<number | null> {
    const rows = (await this.events.query(
      'SELECT created_at FROM outbox_events WHERE position IS NULL ORDER BY id LIMIT 1',
    )) as Array<{ created_at: string | number }>;
    return rows.length ? Number(rows[0].created_at) : null;
  }

  /** Gives `rows` the positions after `head`, in order, and copies them to their recipient rows. */
  async assign(manager: EntityManager, rows: EventRow[], head: string): Promise<string> {
    let next = BigInt(head);
    const pairs: Array<[string, string]> = rows.map((row) => [String(row.id), String((next += 1n))]);
    const cases = pairs.map(() => 'WHEN ? THEN ?').join(' ');
    const flat = pairs.flat();
    const ids = pairs.map(([id]) => id);
    await manager.query(
      `UPDATE outbox_events SET position = CASE id ${cases} END WHERE id IN (${placeholders(ids.length)})`,
      [...flat, ...ids],
    );
    // Message events have no recipient rows (membership decides): only addressed events do.
    const addressed = pairs.filter((_pair, i) => rows[i].conversation_id === null);
    if (addressed.length) {
      const addressedCases = addressed.map(() => 'WHEN ? THEN ?').join(' ');
      await manager.query(
        `UPDATE outbox_recipients SET position = CASE event_row_id ${addressedCases} END WHERE event_row_id IN (${placeholders(addressed.length)})`,
        [...addressed.flat(), ...addressed.map(([id]) => id)],
      );
    }
    const last = String(next);
    await manager.query('UPDATE outbox_sequence SET last_position = ? WHERE id = 1', [last]);
    for (let i = 0; i < rows.length; i++) rows[i].position = pairs[i][1];
    return last;
  }

  /**
   * Up to `limit` sequenced events after `after`, in position order, without their recipients:
   * the shared part, and for one-to-one message events the two members' internal IDs (the keys
   * of the private parts), which webhooks name since the shared part does not.
   */
  async sharedAfter(after: string, limit: number): Promise<SharedStoredEvent[]> {
    const rows = (await this.events.query(
      `SELECT ${EVENT_COLUMNS} FROM outbox_events WHERE position > ? ORDER BY position LIMIT ?`,
      [after, limit],
    )) as EventRow[];
    return rows.map((row) => ({
      position: String(row.position),
      eventId: row.event_id,
      type: row.type,
      payload: row.payload,
      createdAt: Number(row.created_at),
      memberIds:
        row.conversation_id !== null && row.private_payloads
          ? Object.keys(privatePartsOf(row.private_payloads) ?? {})
          : null,
    }));
  }

  /** Creation time of the first sequenced event after `after`, or null when there is none. */
  async firstCreatedAfter(after: string): Promise<number | null> {
    const rows = (await this.events.query(
      'SELECT created_at FROM outbox_events WHERE position > ? ORDER BY position LIMIT 1',
      [after],
    )) as Array<{ created_at: string | number }>;
    return rows.length ? Number(rows[0].created_at) : null;
  }

  /** Sequenced events in (after, upTo], in position order, with their recipients. */
  async sequencedBetween(after: string, upTo: string, limit: number): Promise<SequencedEvent[]> {
    const rows = (await this.events.query(
      `SELECT ${EVENT_COLUMNS} FROM outbox_events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?`,
      [after, upTo, limit],
    )) as EventRow[];
    return this.withRecipients(rows);
  }

  /**
   * Resolves who receives each event: the recipient rows of addressed events and, for message
   * events, whom the conversations module names (ConversationAudience, the rule replay follows
   * too: EventStreamRepository.listForUser).
   */
  async withRecipients(rows: EventRow[]): Promise<SequencedEvent[]> {
    if (rows.length === 0) return [];
    const addressed = rows.filter((row) => row.conversation_id === null).map((row) => String(row.id));
    const byEvent = new Map<string, EventRecipient[]>();
    if (addressed.length) {
      const recipientRows = (await this.events.query(
        `SELECT event_row_id, user_id, private_payload FROM outbox_recipients WHERE event_row_id IN (${placeholders(addressed.length)})`,
        addressed,
      )) as Array<{ event_row_id: string | number; user_id: string | number; private_payload: string | null }>;
      for (const r of recipientRows) {
        const list = byEvent.get(String(r.event_row_id)) ?? [];
        list.push({
          userId: String(r.user_id),
          private: r.private_payload ? privatePartOf(r.private_payload, 0, String(r.user_id)) : null,
        });
        byEvent.set(String(r.event_row_id), list);
      }
    }
    const hearing = await this.audience.get().recipientsOf(
      this.events.manager,
      rows
        .filter((row) => row.conversation_id !== null)
        .map((row) => ({
          conversationId: String(row.conversation_id),
          seq: BigInt(row.seq ?? 0),
          rowId: BigInt(row.id),
        })),
    );
    return rows.map((row) =>
      sequencedEventOf(row, () => {
        if (row.conversation_id === null) return byEvent.get(String(row.id)) ?? [];
        // Parsed once per event: each recipient's part is then an object of this one parse.
        const parts = privatePartsOf(row.private_payloads);
        const recipients: EventRecipient[] = [];
        for (const userId of hearing.get(BigInt(row.id)) ?? [])
          recipients.push({ userId, private: parts ? (parts[userId] ?? null) : null });
        return recipients;
      }),
    );
  }

  /**
   * Deletes up to `limit` sequenced events created before `cutoff`, and their recipient rows;
   * answers how many events went. Unsequenced events are never pruned (they are not delivered yet),
   * nor events after `upToPosition` when given (webhook endpoints have not handled them yet).
   */
  async prune(cutoff: number, limit: number, upToPosition: string | null = null): Promise<number> {
    const held = upToPosition === null ? '' : ' AND position <= ?';
    const rows = (await this.events.query(
      `SELECT id FROM outbox_events WHERE created_at < ? AND position IS NOT NULL${held} ORDER BY created_at LIMIT ?`,
      upToPosition === null ? [cutoff, limit] : [cutoff, upToPosition, limit],
    )) as Array<{
      id: string | number;
    }>;
    const ids = rows.map((row) => String(row.id));
    if (ids.length === 0) return 0;
    await this.events.query(`DELETE FROM outbox_recipients WHERE event_row_id IN (${placeholders(ids.length)})`, ids);
    await this.events.query(`DELETE FROM outbox_events WHERE id IN (${placeholders(ids.length)})`, ids);
    return ids.length;
  }
}
