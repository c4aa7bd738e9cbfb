import { directConversationId } from '../conversations/conversation-id';
import type { UserReply } from '../users/user.mapper';
import type { BlockEntity } from './block.entity';
import type { FriendRequestEntity, FriendRequestStatus } from './friend-request.entity';

export interface FriendRequestReply {
  id: string;
  request_id: string;
  from: UserReply;
  to: UserReply;
  message: string;
  status: FriendRequestStatus;
  created_at: number;
  updated_at: number;
}

/** A friend as the viewer sees them: the conversation ID is relative to the viewer. */
export interface FriendReply {
  user: UserReply;
  conversation_id: string;
  since: number;
}

export interface BlockReply {
  user: UserReply;
  since: number;
}

export function toFriendRequestReply(request: FriendRequestEntity, from: UserReply, to: UserReply): FriendRequestReply {
  return {
    id: String(request.id),
    request_id: request.requestId,
    from,
    to,
    message: request.message,
    status: request.status,
    created_at: request.createdAt,
    updated_at: request.updatedAt,
  };
}

export function toFriendReply(friend: UserReply, since: number): FriendReply {
  return { user: friend, conversation_id: directConversationId(friend.user_id), since };
}

export function toBlockReply(block: Pick<BlockEntity, 'createdAt'>, blocked: UserReply): BlockReply {
  return { user: blocked, since: block.createdAt };
}
