import { ApiProperty } from '@nestjs/swagger';
import { groupConversationId } from '../conversations/conversation-id';
import { toUserReply, UserReply } from '../users/user.mapper';
import type { User } from '../users/user';
import type { GroupMemberEntity, GroupRole } from './group-member.entity';
import type { GroupEntity } from './group.entity';
import type * as contract from '../contract';

const ROLES: GroupRole[] = ['owner', 'admin', 'member'];

/** What a group reply needs beyond the group row. */
export interface GroupFacts {
  ownerUserId: string;
  memberCount: number;
}

/** The group as every member sees it; carried by shared group events. */
export class GroupSummary {
  @ApiProperty({ description: 'Public group ID.', example: 'team-1' }) group_id: string;
  @ApiProperty({ description: '`group_` + group_id.', example: 'group_team-1' }) conversation_id: string;
  @ApiProperty({ example: 'Weekend hikers' }) name: string;
  @ApiProperty({ description: 'URL; the default avatar when none was set.' }) avatar: string;
  @ApiProperty({ example: '' }) introduction: string;
  @ApiProperty({ description: 'External user ID of the owner.', example: 'u_10086' }) owner_user_id: string;
  @ApiProperty({ description: 'Current members, owner included.', example: 3 }) member_count: number;
  @ApiProperty({ description: 'Unix ms.' }) created_at: number;
  @ApiProperty({ description: 'Unix ms of the last change of name, avatar, introduction, owner or dismissal.' })
  updated_at: number;
  @ApiProperty({
    description: 'Always false in replies (a dismissed group answers 1209); true in the group.dismissed event.',
  })
  dismissed: boolean;
}

/** The group object of the group endpoints: the summary plus the caller's role. */
export class GroupReply extends GroupSummary {
  @ApiProperty({ enum: ROLES, description: "The caller's role." }) my_role: GroupRole;
}

export class GroupMemberReply {
  @ApiProperty({ type: UserReply }) user: UserReply;
  @ApiProperty({ enum: ROLES }) role: GroupRole;
  @ApiProperty({ description: 'Unix ms of (re)joining.' }) joined_at: number;
  @ApiProperty({ description: 'Unix ms; the member cannot send while it is in the future. 0 = not muted.' })
  muted_until: number;
}

export function toGroupSummary(group: GroupEntity, facts: GroupFacts, defaultAvatarUrl: string): contract.GroupSummary {
  return {
    group_id: group.publicId,
    conversation_id: groupConversationId(group.publicId),
    name: group.name,
    avatar: group.avatar || defaultAvatarUrl,
    introduction: group.introduction,
    owner_user_id: facts.ownerUserId,
    member_count: facts.memberCount,
    created_at: group.createdAt,
    updated_at: group.updatedAt,
    dismissed: group.dismissedAt !== null,
  };
}

export function toGroupReply(
  group: GroupEntity,
  facts: GroupFacts,
  myRole: GroupRole,
  defaultAvatarUrl: string,
): contract.GroupReply {
  return { ...toGroupSummary(group, facts, defaultAvatarUrl), my_role: myRole };
}

export function toGroupMemberReply(
  member: GroupMemberEntity,
  user: User,
  defaultAvatarUrl: string,
): contract.GroupMemberReply {
  return {
    user: toUserReply(user, defaultAvatarUrl),
    role: member.role,
    joined_at: member.joinedAt,
    muted_until: member.mutedUntil,
  };
}
