import { ApiProperty } from '@nestjs/swagger';
import { MESSAGE_TYPES } from './message-content';
import type { MessageEntity, MessageStatus } from './message.entity';

/** What clients send, and `call`: the summary the service writes when a call ends. */
const REPLY_TYPES = [...MESSAGE_TYPES, 'call'];

export class MessageReply {
  @ApiProperty({ description: 'Message ID (decimal string).' }) mid: string;
  @ApiProperty({ description: "The caller's ID of the conversation." }) conversation_id: string;
  @ApiProperty({ description: 'Position in the conversation: 1, 2, 3… with no gap (decimal string).' })
  conversation_seq: string;
  @ApiProperty({ description: 'External user ID of the sender.' }) sender_id: string;
  @ApiProperty() client_message_id: string;
  @ApiProperty({ enum: REPLY_TYPES, description: '`call`: a call summary written by the service.' }) type: string;
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

/** `conversationId` is the viewer's ID of the conversation; `senderId` the sender's external ID. */
export function toMessageReply(
  message: Pick<
    MessageEntity,
    'id' | 'seq' | 'clientMessageId' | 'type' | 'content' | 'status' | 'createdAt' | 'updatedAt'
  >,
  conversationId: string,
  senderId: string,
): MessageReply {
  return {
    mid: String(message.id),
    conversation_id: conversationId,
    conversation_seq: String(message.seq),
    sender_id: senderId,
    client_message_id: message.clientMessageId,
    type: message.type,
    content:
      message.status === 'normal' && message.content ? (JSON.parse(message.content) as Record<string, unknown>) : null,
    status: message.status,
    created_at: message.createdAt,
    updated_at: message.updatedAt,
  };
}
