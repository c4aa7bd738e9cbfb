import type { ConversationMemberEntity } from '../conversations/conversation-member.entity';
import type { ConversationEntity } from '../conversations/conversation.entity';
import type { ConversationView } from '../conversations/conversation-describer.service';
import type { MessageReply } from '../messages/message.mapper';

/** One entry of the home list, as its member sees it. */
export interface ConversationItem {
  conversation_id: string;
  type: 'direct' | 'group';
  title: string;
  avatar: string;
  peer_user_id: string | null;
  group_id: string | null;
  last_message: MessageReply | null;
  last_seq: string;
  read_seq: string;
  unread: number;
  pinned: boolean;
  muted: boolean;
  hidden: boolean;
  /** Content version (Unix ms): changes with every send, recall and delete. */
  updated_at: number;
  deletion_revision: string;
  last_activity_at: number;
  /** false after leaving or removal: the history up to then stays readable. */
  is_member: boolean;
}

export function toConversationItem(
  view: ConversationView,
  conversation: Pick<ConversationEntity, 'lastSeq' | 'contentUpdatedAt' | 'deletionRevision'>,
  member: Pick<ConversationMemberEntity, 'visibleToSeq' | 'readSeq' | 'unreadCount' | 'pinned' | 'muted' | 'hidden' | 'lastActivityAt'>,
  lastMessage: MessageReply | null,
): ConversationItem {
  return {
    conversation_id: view.conversationId,
    type: view.type,
    title: view.title,
    avatar: view.avatar,
    peer_user_id: view.peerUserId,
    group_id: view.groupId,
    last_message: lastMessage,
    last_seq: member.visibleToSeq ?? String(conversation.lastSeq),
    read_seq: String(member.readSeq),
    unread: member.unreadCount,
    pinned: member.pinned,
    muted: member.muted,
    hidden: member.hidden,
    updated_at: conversation.contentUpdatedAt,
    deletion_revision: String(conversation.deletionRevision),
    last_activity_at: member.lastActivityAt,
    is_member: member.visibleToSeq === null,
  };
}
