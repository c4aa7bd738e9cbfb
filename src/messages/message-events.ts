import type { ConversationEntity } from '../conversations/conversation.entity';
import type { ConversationMemberEntity } from '../conversations/conversation-member.entity';
import type { OutboxEventInput } from '../outbox/outbox.repository';

/**
 * Events about a conversation's content go to its current members. A group event is shared:
 * it names the conversation and carries null private state. In a one-to-one conversation each
 * side has its own conversation ID, so it travels in the recipient's private part (with the
 * recipient's unread); the delivered event is the payload merged with that private part.
 */
export function conversationEvent(
  type: string,
  conversation: ConversationEntity,
  members: ConversationMemberEntity[],
  idFor: (userId: string) => string,
  payload: Record<string, unknown>,
): OutboxEventInput {
  if (conversation.type === 'group') {
    const shared = { ...payload, conversation_id: members.length ? idFor(members[0].userId) : null, unread: null };
    return { type, payload: shared, recipients: members.map((m) => ({ userId: m.userId, private: null })) };
  }
  return {
    type,
    payload,
    recipients: members.map((m) => ({ userId: m.userId, private: { conversation_id: idFor(m.userId), unread: m.unreadCount } })),
  };
}
