import { ApiProperty } from '@nestjs/swagger';
import type { ServerMessagePageReply as ServerMessagePage } from '../contract/server-api';
import { MessageReply } from '../messages/message.mapper';

export class ServerMessagePageReply implements ServerMessagePage {
  @ApiProperty({ description: "group_<id>, or the pair's conversation as the first of user_ids sees it." })
  conversation_id: string;
  @ApiProperty({ type: [MessageReply], description: 'By sequence, oldest first; tombstones included.' })
  messages: MessageReply[];
  @ApiProperty({ description: "The conversation's last sequence when read (decimal string)." }) last_seq: string;
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Pass as after_seq for the next page.' })
  next_after_seq: string | null;
}
