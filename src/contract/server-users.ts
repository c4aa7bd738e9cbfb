// The server API's user erasure and export (`POST /app/server/users/erase`, `/export`, host secret).
import type { MessageReply } from './messages.js';
import type { GroupRole } from './groups.js';

/** `POST /app/server/users/erase`. */
export interface EraseUserRequest {
  /** The host's external user ID. */
  user_id: string;
  /** Idempotency key: a repeat answers the first reply (1004 when reused for another request). */
  request_id?: string;
}

/** `POST /app/server/users/export`. */
export interface ExportUserRequest {
  user_id: string;
  /** `next_cursor` of the previous page; absent for the first page. */
  cursor?: string;
}

/**
 * `erased`: this call erased the user (or finished an interrupted erasure); `not_found`: no user
 * has this user_id (never existed, or already erased: the ID was freed), nothing changed;
 * `in_progress`: another erasure of this user is running, nothing changed by this call.
 */
export type UserErasureStatus = 'erased' | 'not_found' | 'in_progress';

/** What one erasure did, counted. */
export interface UserErasureCounts {
  friendships_ended: number;
  /** Friend requests sent by or to the user (pending ones were rejected first, with their event). */
  friend_requests_deleted: number;
  blocks_deleted: number;
  groups_left: number;
  /** Groups the user owned that passed to an admin or the longest-standing member. */
  groups_transferred: number;
  /** Groups the user owned alone. */
  groups_dismissed: number;
  /** 0 when ERASE_KEEPS_MESSAGES is true. */
  messages_tombstoned: number;
  media_deleted: number;
  client_errors_deleted: number;
  /** 1 when an account of the bundled host application was linked to the user. */
  host_accounts_deleted: number;
}

export interface UserErasureReply {
  status: UserErasureStatus;
  /** Unix ms when the erasure completed; null unless `status` is `erased`. */
  erased_at: number | null;
  /** ERASE_KEEPS_MESSAGES as it applied: the user's messages were kept (anonymised) or tombstoned. */
  messages_kept: boolean;
  counts: UserErasureCounts;
}

/** The user's own profile as stored. */
export interface ExportedProfile {
  user_id: string;
  /** "" when none. */
  username: string;
  nickname: string;
  /** As the user or host set it; "" when none (the default avatar). */
  avatar: string;
  signature: string;
  disabled: boolean;
  created_at: number;
  profile_updated_at: number;
}

/** A friend, or a user the exported user blocks, and since when. */
export interface ExportedRelation {
  user_id: string;
  since: number;
}

export interface ExportedGroup {
  group_id: string;
  name: string;
  role: GroupRole;
  joined_at: number;
}

/** A report the user filed, as they filed it. */
export interface ExportedReport {
  target_type: 'user' | 'group';
  /** The reported user's user_id or group's group_id, as the reporter named it. */
  target_id: string;
  /** 1-8, as in `POST /app/sdk/reports/*`. */
  reason_code: number;
  description: string;
  /** As the reporter sent it; "" when none. */
  conversation_id: string;
  /** Evidence message IDs. */
  message_ids: string[];
  created_at: number;
}

/**
 * One page of a user's export. The first page (no cursor) carries every section; later pages
 * carry only more of the user's own messages (the sections are null). Messages are in the order
 * they were stored, `conversation_id` as the user sees the conversation.
 */
export interface UserExportReply {
  user_id: string;
  exported_at: number;
  profile: ExportedProfile | null;
  friends: ExportedRelation[] | null;
  blocks: ExportedRelation[] | null;
  groups: ExportedGroup[] | null;
  reports: ExportedReport[] | null;
  messages: MessageReply[];
  next_cursor: string | null;
  has_more: boolean;
}
