import { ApiProperty } from '@nestjs/swagger';
import { MessageReply } from '../messages/message.mapper';
import type { ReportMessageContext } from '../reports/report-context.service';
import type { ReportTargetSummary } from '../reports/report';
import { AdminReportReply } from './admin-moderation.reply';
import { REPORT_ACTIONS, ReportAction } from './admin-report-actions.dto';
import { reportReasonName } from './report-reasons';

export class AdminReportActionReply {
  @ApiProperty({ type: AdminReportReply, description: 'The report after the action (pending becomes reviewed).' })
  report: AdminReportReply;
  @ApiProperty({ enum: REPORT_ACTIONS }) action: ReportAction;
  @ApiProperty({ enum: ['user', 'group', 'conversation', 'report'], description: 'What the action changed.' })
  target_type: string;
  @ApiProperty({
    description: "user_id, group_id, the reporter's conversation_id (messages) or the report_id (close).",
  })
  target_id: string;
  @ApiProperty({
    type: [String],
    description: 'recall_messages, delete_messages: the messages acted on; [] otherwise.',
  })
  message_ids: string[];
  @ApiProperty({ description: 'Whether this call moved the report (pending → reviewed, or → closed).' })
  status_changed: boolean;
}

export class AdminReportContextReply {
  @ApiProperty() report_id: string;
  @ApiProperty({ description: "The reporter's ID of the conversation." }) conversation_id: string;
  @ApiProperty({ type: [MessageReply], description: 'Up to 20 messages before, oldest first.' })
  before: MessageReply[];
  @ApiProperty({ type: MessageReply, description: 'The reported message (a tombstone once recalled or deleted).' })
  message: MessageReply;
  @ApiProperty({ type: [MessageReply], description: 'Up to 20 messages after, oldest first.' })
  after: MessageReply[];
  @ApiProperty({ description: 'The reporter can see more messages before the window.' }) has_more_before: boolean;
  @ApiProperty({ description: 'The reporter can see more messages after the window.' }) has_more_after: boolean;
}

export function toReportContextReply(reportId: string, context: ReportMessageContext): AdminReportContextReply {
  return {
    report_id: reportId,
    conversation_id: context.conversationId,
    before: context.before,
    message: context.message,
    after: context.after,
    has_more_before: context.hasMoreBefore,
    has_more_after: context.hasMoreAfter,
  };
}

export class AdminReportTargetReply {
  @ApiProperty({ enum: ['user', 'group'] }) target_type: string;
  @ApiProperty({ description: 'user_id or group_id, as the reporters named it.' }) target_id: string;
  @ApiProperty({ description: 'Reports counted (status=open: the pending ones; all: every one).' })
  report_count: number;
  @ApiProperty({ description: 'Pending reports among them.' }) open_count: number;
  @ApiProperty({ description: 'Distinct reporters among them.' }) reporter_count: number;
  @ApiProperty({ type: [String], description: 'user_id of the first reporters (by first report), at most 5.' })
  first_reporter_ids: string[];
  @ApiProperty({ description: 'Unix ms of the first report counted.' }) first_report_at: number;
  @ApiProperty({ description: 'Unix ms of the last report counted.' }) last_report_at: number;
  @ApiProperty({ description: 'The most frequent reason_code (the lowest on a tie).' }) top_reason_code: number;
  @ApiProperty({ example: 'harassment' }) top_reason_name: string;
}

export class AdminReportTargetPageReply {
  @ApiProperty({ type: [AdminReportTargetReply] }) items: AdminReportTargetReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export function toReportTargetReply(
  target: ReportTargetSummary,
  externalIds: ReadonlyMap<string, string>,
): AdminReportTargetReply {
  return {
    target_type: target.targetType,
    target_id: target.targetPublicId,
    report_count: target.reportCount,
    open_count: target.openCount,
    reporter_count: target.reporterCount,
    first_reporter_ids: target.firstReporterIds.map((id) => externalIds.get(id) ?? ''),
    first_report_at: target.firstReportAt,
    last_report_at: target.lastReportAt,
    top_reason_code: target.topReasonCode,
    top_reason_name: reportReasonName(target.topReasonCode),
  };
}
