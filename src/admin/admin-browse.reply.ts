import { ApiProperty } from '@nestjs/swagger';
import type { ClientErrorOfUser } from '../client-errors/client-errors-of-user.service';
import type { Group } from '../groups/group';
import type { MembershipOfUser } from '../groups/group-browse';
import type { User } from '../users/user';
import { AuditItemReply } from './admin.reply';
import { AdminConnectionReply } from './admin-connections.reply';
import { AdminReportReply, toAdminUserReply } from './admin-moderation.reply';

export class AdminUserListItemReply {
  @ApiProperty({ description: 'Internal IM user ID.' }) id: string;
  @ApiProperty() user_id: string;
  @ApiProperty() username: string;
  @ApiProperty() nickname: string;
  @ApiProperty({ description: 'As stored; the console shows it as an image only when it is an https URL.' })
  avatar: string;
  @ApiProperty({ description: 'Disabled now (a timed disable that has ended counts as enabled).' }) disabled: boolean;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Unix ms the disable ends; null: for good or not disabled.',
  })
  disabled_until: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'The reason the user’s client is shown.' })
  disabled_reason: string | null;
  @ApiProperty() token_version: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Last authenticated SDK request or connection (to the minute); null: never.',
  })
  last_active_at: number | null;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: 'Connected now on any instance; null when the presence store does not answer.',
  })
  online: boolean | null;
  @ApiProperty({ description: 'Open (pending) reports against the user.' }) open_report_count: number;
  @ApiProperty() created_at: number;
  @ApiProperty() updated_at: number;
}

export class AdminUserListReply {
  @ApiProperty({ type: [AdminUserListItemReply] }) items: AdminUserListItemReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
  @ApiProperty({
    description:
      'True when the page stopped after examining its share of users for the online filter: fewer items than 50 then do not mean the end; has_more says whether to go on.',
  })
  partial: boolean;
}

export function toAdminUserListItem(
  user: User,
  now: number,
  online: boolean | null,
  openReports: number,
): AdminUserListItemReply {
  return { ...toAdminUserReply(user, now), online, open_report_count: openReports };
}

export class AdminGroupListItemReply {
  @ApiProperty() group_id: string;
  @ApiProperty() name: string;
  @ApiProperty() avatar: string;
  @ApiProperty({ description: 'External user ID of the owner.' }) owner_user_id: string;
  @ApiProperty() member_count: number;
  @ApiProperty() disabled: boolean;
  @ApiProperty({ type: Number, nullable: true }) dismissed_at: number | null;
  @ApiProperty({ description: 'Open (pending) reports against the group.' }) open_report_count: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "Unix ms of the group conversation's latest message; null: never messaged.",
  })
  last_active_at: number | null;
  @ApiProperty() created_at: number;
  @ApiProperty() updated_at: number;
}

export class AdminGroupListReply {
  @ApiProperty({ type: [AdminGroupListItemReply] }) items: AdminGroupListItemReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
  @ApiProperty({
    description:
      'True when the page stopped after examining its share of groups for a filter over the last_active order: fewer items than 50 then do not mean the end; has_more says whether to go on. Always false for the other orders.',
  })
  partial: boolean;
}

/** What the list adds to a group's own fields (other modules' answers). */
export interface GroupListExtras {
  ownerExternalId: string;
  memberCount: number;
  openReports: number;
  /** The conversation's last message time; 0: never. */
  lastMessageAt: number;
}

export function toAdminGroupListItem(group: Group, extras: GroupListExtras): AdminGroupListItemReply {
  return {
    group_id: group.publicId,
    name: group.name,
    avatar: group.avatar,
    owner_user_id: extras.ownerExternalId,
    member_count: extras.memberCount,
    disabled: group.disabled,
    dismissed_at: group.dismissedAt,
    open_report_count: extras.openReports,
    last_active_at: extras.lastMessageAt > 0 ? extras.lastMessageAt : null,
    created_at: group.createdAt,
    updated_at: group.updatedAt,
  };
}

export class AdminPresenceReply {
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: 'Connected on any instance; null when the presence store does not answer.',
  })
  online: boolean | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Unix ms the last connection closed; null when online or unknown.',
  })
  last_seen_at: number | null;
  @ApiProperty({ description: 'Live socket connections (devices) on the instances that answered.' })
  connections: number;
  @ApiProperty({ description: 'Instances that answered, this one included.' }) instances: number;
  @ApiProperty({ description: 'False when an instance did not answer in time: connections is then a floor.' })
  complete: boolean;
  @ApiProperty({
    type: [AdminConnectionReply],
    description: 'The connections on the instances that answered, newest first: at most 50.',
  })
  devices: AdminConnectionReply[];
  @ApiProperty({ description: 'More connections than devices lists (connections has them all).' })
  devices_truncated: boolean;
}

