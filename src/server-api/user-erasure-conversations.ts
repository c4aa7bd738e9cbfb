import { Injectable } from '@nestjs/common';
import type { Conversation } from '../conversations/conversation';
import { directConversationId, groupConversationId } from '../conversations/conversation-id';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { MemberConversationIds } from '../conversations/message-event-writer';
import { GroupDirectory } from '../groups/group-directory.service';
import type { User } from '../users/user';
import { UsersService } from '../users/users.service';

/** A conversation of the user's messages, with each member's ID for it. */
export interface NamedConversation {
  conversation: Conversation;
  /** The conversation ID as the user sees it. */
  ownId: string;
  idFor: MemberConversationIds;
}

/**
 * Names the conversations a page of the user's own messages is in, as each member sees them
 * (a one-to-one conversation is named after the other side): the tombstone events and the
 * export need it. Three reads per page, whatever its size.
 */
@Injectable()
export class ErasureConversations {
  constructor(
    private readonly store: ConversationStore,
    private readonly groups: GroupDirectory,
    private readonly users: UsersService,
  ) {}

  async name(
    user: Pick<User, 'id' | 'externalId'>,
    conversationIds: string[],
  ): Promise<Map<string, NamedConversation>> {
    const conversations = await this.store.findByIds([...new Set(conversationIds)]);
    const groupIds = conversations.flatMap((c) => (c.groupId ? [c.groupId] : []));
    const peerIds = conversations.flatMap((c) => (c.directKey ? [peerOf(c.directKey, user.id)] : []));
    const [groups, peers] = await Promise.all([this.groups.findByIds(groupIds), this.users.externalIds(peerIds)]);
    const publicIds = new Map(groups.map((g) => [g.id, g.publicId]));
    const named = new Map<string, NamedConversation>();
    for (const conversation of conversations) {
      if (conversation.directKey) {
        const peerExternalId = peers.get(peerOf(conversation.directKey, user.id)) ?? '';
        const ownId = directConversationId(peerExternalId);
        const peerSees = directConversationId(user.externalId);
        named.set(conversation.id, {
          conversation,
          ownId,
          idFor: (memberId) => (memberId === user.id ? ownId : peerSees),
        });
      } else {
        const ownId = groupConversationId(publicIds.get(conversation.groupId ?? '') ?? '');
        named.set(conversation.id, { conversation, ownId, idFor: () => ownId });
      }
    }
    return named;
  }
}

function peerOf(directKey: string, userId: string): string {
  const [low, high] = directKey.split(':');
  return low === userId ? high : low;
}
