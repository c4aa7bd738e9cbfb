import { ApiProperty } from '@nestjs/swagger';
import type { ConversationMember } from '../conversations/conversation';
import type { Conversation } from '../conversations/conversation';
import type { ConversationView } from '../conversation-views/conversation-describer.service';
import { MessageReply } from '../messages/message.mapper';

/** One entry of the home list, as its member sees it. */
export class ConversationItem {
  @ApiProperty() conversation_id: string;
  @ApiProperty({ enum: ['direct', 'group'] }) type: 'direct' | 'group';
  @ApiProperty() title: string;
  @ApiProperty() avatar: string;
  @ApiProperty({ type: String, nullable: true }) peer_user_id: string | null;
  @ApiProperty({ type: String, nullable: true }) group_id: string | null;
  @ApiProperty({ type: MessageReply, nullable: true }) last_message: MessageReply | null;
  @ApiProperty() last_seq: string;
  @ApiProperty() read_seq: string;
  @ApiProperty() unread: number;
  @ApiProperty() pinned: boolean;
  @ApiProperty() muted: boolean;
  @ApiProperty() hidden: boolean;
  /** Changes with every send, recall and delete. */
  @ApiProperty({ description: 'Content version (Unix ms).' }) updated_at: number;
  @ApiProperty() deletion_revision: string;
  @ApiProperty() last_activity_at: number;
  /** The history up to then stays readable. */
  @ApiProperty({ description: 'false after leaving or removal.' }) is_member: boolean;
}

export function toConversationItem(
  view: ConversationView,
  conversation: Pick<Conversation, 'lastSeq' | 'contentUpdatedAt' | 'deletionRevision'>,
  member: Pick<
    ConversationMember,
    'visibleToSeq' | 'readSeq' | 'unreadCount' | 'pinned' | 'muted' | 'hidden' | 'lastActivityAt'
  >,
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
