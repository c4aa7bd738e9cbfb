import { ApiProperty } from '@nestjs/swagger';
import type { ReportEntity, ReportStatus } from './report.entity';
import type * as contract from '../contract';

/** Reply of spec 4.3 / 4.4. */
export class ReportReply {
  @ApiProperty({ example: 'rpt-2f1c' }) request_id: string;
  @ApiProperty({ enum: ['pending', 'reviewed', 'closed'] }) status: ReportStatus;
  @ApiProperty({ description: 'Unix ms of the original submission.' }) created_at: number;
  @ApiProperty({ description: 'false when this request_id was already stored (a retry).' }) created: boolean;
}

export function toReportReply(report: ReportEntity, created: boolean): contract.ReportReply {
  return { request_id: report.requestId, status: report.status, created_at: report.createdAt, created };
}
