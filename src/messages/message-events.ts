import type { ConversationMemberEntity } from '../conversations/conversation-member.entity';
import type { DirectPrivatePart } from '../contract/events';

/**
 * Events about a conversation's content are stored once and go to whoever can see the message
 * (see OutboxRepository.listForUser). A group event names the conversation in its shared
 * payload and carries null private state. In a one-to-one conversation each side has its own
 * conversation ID, so it travels, with the recipient's unread, in a private part per member;
 * the delivered event is the payload merged with that part.
 */
export function directPrivateParts(
  members: ConversationMemberEntity[],
  idFor: (userId: string) => string,
): Record<string, DirectPrivatePart> {
  return Object.fromEntries(
    members.map((m) => [m.userId, { conversation_id: idFor(m.userId), unread: m.unreadCount }]),
  );
}
