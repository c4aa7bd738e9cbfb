import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import {
  REPORT_TARGET_REPORTERS,
  ReportTargetPosition,
  ReportTargetSort,
  ReportTargetStatus,
  ReportTargetSummary,
  ReportTargetType,
} from './report';
import { ReportEntity } from './report.entity';

type Row = Record<string, string | number | null>;
type Target = { type: string; id: string };

/** The aggregate each sort orders by, as SQL (HAVING cannot use a select alias everywhere). */
const SORT_SQL: Record<ReportTargetSort, string> = { count: 'COUNT(*)', latest: 'MAX(created_at)' };

const key = (targetType: string, targetPublicId: string): string => `${targetType}\u0000${targetPublicId}`;

/**
 * The reports grouped by their target (user or group, as the reporter named it): one GROUP BY
 * over the reports the status filter takes, read from IDX_reports_status_target, keyset-paged on
 * the aggregate (HAVING) so a page never repeats or skips a target while the counts stand still.
 */
@Injectable()
export class ReportTargetsRepository {
  constructor(@InjectRepository(ReportEntity) private readonly reports: Repository<ReportEntity>) {}

  async page(
    status: ReportTargetStatus,
    sort: ReportTargetSort,
    after: ReportTargetPosition | null,
    limit: number,
  ): Promise<ReportTargetSummary[]> {
    const where = status === 'open' ? "WHERE status = 'pending'" : '';
    const value = SORT_SQL[sort];
    const params: Array<string | number> = [];
    let having = '';
    if (after) {
      having =
        `HAVING ${value} < ? OR (${value} = ? AND ` +
        '(target_type > ? OR (target_type = ? AND target_public_id > ?)))';
      params.push(after.value, after.value, after.targetType, after.targetType, after.targetPublicId);
    }
    params.push(limit);
    const rows = (await this.reports.query(
      'SELECT target_type, target_public_id, COUNT(*) AS report_count, ' +
        "SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END) AS open_count, " +
        'COUNT(DISTINCT reporter_id) AS reporter_count, MIN(created_at) AS first_at, MAX(created_at) AS last_at ' +
        `FROM reports ${where} GROUP BY target_type, target_public_id ${having} ` +
        `ORDER BY ${value} DESC, target_type ASC, target_public_id ASC LIMIT ?`,
      params,
    )) as Row[];
    if (rows.length === 0) return [];
    const targets = rows.map((r) => ({ type: String(r.target_type), id: String(r.target_public_id) }));
    const [reasons, reporters] = await Promise.all([
      this.topReasons(status, targets),
      this.firstReporters(status, targets),
    ]);
    return rows.map((r) => {
      const k = key(String(r.target_type), String(r.target_public_id));
      return {
        targetType: r.target_type as ReportTargetType,
        targetPublicId: String(r.target_public_id),
        reportCount: Number(r.report_count),
        openCount: Number(r.open_count),
        reporterCount: Number(r.reporter_count),
        firstReportAt: Number(r.first_at),
        lastReportAt: Number(r.last_at),
        topReasonCode: reasons.get(k) ?? 0,
        firstReporterIds: reporters.get(k) ?? [],
      };
    });
  }

  /** The most frequent reason of each target (the lowest code on a tie). */
  private async topReasons(status: ReportTargetStatus, targets: Target[]): Promise<Map<string, number>> {
    const rows = await this.perType(
      targets,
      status,
      (where) =>
        `SELECT target_type, target_public_id, reason_code, COUNT(*) AS n FROM reports WHERE ${where} ` +
        'GROUP BY target_type, target_public_id, reason_code',
    );
    const best = new Map<string, { code: number; n: number }>();
    for (const r of rows) {
      const k = key(String(r.target_type), String(r.target_public_id));
      const code = Number(r.reason_code);
      const n = Number(r.n);
      const current = best.get(k);
      if (!current || n > current.n || (n === current.n && code < current.code)) best.set(k, { code, n });
    }
    return new Map([...best].map(([k, v]) => [k, v.code]));
  }

  /** The first few distinct reporters of each target, by their first report (a window keeps it to a few rows each). */
  private async firstReporters(status: ReportTargetStatus, targets: Target[]): Promise<Map<string, string[]>> {
    const rows = await this.perType(
      targets,
      status,
      (where) =>
        'SELECT target_type, target_public_id, reporter_id FROM (' +
        'SELECT target_type, target_public_id, reporter_id, MIN(id) AS first_id, ' +
        'ROW_NUMBER() OVER (PARTITION BY target_type, target_public_id ORDER BY MIN(id)) AS rn ' +
        `FROM reports WHERE ${where} GROUP BY target_type, target_public_id, reporter_id` +
        `) firsts WHERE rn <= ${REPORT_TARGET_REPORTERS} ORDER BY target_type, target_public_id, first_id`,
    );
    const out = new Map<string, string[]>();
    for (const r of rows) {
      const k = key(String(r.target_type), String(r.target_public_id));
      out.set(k, [...(out.get(k) ?? []), String(r.reporter_id)]);
    }
    return out;
  }

  /**
   * Runs `sql` once per target type of the page, its WHERE naming that type and an IN list of
   * the page's targets: an index seek per target (IDX_reports_status_target for open reports,
   * IDX_reports_target for all), where an OR of (type, id) pairs scans every open report.
   */
  private async perType(targets: Target[], status: ReportTargetStatus, sql: (where: string) => string): Promise<Row[]> {
    const types = [...new Set(targets.map((t) => t.type))];
    const results = await Promise.all(
      types.map((type) => {
        const ids = targets.filter((t) => t.type === type).map((t) => t.id);
        const where =
          `${status === 'open' ? "status = 'pending' AND " : ''}target_type = ? ` +
          `AND target_public_id IN (${ids.map(() => '?').join(', ')})`;
        return this.reports.query(sql(where), [type, ...ids]) as Promise<Row[]>;
      }),
    );
    return results.flat();
  }
}
