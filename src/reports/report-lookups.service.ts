import { Injectable } from '@nestjs/common';
import type { Report, ReportTargetType } from './report';
import { ReportLookupsRepository } from './report-lookups.repository';

export interface ReportsAround {
  count: number;
  /** Open (pending) among them. */
  openCount: number;
  latest: Report[];
}

/** What the console's Users and Groups pages ask of the reports: open reports (pending) and the latest either way. */
@Injectable()
export class ReportLookups {
  constructor(private readonly reports: ReportLookupsRepository) {}

  /** Internal IDs of users or groups with an open report, at most `limit` of them. */
  openTargetIds(type: ReportTargetType, limit: number): Promise<string[]> {
    return this.reports.openTargetIds(type, limit);
  }

  openCountsAmong(type: ReportTargetType, ids: readonly string[]): Promise<Map<string, number>> {
    return this.reports.openCountsAmong(type, ids);
  }

  async against(type: ReportTargetType, publicId: string, limit: number): Promise<ReportsAround> {
    const [count, openCount, latest] = await Promise.all([
      this.reports.countAgainst(type, publicId, false),
      this.reports.countAgainst(type, publicId, true),
      this.reports.latestAgainst(type, publicId, limit),
    ]);
    return { count, openCount, latest };
  }

  async filedBy(reporterId: string, limit: number): Promise<ReportsAround> {
    const [count, openCount, latest] = await Promise.all([
      this.reports.countFiledBy(reporterId, false),
      this.reports.countFiledBy(reporterId, true),
      this.reports.latestFiledBy(reporterId, limit),
    ]);
    return { count, openCount, latest };
  }
}
