import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { isDecimalId } from '../common/ids';
import type { Group } from '../groups/group';
import type { User } from '../users/user';
import type { ConversationMember } from '../conversations/conversation';
import type { Conversation } from '../conversations/conversation';
import { isSeqVisible } from '../conversations/visibility';
import { directConversationId, groupConversationId, parseConversationId } from '../conversations/conversation-id';
import { MessageHistory } from '../conversations/message-history.service';
import { MemberConversationIds } from '../conversations/message-event-writer';
import type { AuthUser } from '../common/auth-user';
import { GroupRoleRow, Relationship, ViewerConversationsRepository } from './viewer-conversations.repository';

export interface ViewerConversation {
  conversation: Conversation;
  member: ConversationMember;
  /** One-to-one: the other member. */
  peer: User | null;
  /** Group conversations: the group. */
  group: Group | null;
  /** Group conversations: the viewer's membership row (role, status, mute), when there is one. */
  groupRole: GroupRoleRow | null;
  /** One-to-one, when asked for (`withRelationship`): friendship and blocks with the peer. */
  relationship: Relationship | null;
}

/**
 * Each member's ID for the conversation, from what resolving it already loaded: a group has one
 * ID; in a one-to-one conversation each side's ID names the other side.
 */
export function memberConversationIds(view: ViewerConversation, actor: AuthUser): MemberConversationIds {
  if (view.group) {
    const conversationId = groupConversationId(view.group.publicId);
    return () => conversationId;
  }
  const peerExternalId = view.peer?.externalId ?? '';
  return (userId: string) =>
    userId === actor.internalId ? directConversationId(peerExternalId) : directConversationId(actor.externalId);
}

/** Answers "may this user see this conversation, and these messages in it?". */
@Injectable()
export class ConversationAccessService {
  constructor(
    private readonly conversations: ViewerConversationsRepository,
    private readonly messages: MessageHistory,
  ) {}

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
