import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId } from '../database/columns';

/** Who receives an event; delivery resumes per user from a position. */
@Entity('outbox_recipients')
@Index('IDX_outbox_recipients_user_position', ['userId', 'position'])
export class OutboxRecipientEntity {
  @IdColumn()
  id: string;

  @Column({ type: 'bigint', transformer: bigintId })
  position: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  /** JSON of this recipient's private state (unread, pinned, muted); NULL in shared events. */
  @Column({ name: 'private_payload', type: 'text', nullable: true })
  privatePayload: string | null;
}
