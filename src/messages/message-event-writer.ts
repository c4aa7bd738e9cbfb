import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AuthUser } from '../common/auth-user';
import { ViewerConversation } from '../conversations/conversation-access.service';
import { directConversationId, groupConversationId } from '../conversations/conversation-id';
import type { ConversationEntity } from '../conversations/conversation.entity';
import { ConversationMembersRepository } from '../conversations/conversation-members.repository';
import type { DirectPrivatePart, MessageEventType } from '../contract/events';
import { OutboxRepository } from '../outbox/outbox.repository';
import { UsersService } from '../users/users.service';
import { directPrivateParts } from './message-events';
import type { MessageEntity } from './message.entity';
import { toMessageReply } from './message.mapper';

/**
 * The outbox events of messages (new, recalled, deleted) with the message as each recipient
 * sees it, for sends, recalls, deletes and the service's own messages alike.
 */
@Injectable()
export class MessageEventWriter {
  constructor(
    private readonly members: ConversationMembersRepository,
    private readonly outbox: OutboxRepository,
    private readonly users: UsersService,
  ) {}

  /**
   * Writes a conversation event with the message as each recipient sees it. Runs inside the
   * caller's transaction and queries only through `manager`: a pooled query here would wait
   * for a connection while this transaction holds the conversation lock that the pool's other
   * transactions are queued on.
   */
  async emit(
    manager: EntityManager,
    type: MessageEventType,
    conversation: ConversationEntity,
    idFor: (userId: string) => string,
    actor: AuthUser,
    senderId: string,
    message: MessageEntity,
    now: number,
    extra: Record<string, unknown> = {},
    eventId: string = randomUUID(),
    privateParts?: Record<string, DirectPrivatePart> | null,
  ): Promise<string> {
    const body = toMessageReply(message, '', senderId);
    const seq = message.seq;
    if (conversation.type === 'group') {
      const payload = {
        message: { ...body, conversation_id: idFor(actor.internalId) },
        by: actor.externalId,
        ...extra,
        conversation_id: idFor(actor.internalId),
        unread: null,
      };
      return this.outbox.appendForConversation(
        manager,
        { type, payload, conversationId: conversation.id, seq },
        now,
        eventId,
      );
    }
    const { conversation_id: _omit, ...messageWithoutId } = body;
    const payload = { message: messageWithoutId, by: actor.externalId, ...extra };
    const parts = privateParts ?? (await this.privateParts(manager, conversation, idFor));
    return this.outbox.appendForConversation(
      manager,
      { type, payload, conversationId: conversation.id, seq, privateParts: parts },
      now,
      eventId,
    );
  }

  /**
   * One-to-one events carry each member's conversation ID and unread, read inside the
   * transaction after its own updates (null for groups, whose events are shared).
   */
  async privateParts(
    manager: EntityManager,
    conversation: ConversationEntity,
    idFor: (userId: string) => string,
  ): Promise<Record<string, DirectPrivatePart> | null> {
    if (conversation.type === 'group') return null;
    return directPrivateParts(await this.members.findCurrentMembers(conversation.id, manager), idFor);
  }

  /**
   * Each member's ID for the conversation, from what resolving it already loaded: a group has
   * one ID; in a one-to-one conversation each side's ID names the other side.
   */
  conversationIdFor(view: ViewerConversation, actor: AuthUser): (userId: string) => string {
    if (view.group) {
      const conversationId = groupConversationId(view.group.publicId);
      return () => conversationId;
    }
    const peerExternalId = view.peer?.externalId ?? '';
    return (userId: string) =>
      userId === actor.internalId ? directConversationId(peerExternalId) : directConversationId(actor.externalId);
  }

  async externalId(userId: string): Promise<string> {
    const [user] = await this.users.findByIds([userId]);
    return user?.externalId ?? '';
  }
}
