import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/**
 * Each (user, event_id) ever accepted, and the merge key of the record it was counted into:
 * the idempotency key. Referring to the record by merge key lets the submission be claimed
 * before the record row is locked.
 */
@Entity('client_error_submissions')
@Index('UQ_client_error_submissions_user_event', ['userId', 'eventId'], { unique: true })
@Index('IDX_client_error_submissions_rolled_up', ['rolledUp', 'createdAt'])
export class ClientErrorSubmissionEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  @Column({ name: 'event_id', type: 'varchar', length: 36 })
  eventId: string;

  @Column({ name: 'merge_key', type: 'varchar', length: 64 })
  mergeKey: string;

  /** Retention prunes by this time (IDX_client_error_submissions_created_at). */
  @Index('IDX_client_error_submissions_created_at')
  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  /**
   * Whether the submission is counted in its client error group yet (ClientErrorRollups). The
   * report inserts 0; the default 1 is for rows of releases that counted in the report's transaction.
   */
  @Column({ name: 'rolled_up', type: 'boolean', default: true })
  rolledUp: boolean;
}
