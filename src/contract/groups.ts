import type { CursorPage } from './common.js';
import type { UserReply } from './users.js';

export type GroupRole = 'owner' | 'admin' | 'member';

/** The group as every member sees it; carried by shared group events. */
export interface GroupSummary {
  group_id: string;
  /** `group_` + group_id. */
  conversation_id: string;
  name: string;
  /** URL; the default avatar when none was set. */
  avatar: string;
  introduction: string;
  /** External user ID of the owner. */
  owner_user_id: string;
  /** Current members, owner included. */
  member_count: number;
  created_at: number;
  updated_at: number;
  /** Always false in replies (a dismissed group answers 1209); true in the group.dismissed event. */
  dismissed: boolean;
}

/** The group object of the group endpoints: the summary plus the caller's role. */
export interface GroupReply extends GroupSummary {
  my_role: GroupRole;
}

export interface GroupMemberReply {
  user: UserReply;
  role: GroupRole;
  /** Unix ms of (re)joining. */
  joined_at: number;
  /** Unix ms; the member cannot send while it is in the future. 0 = not muted. */
  muted_until: number;
}

/** `GET /app/sdk/groups/get`. */
export interface GroupEnvelopeReply {
  group: GroupReply;
}

/** create, update, transfer, join: `event_id` is null when nothing changed. */
export interface GroupChangeReply {
  group: GroupReply;
  event_id: string | null;
}

export type GroupPageReply = CursorPage<GroupReply>;
export type GroupMemberPageReply = CursorPage<GroupMemberReply>;

export interface MembersAddedReply {
  /** External IDs actually added (current members are skipped). */
  added: string[];
  event_id: string | null;
}

export interface MembersRemovedReply {
  /** External IDs actually removed (non-members are skipped). */
  removed: string[];
  event_id: string | null;
}

export interface GroupLeaveReply {
  group_id: string;
  event_id: string;
}

export interface GroupDismissReply {
  group_id: string;
  dismissed_at: number;
  event_id: string;
}

export interface MemberRoleReply {
  user_id: string;
  role: GroupRole;
  event_id: string | null;
}

export interface MemberMuteReply {
  user_id: string;
  /** Unix ms; 0 when unmuted. */
  muted_until: number;
  event_id: string;
}

export interface InvitationReply {
  /** Random unpadded Base64URL, 24 characters. */
  code: string;
  group_id: string;
  expires_at: number;
  event_id: string;
}
