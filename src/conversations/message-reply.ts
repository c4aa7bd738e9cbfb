import type { MessageReply } from '../contract/messages';
import type { Message } from './message';

type StoredMessage = Pick<
  Message,
  'id' | 'seq' | 'clientMessageId' | 'type' | 'content' | 'status' | 'createdAt' | 'updatedAt'
>;

/** `conversationId` is the viewer's ID of the conversation; `senderId` the sender's external ID. */
export function toMessageReply(message: StoredMessage, conversationId: string, senderId: string): MessageReply {
  const { mid, ...rest } = toMessageBody(message, senderId);
  return { mid, conversation_id: conversationId, ...rest };
}

/**
 * A message without the reader's conversation ID: what a one-to-one event shares between its
 * two recipients, each of whom names the conversation differently.
 */
export function toMessageBody(message: StoredMessage, senderId: string): Omit<MessageReply, 'conversation_id'> {
  return {
    mid: String(message.id),
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
