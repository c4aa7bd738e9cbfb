import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { CursorCodec } from '../common/pagination/cursor';
import { TransactionRunner } from '../database/transaction-runner';
import type { Report, ReportStatus } from '../reports/report';
import { ReportQueue } from '../reports/report-queue.service';
import { ReportsService } from '../reports/reports.service';
import { UsersService } from '../users/users.service';
import type { AdminActor } from './admin-actor';
import { AdminAuditRepository } from './admin-audit.repository';
import { AdminAuditService } from './admin-audit.service';
import {
  AdminReportDetailReply,
  AdminReportPageReply,
  AdminReportReply,
  toAdminReportReply,
} from './admin-moderation.reply';
import { ReportsQueryDto, ReportTransitionDto } from './admin.dto';
import { toAuditItemReply } from './admin.reply';
import { pageOf } from './admin-pages';

const PAGE = 50;
const HISTORY = 50;

/** The moves a report may make: forward only, and reviewing may be skipped. */
const NEXT: Record<ReportStatus, readonly ReportStatus[]> = {
  pending: ['reviewed', 'closed'],
  reviewed: ['closed'],
  closed: [],
};

/** The reports queue: filters, detail with the evidence as the reporter sees it, and transitions. */
@Injectable()
export class AdminReportsService {
  constructor(
    private readonly reports: ReportQueue,
    private readonly reportsService: ReportsService,
    private readonly users: UsersService,
    private readonly auditRows: AdminAuditRepository,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
    private readonly cursors: CursorCodec,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async list(actor: AdminActor, dto: ReportsQueryDto): Promise<AdminReportPageReply> {
    const filters = {
      status: dto.status,
      targetType: dto.target_type,
      reasonCode: dto.reason === undefined ? undefined : Number(dto.reason),
      from: dto.from === undefined ? undefined : Number(dto.from),
      to: dto.to === undefined ? undefined : Number(dto.to),
    };
    if (filters.from !== undefined && filters.to !== undefined && filters.to <= filters.from)
      throw AppError.invalid('to', 'must be after from');
    const before = dto.cursor ? this.cursors.decode<string>(dto.cursor, actor.id, 'admin.reports', filters) : null;
    const rows = await this.reports.list(filters, before, PAGE + 1);
    const reporters = await this.reporterIds(rows);
    return pageOf(
      rows,
      PAGE,
      (r) => toAdminReportReply(r, reporters.get(r.reporterId) ?? ''),
      (last) => this.cursors.encode(actor.id, 'admin.reports', filters, String(last.id)),
    );
  }

  async detail(reportId: string): Promise<AdminReportDetailReply> {
    const report = await this.require(reportId);
    const [reporters, messages, history] = await Promise.all([
      this.reporterIds([report]),
      this.reportsService.evidenceAsReporterSees(report),
      this.auditRows.listForReport(String(report.id), HISTORY),
    ]);
    return {
      report: toAdminReportReply(report, reporters.get(report.reporterId) ?? ''),
      messages,
      history: history.map(toAuditItemReply),
    };
  }

  /**
   * pending → reviewed → closed, or pending → closed, with an optional note kept in the audit
   * row. Anything else (backwards, to the same status, or a report another moderator moved
   * meanwhile) is 1004 naming `status`.
   */
  async transition(actor: AdminActor, dto: ReportTransitionDto): Promise<AdminReportReply> {
    const report = await this.require(dto.report_id);
    if (!NEXT[report.status].includes(dto.status))
      throw AppError.invalid('status', `a ${report.status} report cannot become ${dto.status}`);
    const reporters = await this.reporterIds([report]);
    return this.tx.run(async (manager) => {
      const now = this.clock.now();
      if (!(await this.reports.transition(manager, report.id, report.status, dto.status, now)))
        throw AppError.invalid('status', 'the report changed meanwhile; reload it');
      await this.audit.record(manager, actor, {
        action: 'report.transitioned',
        targetType: 'report',
        targetId: String(report.id),
        before: { status: report.status },
        after: { status: dto.status, note: dto.note ?? '' },
      });
      const after = Object.assign({}, report, { status: dto.status, updatedAt: now });
      return toAdminReportReply(after, reporters.get(report.reporterId) ?? '');
    });
  }

  private async require(reportId: string): Promise<Report> {
    const report = await this.reports.findById(reportId);
    if (!report) throw AppError.invalid('report_id', 'no such report');
    return report;
  }

  private async reporterIds(reports: Report[]): Promise<Map<string, string>> {
    const users = await this.users.findByIds(reports.map((r) => r.reporterId));
    return new Map(users.map((u) => [String(u.id), u.externalId]));
  }
}
