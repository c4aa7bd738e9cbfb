import { ApiProperty } from '@nestjs/swagger';
import { MESSAGE_TYPES } from './message-content';
import type { MessageStatus } from '../contract/messages';

/** What clients send, and `call`: the summary the service writes when a call ends. */
const REPLY_TYPES = [...MESSAGE_TYPES, 'call', 'notice'];

export class MessageReply {
  @ApiProperty({ description: 'Message ID (decimal string).' }) mid: string;
  @ApiProperty({ description: "The caller's ID of the conversation." }) conversation_id: string;
  @ApiProperty({ description: 'Position in the conversation: 1, 2, 3… with no gap (decimal string).' })
  conversation_seq: string;
  @ApiProperty({ description: 'External user ID of the sender.' }) sender_id: string;
  @ApiProperty() client_message_id: string;
  @ApiProperty({
    enum: REPLY_TYPES,
    description: '`call`: a call summary written by the service; `notice`: a system notice (server API, sender_id "").',
  })
  type: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'null for recalled or deleted messages (tombstones).',
  })
  content: Record<string, unknown> | null;
  @ApiProperty({ enum: ['normal', 'recalled', 'deleted'] }) status: MessageStatus;
  @ApiProperty() created_at: number;
  @ApiProperty() updated_at: number;
}
