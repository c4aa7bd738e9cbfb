import type { MessageEntity, MessageStatus } from '../conversations/message.entity';

export interface MessageReply {
  mid: string;
  conversation_id: string;
  conversation_seq: string;
  sender_id: string;
  client_message_id: string;
  type: string;
  /** null for tombstones (recalled or deleted). */
  content: Record<string, unknown> | null;
  status: MessageStatus;
  created_at: number;
  updated_at: number;
}

/** `conversationId` is the viewer's ID of the conversation; `senderId` the sender's external ID. */
export function toMessageReply(
  message: Pick<MessageEntity, 'id' | 'seq' | 'clientMessageId' | 'type' | 'content' | 'status' | 'createdAt' | 'updatedAt'>, conversationId: string, senderId: string): MessageReply {
  return {
    mid: String(message.id),
    conversation_id: conversationId,
    conversation_seq: String(message.seq),
    sender_id: senderId,
    client_message_id: message.clientMessageId,
    type: message.type,
    content: message.status === 'normal' && message.content ? (JSON.parse(message.content) as Record<string, unknown>) : null,
    status: message.status,
    created_at: message.createdAt,
    updated_at: message.updatedAt,
  };
}
