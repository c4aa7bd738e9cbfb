import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type {
  Report,
  ReportFilters,
  ReportStatus,
  ReportTargetPosition,
  ReportTargetSort,
  ReportTargetStatus,
  ReportTargetSummary,
} from './report';
import { ReportTargetsRepository } from './report-targets.repository';
import { ReportsRepository } from './reports.repository';

/** The reports as the admin console's queue works them: listing, counting and status moves. */
@Injectable()
export class ReportQueue {
  constructor(
    private readonly reports: ReportsRepository,
    private readonly targets: ReportTargetsRepository,
  ) {}

  findById(id: string): Promise<Report | null> {
    return this.reports.findById(id);
  }

  /** Newest first, before the report `beforeId`. */
  list(filters: ReportFilters, beforeId: string | null, limit: number): Promise<Report[]> {
    return this.reports.list(filters, beforeId, limit);
  }

  /** The reports the user (internal ID) filed, oldest first: the server API's export. */
  filedBy(reporterId: string): Promise<Report[]> {
    return this.reports.findByReporter(reporterId);
  }

  /** The reports grouped by target, by count or latest report (descending), after `after`. */
  byTarget(
    status: ReportTargetStatus,
    sort: ReportTargetSort,
    after: ReportTargetPosition | null,
    limit: number,
  ): Promise<ReportTargetSummary[]> {
    return this.targets.page(status, sort, after, limit);
  }

  countByStatus(status: ReportStatus): Promise<number> {
    return this.reports.countByStatus(status);
  }

  /**
   * Moves the report only if it is still in `from` (compare-and-set), within the caller's
   * transaction; false when another change came first.
   */
  transition(manager: EntityManager, id: string, from: ReportStatus, to: ReportStatus, now: number): Promise<boolean> {
    return this.reports.transition(manager, id, from, to, now);
  }
}
