import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/**
 * One stored client error. Similar reports within one minute are merged into one record
 * (`merge_key` is unique), raising `occurrence_count`. Text fields are stored scrubbed.
 */
@Entity('client_errors')
@Index('IDX_client_errors_user_last_seen', ['userId', 'lastSeenAt'])
/** A group's occurrences, newest first (the console's group page). */
@Index('IDX_client_errors_group', ['errorCode', 'platform', 'buildId', 'lastSeenAt', 'id'])
export class ClientErrorEntity {
  @IdColumn()
  id: string;

  /** The event_id of the first report merged into this record. */
  @Column({ name: 'event_id', type: 'varchar', length: 36 })
  eventId: string;

  @Index('UQ_client_errors_merge_key', { unique: true })
  @Column({ name: 'merge_key', type: 'varchar', length: 64 })
  mergeKey: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  username: string | null;

  @Column({ name: 'device_id', type: 'varchar', length: 128 })
  deviceId: string;

  @Column({ type: 'varchar', length: 16 })
  platform: string;

  @Column({ type: 'varchar', length: 16 })
  severity: string;

  @Column({ name: 'error_code', type: 'varchar', length: 128 })
  errorCode: string;

  @Column({ type: 'text' })
  message: string;

  @Column({ name: 'stack_trace', type: 'text', nullable: true })
  stackTrace: string | null;

  @Column({ type: 'varchar', length: 128 })
  operation: string;

  @Column({ name: 'build_id', type: 'varchar', length: 128, nullable: true })
  buildId: string | null;

  @Column({ name: 'conversation_id', type: 'varchar', length: 512, nullable: true })
  conversationId: string | null;

  @Column({ name: 'message_id', type: 'varchar', length: 128, nullable: true })
  messageId: string | null;

  @Column({ name: 'trace_id', type: 'varchar', length: 36, nullable: true })
  traceId: string | null;

  @Column({ type: 'boolean' })
  recovered: boolean;

  /** JSON object. */
  @Column({ type: 'text' })
  context: string;

  @Column({ name: 'occurrence_count', type: 'int', default: 1 })
  occurrenceCount: number;

  @Column({ name: 'first_seen_at', type: 'bigint', transformer: msTime })
  firstSeenAt: number;

  /** Retention prunes by this time (IDX_client_errors_last_seen_at). */
  @Index('IDX_client_errors_last_seen_at')
  @Column({ name: 'last_seen_at', type: 'bigint', transformer: msTime })
  lastSeenAt: number;
}
