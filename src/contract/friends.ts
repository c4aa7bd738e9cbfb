import type { CursorPage } from './common.js';
import type { UserReply } from './users.js';

export type FriendRequestStatus = 'pending' | 'accepted' | 'rejected';

export interface FriendRequestReply {
  /** Request ID (decimal string); pass it to accept / reject. */
  id: string;
  /** The sender's idempotency key. */
  request_id: string;
  from: UserReply;
  to: UserReply;
  /** Greeting; "" when none. */
  message: string;
  status: FriendRequestStatus;
  created_at: number;
  /** Unix ms of the last status change. */
  updated_at: number;
}

/** A friend as the viewer sees them: the conversation ID is relative to the viewer. */
export interface FriendReply {
  user: UserReply;
  conversation_id: string;
  /** Unix ms when the friendship began. */
  since: number;
}

export interface BlockReply {
  user: UserReply;
  /** Unix ms when the block began. */
  since: number;
}

/** `POST /app/sdk/friends/requests`. */
export interface SendFriendRequestReply {
  /** The new request, the original on a retry, or the one already pending from the caller. */
  request: FriendRequestReply;
  /** Set when the user had already asked the caller: both are accepted and the two are friends. */
  friend: FriendReply | null;
  /** null when nothing changed. */
  event_id: string | null;
}

/** `POST /app/sdk/friends/requests/accept`. */
export interface AcceptFriendRequestReply {
  friend: FriendReply;
  event_id: string;
}

/** `POST /app/sdk/friends/requests/reject`. */
export interface RejectFriendRequestReply {
  request: FriendRequestReply;
  event_id: string;
}

/** `POST /app/sdk/friends/block` and `/unblock`. */
export interface BlockStateReply {
  /** Whether the caller blocks the user after the call. */
  blocked: boolean;
  /** null when the call changed nothing. */
  event_id: string | null;
}

export type FriendRequestPageReply = CursorPage<FriendRequestReply>;
export type FriendPageReply = CursorPage<FriendReply>;
export type BlockPageReply = CursorPage<BlockReply>;
