import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { insertRow } from '../database/insert-row';
import { ReportEntity } from './report.entity';

export type NewReport = Omit<ReportEntity, 'id' | 'status' | 'updatedAt'>;

@Injectable()
export class ReportsRepository {
  constructor(@InjectRepository(ReportEntity) private readonly reports: Repository<ReportEntity>) {}

  /** Plain SQL: every report submission starts with this look-up. */
  async findByRequestId(reporterId: string, requestId: string): Promise<ReportEntity | null> {
    const rows = (await this.reports.query(
      'SELECT id, reporter_id, request_id, target_type, target_public_id, target_user_id, target_group_id, reason_code, description, conversation_id, conversation_ref, message_ids, status, created_at, updated_at FROM reports WHERE reporter_id = ? AND request_id = ?',
      [reporterId, requestId],
    )) as Array<Record<string, string | number | null>>;
    const row = rows[0];
    if (!row) return null;
    const id = (value: string | number | null): string | null => (value === null ? null : String(value));
    return this.reports.create({
      id: String(row.id),
      reporterId: String(row.reporter_id),
      requestId: String(row.request_id),
      targetType: row.target_type as ReportEntity['targetType'],
      targetPublicId: String(row.target_public_id),
      targetUserId: id(row.target_user_id),
      targetGroupId: id(row.target_group_id),
      reasonCode: Number(row.reason_code),
      description: String(row.description),
      conversationId: String(row.conversation_id),
      conversationRef: id(row.conversation_ref),
      messageIds: String(row.message_ids),
      status: row.status as ReportEntity['status'],
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    });
  }

  /** New reports start `pending`. A unique violation means the request_id is already used. */
  async insert(report: NewReport): Promise<ReportEntity> {
    const entity = this.reports.create({ ...report, status: 'pending', updatedAt: report.createdAt });
    entity.id = await insertRow(this.reports.manager, ReportEntity, entity);
    return entity;
  }
}
