import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/** Each (user, event_id) ever accepted, and the record it was counted into: the idempotency key. */
@Entity('client_error_submissions')
@Index('UQ_client_error_submissions_user_event', ['userId', 'eventId'], { unique: true })
export class ClientErrorSubmissionEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  @Column({ name: 'event_id', type: 'varchar', length: 36 })
  eventId: string;

  @Column({ name: 'record_id', type: 'bigint', transformer: bigintId })
  recordId: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
