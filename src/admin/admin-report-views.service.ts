import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { CursorCodec } from '../common/pagination/cursor';
import { TransactionRunner } from '../database/transaction-runner';
import type { ReportTargetPosition } from '../reports/report';
import { ReportContextService } from '../reports/report-context.service';
import { ReportQueue } from '../reports/report-queue.service';
import { UsersService } from '../users/users.service';
import type { AdminActor } from './admin-actor';
import { AdminAuditService } from './admin-audit.service';
import { ReportContextQueryDto, ReportTargetsQueryDto } from './admin-report-actions.dto';
import {
  AdminReportContextReply,
  AdminReportTargetPageReply,
  toReportContextReply,
  toReportTargetReply,
} from './admin-report-actions.reply';
import { pageOf } from './admin-pages';

/** Messages shown on each side of a reported message. */
export const CONTEXT_SIDE = 20;
const TARGETS_PAGE = 50;

/** Reads of the reports beyond the queue: a reported message's context, and the queue grouped by target. */
@Injectable()
export class AdminReportViewsService {
  constructor(
    private readonly reports: ReportQueue,
    private readonly context: ReportContextService,
    private readonly users: UsersService,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
    private readonly cursors: CursorCodec,
  ) {}

  /**
   * The reported message and up to 20 messages each side, as the reporter can see them. Reading
   * other users' conversations is itself an action: the audit row is written before the
   * messages leave, so no viewing goes unrecorded.
   */
  async messageContext(actor: AdminActor, dto: ReportContextQueryDto): Promise<AdminReportContextReply> {
    const report = await this.reports.findById(dto.report_id);
    if (!report) throw AppError.invalid('report_id', 'no such report');
    const context = await this.context.aroundAsReporterSees(report, dto.message_id, CONTEXT_SIDE);
    const reportId = String(report.id);
    await this.tx.run((manager) =>
      this.audit.record(manager, actor, {
        action: 'report.context_viewed',
        targetType: 'report',
        targetId: reportId,
        before: null,
        after: {
          message_id: dto.message_id,
          shown: context.before.length + 1 + context.after.length,
        },
        reportId,
      }),
    );
    return toReportContextReply(reportId, context);
  }

  async targets(actor: AdminActor, dto: ReportTargetsQueryDto): Promise<AdminReportTargetPageReply> {
    const filters = { status: dto.status ?? 'open', sort: dto.sort ?? 'count' };
    const after = dto.cursor
      ? this.cursors.decode<ReportTargetPosition>(dto.cursor, actor.id, 'admin.reports.targets', filters)
      : null;
    const rows = await this.reports.byTarget(filters.status, filters.sort, after, TARGETS_PAGE + 1);
    const shown = rows.slice(0, TARGETS_PAGE);
    const reporters = await this.users.findByIds([...new Set(shown.flatMap((r) => r.firstReporterIds))]);
    const externalIds = new Map(reporters.map((u) => [String(u.id), u.externalId]));
    return pageOf(
      rows,
      TARGETS_PAGE,
      (r) => toReportTargetReply(r, externalIds),
      (last) =>
        this.cursors.encode<ReportTargetPosition>(actor.id, 'admin.reports.targets', filters, {
          value: filters.sort === 'count' ? last.reportCount : last.lastReportAt,
          targetType: last.targetType,
          targetPublicId: last.targetPublicId,
        }),
    );
  }
}
