import { groupConversationId } from '../conversations/conversation-id';
import { toUserReply, UserReply } from '../users/user.mapper';
import type { UserEntity } from '../users/user.entity';
import type { GroupMemberEntity, GroupRole } from './group-member.entity';
import type { GroupEntity } from './group.entity';

/** What a group reply needs beyond the group row. */
export interface GroupFacts {
  ownerUserId: string;
  memberCount: number;
}

/** The group as every member sees it; carried by shared group events. */
export interface GroupSummary {
  group_id: string;
  conversation_id: string;
  name: string;
  avatar: string;
  introduction: string;
  owner_user_id: string;
  member_count: number;
  created_at: number;
  updated_at: number;
  dismissed: boolean;
}

/** The group object of the group endpoints: the summary plus the caller's role. */
export interface GroupReply extends GroupSummary {
  my_role: GroupRole;
}

export interface GroupMemberReply {
  user: UserReply;
  role: GroupRole;
  joined_at: number;
  muted_until: number;
}

export function toGroupSummary(group: GroupEntity, facts: GroupFacts, defaultAvatarUrl: string): GroupSummary {
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

export function toGroupReply(group: GroupEntity, facts: GroupFacts, myRole: GroupRole, defaultAvatarUrl: string): GroupReply {
  const summary = toGroupSummary(group, facts, defaultAvatarUrl);
  return {
    group_id: summary.group_id,
    conversation_id: summary.conversation_id,
    name: summary.name,
    avatar: summary.avatar,
    introduction: summary.introduction,
    owner_user_id: summary.owner_user_id,
    member_count: summary.member_count,
    my_role: myRole,
    created_at: summary.created_at,
    updated_at: summary.updated_at,
    dismissed: summary.dismissed,
  };
}

export function toGroupMemberReply(member: GroupMemberEntity, user: UserEntity, defaultAvatarUrl: string): GroupMemberReply {
  return { user: toUserReply(user, defaultAvatarUrl), role: member.role, joined_at: member.joinedAt, muted_until: member.mutedUntil };
}