export class AdminUserRefReply {
  @ApiProperty() user_id: string;
  @ApiProperty() nickname: string;
}

export class AdminFriendsReply {
  @ApiProperty() count: number;
  @ApiProperty({ type: [AdminUserRefReply], description: 'The first 20.' }) items: AdminUserRefReply[];
}

export class AdminMembershipReply {
  @ApiProperty() group_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['owner', 'admin', 'member'] }) role: string;
  @ApiProperty({ description: 'Unix ms until which the user is muted there; 0 when not.' }) muted_until: number;
  @ApiProperty() disabled: boolean;
  @ApiProperty({ type: Number, nullable: true }) dismissed_at: number | null;
}

export function toAdminMembershipReply(m: MembershipOfUser): AdminMembershipReply {
  return {
    group_id: m.group.publicId,
    name: m.group.name,
    role: m.role,
    muted_until: m.mutedUntil,
    disabled: m.group.disabled,
    dismissed_at: m.group.dismissedAt,
  };
}

export class AdminMembershipsReply {
  @ApiProperty({ description: 'Current memberships.' }) count: number;
  @ApiProperty({ type: [AdminMembershipReply], description: 'The first 20, by first join.' })
  items: AdminMembershipReply[];
}

export class AdminReportsAroundReply {
  @ApiProperty() count: number;
  @ApiProperty({ description: 'Pending among them.' }) open_count: number;
  @ApiProperty({ type: [AdminReportReply], description: 'The latest 5.' }) latest: AdminReportReply[];
}

export class AdminClientErrorOfUserReply {
  @ApiProperty() merge_key: string;
  @ApiProperty() platform: string;
  @ApiProperty() severity: string;
  @ApiProperty() error_code: string;
  @ApiProperty({ description: 'Scrubbed.' }) message: string;
  @ApiProperty() occurrence_count: number;
  @ApiProperty() last_seen_at: number;
}

export function toClientErrorOfUserReply(e: ClientErrorOfUser): AdminClientErrorOfUserReply {
  return {
    merge_key: e.mergeKey,
    platform: e.platform,
    severity: e.severity,
    error_code: e.errorCode,
    message: e.message,
    occurrence_count: e.occurrenceCount,
    last_seen_at: e.lastSeenAt,
  };
}

export class AdminClientErrorsOfUserReply {
  @ApiProperty({ description: 'Merged records kept (retention applies).' }) count: number;
  @ApiProperty({ type: [AdminClientErrorOfUserReply], description: 'The latest 5.' })
  latest: AdminClientErrorOfUserReply[];
}

export class AdminUserOverviewReply {
  @ApiProperty({ type: AdminUserListItemReply }) user: AdminUserListItemReply;
  @ApiProperty() signature: string;
  @ApiProperty({ type: AdminPresenceReply }) presence: AdminPresenceReply;
  @ApiProperty({ type: AdminFriendsReply }) friends: AdminFriendsReply;
  @ApiProperty({ type: AdminMembershipsReply }) groups: AdminMembershipsReply;
  @ApiProperty({ type: AdminReportsAroundReply, description: 'Reports against the user.' })
  reports_against: AdminReportsAroundReply;
  @ApiProperty({ type: AdminReportsAroundReply, description: 'Reports the user filed (open_count: still pending).' })
  reports_filed: AdminReportsAroundReply;
  @ApiProperty({ type: AdminClientErrorsOfUserReply }) client_errors: AdminClientErrorsOfUserReply;
  @ApiProperty({ type: [AuditItemReply], description: 'The latest 20 admin actions on the user.' })
  audit: AuditItemReply[];
  @ApiProperty({
    description:
      'Whether POST /app/admin/users/profile may edit nickname and avatar (the bundled host app runs, so this service owns profiles).',
  })
  profile_editable: boolean;
}

export class AdminGroupOverviewReply {
  @ApiProperty({ type: AdminGroupListItemReply }) group: AdminGroupListItemReply;
  @ApiProperty() introduction: string;
  @ApiProperty({ type: AdminUserRefReply }) owner: AdminUserRefReply;
  @ApiProperty({ type: AdminReportsAroundReply, description: 'Reports against the group.' })
  reports_against: AdminReportsAroundReply;
  @ApiProperty({ type: [AuditItemReply], description: 'The latest 20 admin actions on the group.' })
  audit: AuditItemReply[];
}
