import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { insertRow } from '../database/insert-row';
import { AdminAuditEntity } from './admin.entities';

export interface AuditFilters {
  adminUsername?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  from?: number;
  to?: number;
}

export type NewAuditRow = Omit<AdminAuditEntity, 'id'>;

@Injectable()
export class AdminAuditRepository {
  constructor(@InjectRepository(AdminAuditEntity) private readonly audit: Repository<AdminAuditEntity>) {}

  /** Always through the change's own transaction. */
  async insert(manager: EntityManager, row: NewAuditRow): Promise<void> {
    await insertRow(manager, AdminAuditEntity, manager.create(AdminAuditEntity, row));
  }

  /** Newest first; `beforeId` is the keyset position (the last row of the previous page). */
  list(filters: AuditFilters, beforeId: string | null, limit: number): Promise<AdminAuditEntity[]> {
    const qb = this.audit.createQueryBuilder('a');
    if (filters.adminUsername !== undefined) qb.andWhere('a.admin_username = :u', { u: filters.adminUsername });
    if (filters.action !== undefined) qb.andWhere('a.action = :action', { action: filters.action });
    if (filters.targetType !== undefined) qb.andWhere('a.target_type = :tt', { tt: filters.targetType });
    if (filters.targetId !== undefined) qb.andWhere('a.target_id = :tid', { tid: filters.targetId });
    if (filters.from !== undefined) qb.andWhere('a.created_at >= :from', { from: filters.from });
    if (filters.to !== undefined) qb.andWhere('a.created_at < :to', { to: filters.to });
    if (beforeId !== null) qb.andWhere('a.id < :beforeId', { beforeId });
    return qb.orderBy('a.id', 'DESC').limit(limit).getMany();
  }

  /**
   * A report's history, newest first: the rows about the report itself and the rows of actions
   * taken from it (report_id). Two index reads merged, rather than one OR neither index serves.
   */
  async listForReport(reportId: string, limit: number): Promise<AdminAuditEntity[]> {
    const [about, from] = await Promise.all([
      this.audit
        .createQueryBuilder('a')
        .where('a.target_type = :tt AND a.target_id = :tid', { tt: 'report', tid: reportId })
        .orderBy('a.id', 'DESC')
        .limit(limit)
        .getMany(),
      this.audit
        .createQueryBuilder('a')
        .where('a.report_id = :rid', { rid: reportId })
        .orderBy('a.id', 'DESC')
        .limit(limit)
        .getMany(),
    ]);
    const byId = new Map([...about, ...from].map((row) => [String(row.id), row]));
    return [...byId.values()].sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1)).slice(0, limit);
  }
}
