import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Report, ReportTargetType } from './report';
import { ReportEntity } from './report.entity';

/** Open means pending, as in the queue grouped by target. */
const OPEN = 'pending';

/**
 * The reports as the console's Users and Groups pages ask about them: who has open reports, how
 * many, and a person's or group's latest reports either way. Each read is one index range
 * (IDX_reports_status_target, IDX_reports_target, UQ_reports_reporter_request).
 */
@Injectable()
export class ReportLookupsRepository {
  constructor(@InjectRepository(ReportEntity) private readonly reports: Repository<ReportEntity>) {}

  /** Internal IDs of the targets of this type with an open report, at most `limit`. */
  async openTargetIds(type: ReportTargetType, limit: number): Promise<string[]> {
    const column = type === 'user' ? 'target_user_id' : 'target_group_id';
    const rows = (await this.reports.query(
      `SELECT DISTINCT ${column} AS target FROM reports WHERE status = ? AND target_type = ? AND ${column} IS NOT NULL LIMIT ?`,
      [OPEN, type, limit],
    )) as Array<{ target: string | number }>;
    return rows.map((r) => String(r.target));
  }

  /** Open reports per target, for the targets (internal IDs) of one page. */
  async openCountsAmong(type: ReportTargetType, ids: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (!ids.length) return counts;
    const column = type === 'user' ? 'target_user_id' : 'target_group_id';
    const rows = (await this.reports.query(
      `SELECT ${column} AS target, COUNT(*) AS n FROM reports WHERE status = ? AND target_type = ? AND ${column} IN (${ids
        .map(() => '?')
        .join(', ')}) GROUP BY ${column}`,
      [OPEN, type, ...ids],
    )) as Array<{ target: string | number; n: string | number }>;
    for (const row of rows) counts.set(String(row.target), Number(row.n));
    return counts;
  }

  countAgainst(type: ReportTargetType, publicId: string, openOnly: boolean): Promise<number> {
    return this.reports.countBy({ targetType: type, targetPublicId: publicId, ...(openOnly ? { status: OPEN } : {}) });
  }

  latestAgainst(type: ReportTargetType, publicId: string, limit: number): Promise<Report[]> {
    return this.reports.find({
      where: { targetType: type, targetPublicId: publicId },
      order: { id: 'DESC' },
      take: limit,
    });
  }

  countFiledBy(reporterId: string, openOnly: boolean): Promise<number> {
    return this.reports.countBy({ reporterId, ...(openOnly ? { status: OPEN } : {}) });
  }

  latestFiledBy(reporterId: string, limit: number): Promise<Report[]> {
    return this.reports.find({ where: { reporterId }, order: { id: 'DESC' }, take: limit });
  }
}
