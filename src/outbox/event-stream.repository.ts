import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DeliverableEvent, StoredEventRow, deliverableEventOf, privatePartOf } from './deliverable-event';
import { ConversationAudienceRef } from './conversation-audience';
import { OutboxRecipientEntity } from './outbox-recipient.entity';

/**
 * One user's event stream read back from the outbox: what a resuming connection missed. The
 * live path reads whole batches instead (OutboxSequenceRepository.sequencedBetween).
 */
@Injectable()
export class EventStreamRepository {
  constructor(
    @InjectRepository(OutboxRecipientEntity) private readonly recipients: Repository<OutboxRecipientEntity>,
    private readonly audience: ConversationAudienceRef,
  ) {}

  /**
   * A user's sequenced events after `afterPosition`, oldest first: those addressed to them,
   * and the message events of conversations they are or were in, within the range they could
   * see and, for a former member, written before they left (a later recall of a message they
   * saw is not theirs to hear: it would tell them of the group's later state). "Before they
   * left" compares row IDs, not positions: closeMembers records the highest event row of the
   * conversation under the conversation's lock, which every message event is written under.
   * Who hears a message event is the conversations module's rule (ConversationAudience), which
   * live delivery follows too (OutboxSequenceRepository.withRecipients).
   */
  async listForUser(userId: string, afterPosition: string, limit: number): Promise<DeliverableEvent[]> {
    const shared = this.audience.get().memberEventsSql('e');
    // Each part is limited on its own, so a long absence reads at most `limit` rows of each.
    const rows = (await this.recipients.query(
      'SELECT * FROM (SELECT r.position AS position, r.private_payload AS private_payload, 0 AS from_conversation, e.event_id AS event_id, e.type AS type, e.payload AS payload, e.created_at AS created_at ' +
        'FROM outbox_recipients r JOIN outbox_events e ON e.id = r.event_row_id WHERE r.user_id = ? AND r.position > ? ORDER BY r.position LIMIT ?) personal ' +
        'UNION ALL ' +
        'SELECT * FROM (SELECT e.position AS position, e.private_payloads AS private_payload, 1 AS from_conversation, e.event_id AS event_id, e.type AS type, e.payload AS payload, e.created_at AS created_at ' +
        `FROM ${shared.from} AND e.position > ? WHERE ${shared.forUser} ` +
        'ORDER BY e.position LIMIT ?) shared ' +
        'ORDER BY position LIMIT ?',
      [userId, afterPosition, limit, afterPosition, userId, limit, limit],
    )) as Array<StoredEventRow & { private_payload: string | null; from_conversation: number | string }>;
    return rows.map((row) =>
      deliverableEventOf(
        row,
        row.private_payload ? privatePartOf(row.private_payload, row.from_conversation, userId) : null,
      ),
    );
  }

  /**
   * How many of the user's events lie after `afterPosition`, counted up to `cap` (a resume
   * that is further behind than the backlog gives no replay, and must not read it all to know).
   */
  async countForUser(userId: string, afterPosition: string, cap: number): Promise<number> {
    const shared = this.audience.get().memberEventsSql('e');
    const [row] = (await this.recipients.query(
      'SELECT (SELECT COUNT(*) FROM (SELECT 1 AS one FROM outbox_recipients WHERE user_id = ? AND position > ? LIMIT ?) personal) + ' +
        `(SELECT COUNT(*) FROM (SELECT 1 AS one FROM ${shared.from} AND e.position > ? WHERE ${shared.forUser} LIMIT ?) shared) AS n`,
      [userId, afterPosition, cap, afterPosition, userId, cap],
    )) as Array<{ n: string | number }>;
    return Math.min(Number(row?.n ?? 0), cap);
  }
}
