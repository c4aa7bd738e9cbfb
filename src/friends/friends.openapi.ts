import { ApiProperty } from '@nestjs/swagger';
import { UserDoc } from '../auth/auth.openapi';
import { REQUEST_STATUSES } from './dto/list-friend-requests.dto';

const COMMON_CODES = [1003, 1004, 1101, 1102, 1103, 1202, 1500];

/** The codes every friends endpoint can answer, plus `extra`, in order. */
export function friendsCodes(...extra: number[]): number[] {
  return [...COMMON_CODES, ...extra].sort((a, b) => a - b);
}

export class FriendRequestDoc {
  @ApiProperty({ description: 'Request ID (decimal string); pass it to accept / reject.', example: '42' }) id: string;
  @ApiProperty({ description: 'The sender\'s idempotency key.', example: 'fr-2f1c' }) request_id: string;
  @ApiProperty({ type: UserDoc }) from: UserDoc;
  @ApiProperty({ type: UserDoc }) to: UserDoc;
  @ApiProperty({ description: 'Greeting; "" when none.', example: 'Hi, it is Alice' }) message: string;
  @ApiProperty({ enum: REQUEST_STATUSES }) status: string;
  @ApiProperty({ description: 'Unix ms.' }) created_at: number;
  @ApiProperty({ description: 'Unix ms of the last status change.' }) updated_at: number;
}

export class FriendDoc {
  @ApiProperty({ type: UserDoc }) user: UserDoc;
  @ApiProperty({ description: 'The one-to-one conversation with this friend, as the caller sees it (friend_ + Base64URL of the friend\'s user_id).', example: 'friend_dV8xMDA4Nw' })
  conversation_id: string;
  @ApiProperty({ description: 'Unix ms when the friendship began.' }) since: number;
}

export class BlockDoc {
  @ApiProperty({ type: UserDoc }) user: UserDoc;
  @ApiProperty({ description: 'Unix ms when the block began.' }) since: number;
}

export class SendFriendRequestReplyDoc {
  @ApiProperty({ type: FriendRequestDoc, description: 'The stored request: the new one, the original on a retry, or the request already pending from the caller to the user.' })
  request: FriendRequestDoc;
  @ApiProperty({ type: FriendDoc, nullable: true, description: 'Set when the user had already asked the caller: both requests are accepted and the two are friends.' })
  friend: FriendDoc | null;
  @ApiProperty({ type: String, nullable: true, description: 'Event of this change; null when nothing changed (a retry, or a request already pending).' })
  event_id: string | null;
}

export class AcceptFriendRequestReplyDoc {
  @ApiProperty({ type: FriendDoc }) friend: FriendDoc;
  @ApiProperty() event_id: string;
}

export class RejectFriendRequestReplyDoc {
  @ApiProperty({ type: FriendRequestDoc }) request: FriendRequestDoc;
  @ApiProperty() event_id: string;
}

export class EventReplyDoc {
  @ApiProperty() event_id: string;
}

export class BlockStateDoc {
  @ApiProperty({ description: 'Whether the caller blocks the user after the call.' }) blocked: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'null when the call changed nothing (already in that state).' }) event_id: string | null;
}

class PageDoc {
  @ApiProperty({ type: String, nullable: true, description: 'Pass unchanged as `cursor` for the next page; null on the last page.' }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export class FriendRequestPageDoc extends PageDoc {
  @ApiProperty({ type: [FriendRequestDoc], description: 'At most 50, newest first.' }) items: FriendRequestDoc[];
}

export class FriendPageDoc extends PageDoc {
  @ApiProperty({ type: [FriendDoc], description: 'At most 50, most recent friendship first.' }) items: FriendDoc[];
}

export class BlockPageDoc extends PageDoc {
  @ApiProperty({ type: [BlockDoc], description: 'At most 50, most recent block first.' }) items: BlockDoc[];
}
