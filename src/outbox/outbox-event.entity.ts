import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/**
 * An event written in the same transaction as the change it describes. `id` is allocated at
 * insert; `position`, the delivery order, only once the transaction committed (OutboxSequencer).
 */
@Entity('outbox_events')
@Index('IDX_outbox_events_conversation', ['conversationId', 'id'])
@Index('IDX_outbox_events_conversation_position', ['conversationId', 'position'])
@Index('IDX_outbox_events_created_at', ['createdAt'])
export class OutboxEventEntity {
  @IdColumn()
  id: string;

  /** NULL until sequenced. */
  @Index('UQ_outbox_events_position', { unique: true })
  @Column({ type: 'bigint', nullable: true, transformer: bigintId })
  position: string | null;

  @Index('UQ_outbox_events_event_id', { unique: true })
  @Column({ name: 'event_id', type: 'varchar', length: 36 })
  eventId: string;

  @Column({ type: 'varchar', length: 48 })
  type: string;

  /** JSON shared by every recipient. */
  @Column({ type: 'text' })
  payload: string;

  /**
   * Message events: stored once, delivered to the members whose visible range holds `seq` (no
   * recipient rows). NULL for events with recipient rows.
   */
  @Column({ name: 'conversation_id', type: 'bigint', nullable: true, transformer: bigintId })
  conversationId: string | null;

  @Column({ type: 'bigint', nullable: true, transformer: bigintId })
  seq: string | null;

  /** One-to-one message events: JSON of each member's private part, by internal user ID. */
  @Column({ name: 'private_payloads', type: 'text', nullable: true })
  privatePayloads: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
