import { ApiProperty } from '@nestjs/swagger';
import type { ClientErrorRecord } from '../client-errors/client-error-record';
import type { Group, GroupMember } from '../groups/group';
import { MessageReply } from '../messages/message.mapper';
import type { Report } from '../reports/report';
import { type User, isDisabledAt } from '../users/user';
import { AuditItemReply, CountBucketReply } from './admin.reply';
import { reportReasonName } from './report-reasons';

export class AdminReportReply {
  @ApiProperty({ description: 'Report ID (decimal string).' }) report_id: string;
  @ApiProperty({ enum: ['pending', 'reviewed', 'closed'] }) status: string;
  @ApiProperty({ enum: ['user', 'group'] }) target_type: string;
  @ApiProperty({ description: 'The target as the reporter named it (user_id or group_id).' }) target_id: string;
  @ApiProperty({ description: 'External user ID of the reporter.' }) reporter_user_id: string;
  @ApiProperty() reason_code: number;
  @ApiProperty({ description: "The reason's name in the service spec (4.3), e.g. harassment.", example: 'harassment' })
  reason_name: string;
  @ApiProperty() description: string;
  @ApiProperty({ description: "The reporter's conversation ID; '' when none." }) conversation_id: string;
  @ApiProperty({ type: [String] }) message_ids: string[];
  @ApiProperty() created_at: number;
  @ApiProperty() updated_at: number;
}

export class AdminReportPageReply {
  @ApiProperty({ type: [AdminReportReply] }) items: AdminReportReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export class AdminReportDetailReply {
  @ApiProperty({ type: AdminReportReply }) report: AdminReportReply;
  @ApiProperty({
    type: [MessageReply],
    nullable: true,
    description:
      'The evidence as the reporter can see it now (tombstones for recalled or deleted messages); null when the report has no conversation or the reporter lost access to it.',
  })
  messages: MessageReply[] | null;
  @ApiProperty({
    type: [AuditItemReply],
    description:
      'Admin actions on this report and those taken from it (their report_id), newest first, at most 50 (notes are in `after`).',
  })
  history: AuditItemReply[];
}

export function toAdminReportReply(report: Report, reporterExternalId: string): AdminReportReply {
  return {
    report_id: String(report.id),
    status: report.status,
    target_type: report.targetType,
    target_id: report.targetPublicId,
    reporter_user_id: reporterExternalId,
    reason_code: report.reasonCode,
    reason_name: reportReasonName(report.reasonCode),
    description: report.description,
    conversation_id: report.conversationId,
    message_ids: JSON.parse(report.messageIds) as string[],
    created_at: report.createdAt,
    updated_at: report.updatedAt,
  };
}

export class ClientErrorGroupReply {
  @ApiProperty({ description: 'Merge key: similar errors of one user, device and minute.' }) merge_key: string;
  @ApiProperty({ description: 'event_id of the first report merged.' }) event_id: string;
  @ApiProperty({ description: 'External user ID; "" when the user is gone.' }) user_id: string;
  @ApiProperty() platform: string;
  @ApiProperty() severity: string;
  @ApiProperty() error_code: string;
  @ApiProperty() operation: string;
  @ApiProperty({ type: String, nullable: true }) build_id: string | null;
  @ApiProperty({ description: 'Scrubbed.' }) message: string;
  @ApiProperty() occurrence_count: number;
  @ApiProperty() first_seen_at: number;
  @ApiProperty() last_seen_at: number;
}

export class ClientErrorDetailReply {
  @ApiProperty({ type: ClientErrorGroupReply }) group: ClientErrorGroupReply;
  @ApiProperty() device_id: string;
  @ApiProperty({ type: String, nullable: true, description: 'Scrubbed.' }) stack_trace: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Scrubbed.' }) context: Record<
    string,
    unknown
  >;
  @ApiProperty({ type: String, nullable: true }) conversation_id: string | null;
  @ApiProperty({ type: String, nullable: true }) message_id: string | null;
  @ApiProperty({ type: String, nullable: true }) trace_id: string | null;
  @ApiProperty() recovered: boolean;
  @ApiProperty({
    type: [CountBucketReply],
    description:
      'Occurrences per hour over the last 24 hours of errors with the same platform, error code, operation and build (all users).',
  })
  similar_per_hour: CountBucketReply[];
}

export function toClientErrorGroupReply(record: ClientErrorRecord, userExternalId: string): ClientErrorGroupReply {
  return {
    merge_key: record.mergeKey,
    event_id: record.eventId,
    user_id: userExternalId,
    platform: record.platform,
    severity: record.severity,
    error_code: record.errorCode,
    operation: record.operation,
    build_id: record.buildId,
    message: record.message,
    occurrence_count: record.occurrenceCount,
    first_seen_at: record.firstSeenAt,
    last_seen_at: record.lastSeenAt,
  };
}

export class AdminUserReply {
  @ApiProperty({ description: 'Internal IM user ID.' }) id: string;
  @ApiProperty() user_id: string;
  @ApiProperty() username: string;
  @ApiProperty() nickname: string;
  @ApiProperty() avatar: string;
  @ApiProperty({ description: 'Disabled now (a disable whose end has passed counts as enabled).' })
  disabled: boolean;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Unix ms at which the disable ends by itself; null when disabled for good or not disabled.',
  })
  disabled_until: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The reason shown to the user's client as the 1003 error's msg; null when none or not disabled.",
  })
  disabled_reason: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Unix ms of the last authenticated SDK request or connection (to the minute); null: never.',
  })
  last_active_at: number | null;
  @ApiProperty({ description: 'Raised by each forced logout; tokens of an older version fail with 1102.' })
  token_version: number;
  @ApiProperty() created_at: number;
  @ApiProperty() updated_at: number;
}

