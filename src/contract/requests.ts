// Request shapes of the SDK endpoints of friends, profiles, groups, calls and reports: the JSON
// body of a POST, or the query string of a GET. The server's DTO classes implement these (so a
// DTO that drifts stops compiling) and the Web SDK sends them. `null` on an optional field means
// "not sent".
import type { FriendRequestStatus } from './friends.js';

/** The query of every directory list: pages go by a signed cursor, never page, offset or limit. */
export interface ListQuery {
  /** `next_cursor` of the previous page, unchanged; bound to the account, the endpoint and the filters. */
  cursor?: string;
}

// Friends

/** `POST /app/sdk/friends/delete`, `/block` and `/unblock`: the other user. */
export interface FriendUserRequest {
  /** External user ID. */
  user_id: string;
}

/** `POST /app/sdk/friends/requests`. */
export interface SendFriendRequestRequest {
  /** External user ID of the user to befriend. */
  user_id: string;
  /**
   * The sender's idempotency key (1–64 of letters, digits, `.`, `_`, `:`, `-`): a retry repeats
   * it with the same `user_id` and `message` and answers the stored request.
   */
  request_id: string;
  /** Greeting shown to the receiver, at most 255 characters; absent or null is "". */
  message?: string | null;
}

/** `GET /app/sdk/friends/requests`. */
export interface FriendRequestsQuery extends ListQuery {
  /** `incoming`: sent to the caller; `outgoing`: sent by the caller. */
  direction: 'incoming' | 'outgoing';
  /** Only requests in this status; every status when absent. */
  status?: FriendRequestStatus;
}

/** `POST /app/sdk/friends/requests/accept` and `/reject`. */
export interface FriendRequestRefRequest {
  /** The request's `id` (decimal string) from the list or an event. */
  id: string;
}

// Profiles

/** `GET /app/sdk/users/profile`. */
export interface UserProfileQuery {
  /** External user ID. */
  user_id: string;
}

/** `GET /app/sdk/users/lookup`. */
export interface UsernameLookupQuery {
  /** Exact (case-sensitive) username. */
  username: string;
}

/**
 * `POST /app/sdk/users/me/update`: at least one field; absent or null keeps a value. Same rules
 * as the host's profile sync.
 */
export interface UpdateProfileRequest {
  /** The caller's own ID may be sent; any other value is 1004 (the user ID never changes). */
  user_id?: string | null;
  /** 1–80 characters, no leading or trailing whitespace, no control characters. */
  nickname?: string | null;
  /** Unique across users, 1–64 characters; "" removes it; taken by another user is 1004. */
  username?: string | null;
  /** http(s) URL, at most 1024 characters; "" selects the default avatar. */
  avatar?: string | null;
  /** At most 255 characters, no control characters. */
  signature?: string | null;
}

// Groups

/** Names one group (`leave`, `dismiss`; `GET /app/sdk/groups/get`). */
export interface GroupRefRequest {
  /** Public group ID: 1–32 of letters, digits, `.`, `_`, `-`. */
  group_id: string;
}

/** Names one member of one group. */
export interface GroupMemberRefRequest extends GroupRefRequest {
  /** External user ID of the member. */
  user_id: string;
}

/** `POST /app/sdk/groups/create`: the caller becomes the owner. */
export interface CreateGroupRequest {
  /** Generated when absent; one already taken is 1004. */
  group_id?: string;
  /** 1–80 characters, no control characters, no leading or trailing whitespace. */
  name: string;
  /** http(s) URL, at most 1024 characters; "" selects the default avatar. */
  avatar?: string;
  /** At most 1000 characters; line breaks allowed. */
  introduction?: string;
  /** Initial members besides the caller: at most 200 distinct external IDs of existing users (1204 otherwise). */
  member_ids?: string[];
}

/** `POST /app/sdk/groups/update` (owner or admin): at least one of the three. */
export interface UpdateGroupRequest extends GroupRefRequest {
  name?: string;
  avatar?: string;
  introduction?: string;
}

