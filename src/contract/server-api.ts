// The server API (`/app/server/*`, authenticated by the SDK secret): the request bodies a host
// backend sends and the replies it gets. Every write carries a `request_id`: a repeat with the
// same body answers the stored reply; the same request_id with another body is 1004.
import type { CursorPage } from './common.js';
import type { ConversationItem } from './conversations.js';
import type { MessageReply } from './messages.js';

/** Every write: the host's idempotency key, 1–64 of letters, digits, `.`, `_`, `:`, `-`. */
export interface ServerWriteRequest {
  request_id: string;
}

/**
 * `POST /app/server/messages/send`: as `sender_id`, into the one-to-one conversation with
 * `to_user_id` or into the group `group_id` (exactly one of the two). Types without an upload:
 * `text` or `custom`, with the content rules of an SDK send. Reply: SendReply.
 */
export interface ServerSendMessageRequest extends ServerWriteRequest {
  sender_id: string;
  to_user_id?: string;
  group_id?: string;
  type: 'text' | 'custom';
  content: Record<string, unknown>;
}

/**
 * `POST /app/server/messages/notice`: a system notice (type `notice`, NoticeContent, no sender)
 * into the group `group_id` or the one-to-one conversation of the two `user_ids` (exactly one).
 * Reply: SendReply (conversation_id as the group, or as the first of user_ids sees the pair).
 */
export interface ServerNoticeRequest extends ServerWriteRequest {
  group_id?: string;
  user_ids?: string[];
  content: { text: string; data?: Record<string, unknown> };
}

/** `POST /app/server/groups/create`: `owner_id` becomes the owner. Reply: GroupChangeReply. */
export interface ServerCreateGroupRequest extends ServerWriteRequest {
  owner_id: string;
  group_id?: string;
  name: string;
  avatar?: string;
  introduction?: string;
  /** Besides the owner: at most 200 distinct external IDs of existing, enabled users. */
  member_ids?: string[];
}

/** `POST /app/server/groups/update`: at least one of the three. Reply: GroupChangeReply (the owner's view). */
export interface ServerUpdateGroupRequest extends ServerWriteRequest {
  group_id: string;
  name?: string;
  avatar?: string;
  introduction?: string;
}

/** `POST /app/server/groups/members/add` (MembersAddedReply) and `/members/remove` (MembersRemovedReply). */
export interface ServerGroupMembersRequest extends ServerWriteRequest {
  group_id: string;
  user_ids: string[];
}

/** `POST /app/server/groups/members/role`: a current member other than the owner. Reply: MemberRoleReply. */
export interface ServerSetRoleRequest extends ServerWriteRequest {
  group_id: string;
  user_id: string;
  role: 'admin' | 'member';
}

/** `POST /app/server/groups/dismiss`. Reply: GroupDismissReply. */
export interface ServerGroupRefRequest extends ServerWriteRequest {
  group_id: string;
}

/**
 * `POST /app/server/friends/add` (AcceptFriendRequestReply, `user_id`'s view) and
 * `/friends/delete` (EventReply).
 */
export interface ServerFriendPairRequest extends ServerWriteRequest {
  user_id: string;
  friend_id: string;
}

/**
 * `POST /app/server/messages/list`: the conversation as a whole (every message, tombstones
 * included, whoever can see it), by sequence after `after_seq`, oldest first. Exactly one of
 * `group_id` and `user_ids` (the pair).
 */
export interface ServerListMessagesRequest {
  group_id?: string;
  user_ids?: string[];
  /** Decimal string; "0" (the default) starts at the first message. */
  after_seq?: string;
  /** How many, 1–200 (default 50). Named `count`: `limit` is refused everywhere (lists page by position). */
  count?: number;
}

export interface ServerMessagePageReply {
  /** group_<id>, or the pair's conversation as the first of user_ids sees it. */
  conversation_id: string;
  messages: MessageReply[];
  /** The conversation's last sequence when read. */
  last_seq: string;
  has_more: boolean;
  /** Pass as after_seq for the next page; null when there is none. */
  next_after_seq: string | null;
}

/** `POST /app/server/conversations/list`: a user's home list, as their own sync shows it. */
export interface ServerListConversationsRequest {
  user_id: string;
  cursor?: string;
}

export type ServerConversationPageReply = CursorPage<ConversationItem>;
