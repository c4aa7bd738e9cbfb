import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { GroupDirectory } from '../groups/group-directory.service';
import { UsersService } from '../users/users.service';
import type { Conversation } from '../conversations/conversation';
import { directConversationId, groupConversationId } from '../conversations/conversation-id';

/** How a conversation looks to one viewer. */
export interface ConversationView {
  conversationId: string;
  type: 'direct' | 'group';
  title: string;
  avatar: string;
  /** One-to-one: the peer's external user ID. */
  peerUserId: string | null;
  /** Group: the public group ID. */
  groupId: string | null;
}

/** What names a one-to-one conversation: the peer. */
export interface NamingPeer {
  externalId: string;
  nickname: string;
  avatar: string;
}

/** What names a group conversation: the group. */
export interface NamingGroup {
  publicId: string;
  name: string;
  avatar: string;
}

/** The other member of a one-to-one conversation, from its direct key. */
export function directPeerId(conversation: Pick<Conversation, 'directKey'>, viewerId: string): string {
  const [low, high] = (conversation.directKey ?? '').split(':');
  return low === viewerId ? high : low;
}

/**
 * Names conversations for a viewer: the one-to-one ID is built from the peer's external ID,
 * so each side sees its own ID for the one shared conversation. Batched: two queries at most.
 */
@Injectable()
export class ConversationDescriber {
  constructor(
    private readonly users: UsersService,
    private readonly groups: GroupDirectory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async describe(viewerId: string, conversations: Conversation[]): Promise<Map<string, ConversationView>> {
    const peerIds = conversations.filter((c) => c.type === 'direct').map((c) => directPeerId(c, viewerId));
    const groupIds = conversations.filter((c) => c.type === 'group' && c.groupId).map((c) => c.groupId as string);
    const [users, groups] = await Promise.all([this.users.findByIds(peerIds), this.groups.findByIds(groupIds)]);
    const userById = new Map(users.map((u) => [String(u.id), u]));
    const groupById = new Map(groups.map((g) => [String(g.id), g]));
    const views = new Map<string, ConversationView>();
    for (const conversation of conversations) {
      const view = this.viewOf(
        conversation,
        userById.get(directPeerId(conversation, viewerId)) ?? null,
        groupById.get(String(conversation.groupId)) ?? null,
      );
      if (view) views.set(conversation.id, view);
    }
    return views;
  }

  /** The view from an already loaded peer (one-to-one) or group; null when that is missing. */
  viewOf(
    conversation: Pick<Conversation, 'type'>,
    peer: NamingPeer | null,
    group: NamingGroup | null,
  ): ConversationView | null {
    if (conversation.type === 'direct') {
      if (!peer) return null;
      return {
        conversationId: directConversationId(peer.externalId),
        type: 'direct',
        title: peer.nickname,
        avatar: peer.avatar || this.config.defaultAvatarUrl,
        peerUserId: peer.externalId,
        groupId: null,
      };
    }
    if (!group) return null;
    return {
      conversationId: groupConversationId(group.publicId),
      type: 'group',
      title: group.name,
      avatar: group.avatar || this.config.defaultAvatarUrl,
      peerUserId: null,
      groupId: group.publicId,
    };
  }

  async describeOne(viewerId: string, conversation: Conversation): Promise<ConversationView> {
    const view = (await this.describe(viewerId, [conversation])).get(conversation.id);
    if (!view) throw new Error(`conversation ${conversation.id} has no peer or group`);
    return view;
  }
}
