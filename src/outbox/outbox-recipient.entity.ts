import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId } from '../database/columns';

/** Who receives an event; delivery resumes per user from a position. */
@Entity('outbox_recipients')
@Index('IDX_outbox_recipients_user_position', ['userId', 'position'])
export class OutboxRecipientEntity {
  @IdColumn()
  id: string;

  @Index('IDX_outbox_recipients_event_row')
  @Column({ name: 'event_row_id', type: 'bigint', transformer: bigintId })
  eventRowId: string;

  /** The event's position, copied when it is sequenced (NULL until then). */
  @Column({ type: 'bigint', nullable: true, transformer: bigintId })
  position: string | null;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  /** JSON of this recipient's private state (unread, pinned, muted); NULL in shared events. */
  @Column({ name: 'private_payload', type: 'text', nullable: true })
  privatePayload: string | null;
}
