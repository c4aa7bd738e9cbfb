import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { insertRow } from '../database/insert-row';
import type { ReportFilters, ReportStatus } from './report';
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

  /** Every report the user filed, oldest first (export: a user files few, REPORT rate-limited). */
  findByReporter(reporterId: string): Promise<ReportEntity[]> {
    return this.reports.find({ where: { reporterId }, order: { id: 'ASC' } });
  }

  findById(id: string): Promise<ReportEntity | null> {
    return this.reports.findOneBy({ id });
  }

  /** The admin console's queue, newest first, before the report `beforeId`. */
  list(filters: ReportFilters, beforeId: string | null, limit: number): Promise<ReportEntity[]> {
    const qb = this.reports.createQueryBuilder('r');
    if (filters.status !== undefined) qb.andWhere('r.status = :status', { status: filters.status });
    if (filters.targetType !== undefined) qb.andWhere('r.target_type = :tt', { tt: filters.targetType });
    if (filters.reasonCode !== undefined) qb.andWhere('r.reason_code = :reason', { reason: filters.reasonCode });
    if (filters.from !== undefined) qb.andWhere('r.created_at >= :from', { from: filters.from });
    if (filters.to !== undefined) qb.andWhere('r.created_at < :to', { to: filters.to });
    if (beforeId !== null) qb.andWhere('r.id < :beforeId', { beforeId });
    return qb.orderBy('r.id', 'DESC').limit(limit).getMany();
  }

  countByStatus(status: ReportStatus): Promise<number> {
    return this.reports.countBy({ status });
  }

  /** Moves the report only if it is still in `from` (compare-and-set); false when another change came first. */
  async transition(
    manager: EntityManager,
    id: string,
    from: ReportStatus,
    to: ReportStatus,
    now: number,
  ): Promise<boolean> {
    const result = await manager.update(ReportEntity, { id, status: from }, { status: to, updatedAt: now });
    return (result.affected ?? 0) === 1;
  }

  /** New reports start `pending`. A unique violation means the request_id is already used. */
  async insert(manager: EntityManager, report: NewReport): Promise<ReportEntity> {
    const entity = this.reports.create({ ...report, status: 'pending', updatedAt: report.createdAt });
    entity.id = await insertRow(manager, ReportEntity, entity);
    return entity;
  }
}