export class AdminUserPageReply {
  @ApiProperty({ type: [AdminUserReply] }) items: AdminUserReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export class AdminUserDetailReply {
  @ApiProperty({ type: AdminUserReply }) user: AdminUserReply;
  @ApiProperty({ description: 'Groups the user is a current member of.' }) group_count: number;
  @ApiProperty({ description: 'Conversations the user is a current member of (never their contents).' })
  conversation_count: number;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: 'A live socket connection on any instance now; null when the presence store does not answer.',
  })
  online: boolean | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Unix ms the last connection closed; null when online or unknown.',
  })
  last_seen_at: number | null;
}

/** `now`: a disable whose end has passed is shown as enabled, before any sweep has flipped the row. */
export function toAdminUserReply(user: User, now: number = Date.now()): AdminUserReply {
  const disabled = isDisabledAt(user, now);
  return {
    id: String(user.id),
    user_id: user.externalId,
    username: user.username ?? '',
    nickname: user.nickname,
    avatar: user.avatar,
    disabled,
    disabled_until: disabled ? user.disabledUntil : null,
    disabled_reason: disabled ? user.disabledReason : null,
    last_active_at: user.lastActiveAt,
    token_version: user.tokenVersion,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
}

export class AdminGroupReply {
  @ApiProperty() group_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'External user ID of the owner.' }) owner_user_id: string;
  @ApiProperty() member_count: number;
  @ApiProperty() disabled: boolean;
  @ApiProperty({ type: Number, nullable: true }) dismissed_at: number | null;
  @ApiProperty() created_at: number;
  @ApiProperty() updated_at: number;
}

export class AdminGroupPageReply {
  @ApiProperty({ type: [AdminGroupReply] }) items: AdminGroupReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export function toAdminGroupReply(group: Group, ownerExternalId: string, memberCount: number): AdminGroupReply {
  return {
    group_id: group.publicId,
    name: group.name,
    owner_user_id: ownerExternalId,
    member_count: memberCount,
    disabled: group.disabled,
    dismissed_at: group.dismissedAt,
    created_at: group.createdAt,
    updated_at: group.updatedAt,
  };
}

export class AdminGroupMemberReply {
  @ApiProperty() user_id: string;
  @ApiProperty() nickname: string;
  @ApiProperty({ enum: ['owner', 'admin', 'member'] }) role: string;
  @ApiProperty({ description: 'Unix ms until which the member is muted; 0 when not.' }) muted_until: number;
}

export class AdminGroupMembersPageReply {
  @ApiProperty({ type: [AdminGroupMemberReply] }) items: AdminGroupMemberReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export function toAdminGroupMemberReply(member: GroupMember, user: User | undefined): AdminGroupMemberReply {
  return {
    user_id: user?.externalId ?? '',
    nickname: user?.nickname ?? '',
    role: member.role,
    muted_until: Number(member.mutedUntil ?? 0),
  };
}

export class AdminGroupDismissReply {
  @ApiProperty() group_id: string;
  @ApiProperty() dismissed_at: number;
  @ApiProperty({ description: 'The group.dismissed event, as an owner dismissal writes it.' }) event_id: string;
}
