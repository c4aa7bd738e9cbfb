import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';
import type { Report, ReportStatus, ReportTargetType } from './report';

// Kept for the reports module's own files; other modules import them from report.ts.
export type { ReportStatus, ReportTargetType };

/** An abuse report. (reporter, request_id) is the idempotency key, across both target types. */
@Entity('reports')
@Index('UQ_reports_reporter_request', ['reporterId', 'requestId'], { unique: true })
@Index('IDX_reports_status_created', ['status', 'createdAt'])
@Index('IDX_reports_status_target', ['status', 'targetType', 'targetPublicId', 'createdAt', 'reporterId', 'reasonCode'])
@Index('IDX_reports_target', ['targetType', 'targetPublicId', 'status', 'createdAt', 'reporterId', 'reasonCode'])
export class ReportEntity implements Report {
  @IdColumn()
  id: string;

  @Column({ name: 'reporter_id', type: 'bigint', transformer: bigintId })
  reporterId: string;

  @Column({ name: 'request_id', type: 'varchar', length: 64 })
  requestId: string;

  @Column({ name: 'target_type', type: 'varchar', length: 8 })
  targetType: ReportTargetType;

  /** The target as the reporter named it (external user ID or public group ID). */
  @Column({ name: 'target_public_id', type: 'varchar', length: 64 })
  targetPublicId: string;

  @Column({ name: 'target_user_id', type: 'bigint', nullable: true, transformer: bigintId })
  targetUserId: string | null;

  @Column({ name: 'target_group_id', type: 'bigint', nullable: true, transformer: bigintId })
  targetGroupId: string | null;

  @Column({ name: 'reason_code', type: 'int' })
  reasonCode: number;

  @Column({ type: 'varchar', length: 1000, default: '' })
  description: string;

  /** As sent by the reporter (viewer-relative for one-to-one conversations); '' when none. */
  @Column({ name: 'conversation_id', type: 'varchar', length: 256, default: '' })
  conversationId: string;

  /** Internal ID of that conversation, resolved at submission. */
  @Column({ name: 'conversation_ref', type: 'bigint', nullable: true, transformer: bigintId })
  conversationRef: string | null;

  /** JSON array of evidence message IDs, sorted ascending. */
  @Column({ name: 'message_ids', type: 'varchar', length: 512, default: '[]' })
  messageIds: string;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: ReportStatus;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}
