import { ApiProperty } from '@nestjs/swagger';
import { directConversationId } from '../conversations/conversation-id';
import { UserReply } from '../users/user.mapper';
import type { BlockEntity } from './block.entity';
import type { FriendRequestEntity, FriendRequestStatus } from './friend-request.entity';
import { REQUEST_STATUSES } from './dto/list-friend-requests.dto';
import type * as contract from '../contract';

export class FriendRequestReply {
  @ApiProperty({ description: 'Request ID (decimal string); pass it to accept / reject.', example: '42' }) id: string;
  @ApiProperty({ description: "The sender's idempotency key.", example: 'fr-2f1c' }) request_id: string;
  @ApiProperty({ type: UserReply }) from: UserReply;
  @ApiProperty({ type: UserReply }) to: UserReply;
  @ApiProperty({ description: 'Greeting; "" when none.', example: 'Hi, it is Alice' }) message: string;
  @ApiProperty({ enum: REQUEST_STATUSES }) status: FriendRequestStatus;
  @ApiProperty({ description: 'Unix ms.' }) created_at: number;
  @ApiProperty({ description: 'Unix ms of the last status change.' }) updated_at: number;
}

/** A friend as the viewer sees them: the conversation ID is relative to the viewer. */
export class FriendReply {
  @ApiProperty({ type: UserReply }) user: UserReply;
  @ApiProperty({
    description:
      "The one-to-one conversation with this friend, as the caller sees it (friend_ + Base64URL of the friend's user_id).",
    example: 'friend_dV8xMDA4Nw',
  })
  conversation_id: string;
  @ApiProperty({ description: 'Unix ms when the friendship began.' }) since: number;
}

export class BlockReply {
  @ApiProperty({ type: UserReply }) user: UserReply;
  @ApiProperty({ description: 'Unix ms when the block began.' }) since: number;
}

export function toFriendRequestReply(
  request: FriendRequestEntity,
  from: UserReply,
  to: UserReply,
): contract.FriendRequestReply {
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

export function toFriendReply(friend: UserReply, since: number): contract.FriendReply {
  return { user: friend, conversation_id: directConversationId(friend.user_id), since };
}

export function toBlockReply(block: Pick<BlockEntity, 'createdAt'>, blocked: UserReply): contract.BlockReply {
  return { user: blocked, since: block.createdAt };
}
