import type { ReportEntity, ReportStatus } from './report.entity';

/** Reply of spec 4.3 / 4.4. */
export interface ReportReply {
  request_id: string;
  status: ReportStatus;
  created_at: number;
  created: boolean;
}

export function toReportReply(report: ReportEntity, created: boolean): ReportReply {
  return { request_id: report.requestId, status: report.status, created_at: report.createdAt, created };
}
