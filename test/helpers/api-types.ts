// The wire shapes of the replies the e2e specs read, as the client sees them. Written from the
// documented API (not imported from src) so that a change of the server's shapes shows up as a
// failing test rather than as a silently changed type.

export type Body = Record<string, unknown>;

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

export interface UserObj {
  id: string;
  user_id: string;
  username: string;
  nickname: string;
  avatar: string;
  signature: string;
  profile_updated_at: number;
}

export interface Msg {
  mid: string;
  conversation_id: string;
  conversation_seq: string;
  sender_id: string;
  client_message_id: string;
  type: string;
  content: Body | null;
  status: string;
  created_at: number;
  updated_at: number;
}

/** GET /app/sdk/messages. */
export interface MessageWindow {
  conversation_id: string;
  outcome: string;
  messages: Msg[];
  has_more_before: boolean;
  has_more_after: boolean;
  last_seq: string;
  updated_at: number;
  deletion_revision: number | string;
  read_seq: string;
  unread: number;
}

export interface SendReply {
  message: Msg;
  event_id: string;
}

/** Recall and delete: event_id is null when nothing changed. */
export interface MessageChangeReply {
  message: Msg;
  event_id: string | null;
}

export interface ReadReply {
  conversation_id: string;
  read_seq: string;
  unread: number;
  event_id: string | null;
}

export interface SearchPage {
  items: Msg[];
  next_cursor: string | null;
  has_more: boolean;
  next_before_mid: string | null;
}

export interface SyncItem {
  conversation_id: string;
  type: string;
  title: string;
  avatar: string;
  peer_user_id: string | null;
  group_id: string | null;
  last_message: Msg | null;
  last_seq: string;
  read_seq: string;
  unread: number;
  pinned: boolean;
  muted: boolean;
  hidden: boolean;
  updated_at: number;
  deletion_revision: number | string;
  last_activity_at: number;
  is_member: boolean;
}

export interface UnreadTotals {
  total: number;
  total_unmuted: number;
}

export interface SyncData {
  conversations: Page<SyncItem>;
  unread: UnreadTotals;
  capabilities: Record<string, boolean>;
  media_limits: Body;
  server_time: number;
}

export interface UnreadEntry {
  conversation_id: string;
  unread: number;
  muted: boolean;
}

/** GET /app/sdk/unread. */
export interface UnreadData extends UnreadTotals {
  conversations: UnreadEntry[];
  has_more: boolean;
}

export type ConversationSetting = 'pin' | 'mute' | 'hide';

export interface SettingReply {
  conversation: SyncItem;
  event_id: string;
}

export interface FriendRequest {
  id: string;
  request_id: string;
  from: UserObj;
  to: UserObj;
  message: string;
  status: string;
  created_at: number;
  updated_at: number;
}

export interface Friend {
  user: UserObj;
  conversation_id: string;
  since: number;
}

export interface FriendRequestReply {
  request: FriendRequest;
  friend: Friend | null;
  event_id: string | null;
}

export interface Group {
  group_id: string;
  conversation_id: string;
  name: string;
  avatar: string;
  introduction: string;
  owner_user_id: string;
  member_count: number;
  my_role: string;
  created_at: number;
  updated_at: number;
  dismissed: boolean;
}

export interface GroupMember {
  user: { user_id: string };
  role: string;
  joined_at: number;
  muted_until: number;
}

export interface Media {
  media_id: string;
  kind: string;
  mime_type: string;
  size: number;
  file_name: string;
  url: string;
  created_at: number;
}

export interface UploadOptions {
  filename?: string;
  contentType?: string;
  kind?: string;
  /** Sends the kind field after the file part (the order a client may choose). */
  kindAfterFile?: boolean;
}

/** GET /users/me, /users/profile and /users/lookup. */
export interface UserReply {
  user: UserObj;
}

/** POST /users/me/update: event_id is null when nothing changed. */
export interface UserUpdateReply {
  user: UserObj;
  event_id: string | null;
}

/** POST /friends/requests/accept. */
export interface AcceptReply {
  friend: Friend;
  event_id: string;
}

/** POST /friends/requests/reject. */
export interface RejectReply {
  request: FriendRequest;
  event_id: string;
}

/** POST /friends/block and /friends/unblock: event_id is null when nothing changed. */
export interface BlockReply {
  blocked: boolean;
  event_id: string | null;
}

export interface Block {
  user: UserObj;
  since: number;
}

/** Any reply that only names its event (POST /friends/delete). */
export interface EventReply {
  event_id: string | null;
}

/** A media download: the bytes as sent, and the JSON envelope when the reply is one. */
export interface Download {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
  body: unknown;
}
