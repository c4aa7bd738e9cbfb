import { ApiProperty } from '@nestjs/swagger';
import { BlockReply, FriendReply, FriendRequestReply } from './friend.mapper';
import { CursorPageReply } from '../common/pagination/cursor-page.reply';

export class SendFriendRequestReply {
  @ApiProperty({
    type: FriendRequestReply,
    description:
      'The stored request: the new one, the original on a retry, or the request already pending from the caller to the user.',
  })
  request: FriendRequestReply;
  @ApiProperty({
    type: FriendReply,
    nullable: true,
    description: 'Set when the user had already asked the caller: both requests are accepted and the two are friends.',
  })
  friend: FriendReply | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Event of this change; null when nothing changed (a retry, or a request already pending).',
  })
  event_id: string | null;
}

export class AcceptFriendRequestReply {
  @ApiProperty({ type: FriendReply }) friend: FriendReply;
  @ApiProperty() event_id: string;
}

export class RejectFriendRequestReply {
  @ApiProperty({ type: FriendRequestReply }) request: FriendRequestReply;
  @ApiProperty() event_id: string;
}

export class EventReply {
  @ApiProperty() event_id: string;
}

export class BlockStateReply {
  @ApiProperty({ description: 'Whether the caller blocks the user after the call.' }) blocked: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'null when the call changed nothing (already in that state).',
  })
  event_id: string | null;
}

export class FriendRequestPageReply extends CursorPageReply {
  @ApiProperty({ type: [FriendRequestReply], description: 'At most 50, newest first.' }) items: FriendRequestReply[];
}

export class FriendPageReply extends CursorPageReply {
  @ApiProperty({ type: [FriendReply], description: 'At most 50, most recent friendship first.' }) items: FriendReply[];
}

export class BlockPageReply extends CursorPageReply {
  @ApiProperty({ type: [BlockReply], description: 'At most 50, most recent block first.' }) items: BlockReply[];
}
