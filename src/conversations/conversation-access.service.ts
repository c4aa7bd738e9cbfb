import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { isDecimalId } from '../common/ids';
import type { GroupEntity } from '../groups/group.entity';
import type { User } from '../users/user';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationEntity } from './conversation.entity';
import { directKey, parseConversationId } from './conversation-id';
import { ConversationMembersRepository } from './conversation-members.repository';
import { ConversationsRepository } from './conversations.repository';
import { GroupRoleRow, Relationship, ViewerConversationsRepository } from './viewer-conversations.repository';
import { MessagesRepository } from '../messages/messages.repository';

export interface ViewerConversation {
  conversation: ConversationEntity;
  member: ConversationMemberEntity;
  /** One-to-one: the other member. */
  peer: User | null;
  /** Group conversations: the group. */
  group: GroupEntity | null;
  /** Group conversations: the viewer's membership row (role, status, mute), when there is one. */
  groupRole: GroupRoleRow | null;
  /** One-to-one, when asked for (`withRelationship`): friendship and blocks with the peer. */
  relationship: Relationship | null;
}

/** Whether a member can see the message at `seq`: after they joined and, if they left, not after. */
export function isSeqVisible(
  member: Pick<ConversationMemberEntity, 'visibleFromSeq' | 'visibleToSeq'>,
  seq: string,
): boolean {
  const value = BigInt(seq);
  return (
    value > BigInt(member.visibleFromSeq) && (member.visibleToSeq === null || value <= BigInt(member.visibleToSeq))
  );
}

/** Answers "may this user see this conversation, and these messages in it?". */
@Injectable()
export class ConversationAccessService {
  constructor(
    private readonly conversations: ViewerConversationsRepository,
    private readonly messages: MessagesRepository,
    private readonly store: ConversationsRepository,
    private readonly members: ConversationMembersRepository,
  ) {}

  /** The stored one-to-one conversation of two users (internal IDs), or null. */
  findDirect(userId: string, otherId: string): Promise<ConversationEntity | null> {
    return this.store.findByDirectKey(directKey(userId, otherId));
  }

  /** A group's conversation (the group's row ID), or null. */
  findGroup(groupId: string): Promise<ConversationEntity | null> {
    return this.store.findByGroupId(groupId);
  }

  /** Whether the user is a member now: joined, and neither left nor removed. */
  async isCurrentMember(conversationId: string, userId: string): Promise<boolean> {
    const member = await this.members.findMember(conversationId, userId);
    return member !== null && member.visibleToSeq === null;
  }

  /**
   * Resolves a viewer-relative conversation ID. A malformed ID is 1004 naming `field`; one the
   * viewer has no membership in is 1201, whether or not it exists.
   */
  async resolveForViewer(
    viewerId: string,
    conversationId: string,
    field = 'conversation_id',
    withRelationship = false,
  ): Promise<ViewerConversation> {
    const ref = parseConversationId(conversationId);
    if (!ref)
      throw AppError.invalid(field, 'is not a conversation ID (friend_<base64url user_id> or group_<group_id>)');
    const inaccessible = (): AppError =>
      new AppError(ErrorCode.CONVERSATION_INACCESSIBLE, `${field}: conversation absent or not accessible`);
    if (ref.type === 'direct') {
      const found = await this.conversations.resolveDirect(viewerId, ref.peerExternalId, withRelationship);
      if (!found.target || String(found.target.id) === viewerId || !found.conversation || !found.member)
        throw inaccessible();
      return {
        conversation: found.conversation,
        member: found.member,
        peer: found.target,
        group: null,
        groupRole: null,
        relationship: found.relationship,
      };
    }
    const found = await this.conversations.resolveGroup(viewerId, ref.publicGroupId);
    if (!found.target || !found.conversation || !found.member) throw inaccessible();
    return {
      conversation: found.conversation,
      member: found.member,
      peer: null,
      group: found.target,
      groupRole: found.role,
      relationship: null,
    };
  }

  /** Every ID must be a message of the conversation that the viewer can see (not a tombstone). */
  async assertMessagesVisible(
    view: ViewerConversation,
    messageIds: readonly string[],
    field = 'message_ids',
  ): Promise<void> {
    if (messageIds.length === 0) return;
    // IDs beyond BIGINT are well-formed but can name no message.
    const storable = messageIds.filter(isDecimalId);
    const found = new Map(
      (await this.messages.findInConversation(view.conversation.id, storable)).map((m) => [String(m.id), m]),
    );
    for (const id of messageIds) {
      const message = found.get(id);
      if (!message || message.status !== 'normal' || !isSeqVisible(view.member, message.seq)) {
        throw new AppError(
          ErrorCode.MESSAGE_ABSENT,
          `${field}: message ${id} is not a visible message of the conversation`,
        );
      }
    }
  }
}