/** `GET /app/sdk/groups/members`. */
export interface GroupMembersQuery extends ListQuery {
  group_id: string;
}

/** `POST /app/sdk/groups/members/add` and `/members/remove`. */
export interface GroupMembersChangeRequest extends GroupRefRequest {
  /** 1–100 distinct external user IDs. */
  user_ids: string[];
}

/** `POST /app/sdk/groups/admins/set` (owner only). */
export interface SetGroupAdminRequest extends GroupMemberRefRequest {
  /** true appoints an admin, false makes a plain member. */
  admin: boolean;
}

/** `POST /app/sdk/groups/members/mute` (owner or admin). */
export interface MuteGroupMemberRequest extends GroupMemberRefRequest {
  /** Integer 0–2592000 (30 days); 0 unmutes. */
  duration_seconds: number;
}

/** `POST /app/sdk/groups/invitations/create` (owner or admin). */
export interface CreateInvitationRequest extends GroupRefRequest {
  /** Integer from 60 to the service's maximum (INVITATION_TTL_SECONDS), which is the default. */
  ttl_seconds?: number;
}

/** `POST /app/sdk/groups/join`. */
export interface JoinGroupRequest {
  /** The invitation code. */
  code: string;
}

// Calls

export type CallMedia = 'audio' | 'video';

/** Names one call (`ringing`, `cancel`, `hangup`, `credentials`; `GET /app/sdk/calls/get`). */
export interface CallRefRequest {
  /** The call ID (UUID) as returned. */
  call_id: string;
}

/** `POST /app/sdk/calls/start`. */
export interface StartCallRequest {
  conversation_id: string;
  media: CallMedia;
  /** The caller's idempotency key (1–64 of letters, digits, `.`, `_`, `:`, `-`): a retry answers the same call. */
  client_call_id: string;
  /** The calling device, stable per installation (same characters, 1–64). */
  device_id: string;
  /** Group calls only: the members to ring (default: every other member); refused one-to-one. */
  user_ids?: string[];
}

/** `POST /app/sdk/calls/accept`. */
export interface AcceptCallRequest extends CallRefRequest {
  /** The accepting device: another device of the user that accepts later gets 1217. */
  device_id: string;
}

/** `POST /app/sdk/calls/reject`. */
export interface RejectCallRequest extends CallRefRequest {
  /** `decline`, or `busy` when the device is in another call. */
  reason: 'decline' | 'busy';
}

// Reports (spec 4.3, 4.4)

/**
 * Report reasons: 1 harassment, 2 inappropriate content, 3 fraud, 4 infringement,
 * 5 impersonation, 6 other violation, 7 chat content violation, 8 profile violation.
 */
export type ReportReasonCode = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

/** What group and user reports share. A retry repeats every field under the same `request_id`. */
export interface ReportFieldsRequest {
  /** Idempotency key, 1–64 of letters, digits, `.`, `_`, `:`, `-`: one key, one report. */
  request_id: string;
  reason_code: ReportReasonCode;
  /** At most 1000 characters; absent or null is stored as "". */
  description?: string | null;
  /** Required with message evidence: the conversation the messages are in (at most 256 characters). */
  conversation_id?: string | null;
  /** Evidence: at most 20 distinct message IDs (`mid`) of `conversation_id`; default `[]`. */
  message_ids?: string[] | null;
}

/** `POST /app/sdk/reports/group`: a group the caller is or was a member of. */
export interface GroupReportRequest extends ReportFieldsRequest {
  group_id: string;
}

/** `POST /app/sdk/reports/user`. */
export interface UserReportRequest extends ReportFieldsRequest {
  /** External user ID of the reported user. */
  user_id: string;
}

/** `POST /app/sdk/presence/query`: 1–100 distinct external user IDs. */
export interface PresenceQueryRequest {
  user_ids: string[];
}
