import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { AuthUser } from '../common/auth-user';
import { Clock } from '../common/clock';
import { ConversationAccessService } from '../conversations/conversation-access.service';
import { directPeerId } from '../conversations/conversation-describer.service';
import { directConversationId } from '../conversations/conversation-id';
import { ConversationMembersRepository } from '../conversations/conversation-members.repository';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { effectiveMemberState } from '../conversations/member-state';
import { MessageCountersRepository } from '../conversations/message-counters.repository';
import { TransactionRunner } from '../database/transaction-runner';
import { OutboxRepository } from '../outbox/outbox.repository';
import { MarkReadDto } from './dto/message-ref.dto';
import { ReadReply } from './messages.reply';
import { MessagesRepository } from './messages.repository';

/** The reader's position in a conversation (read_seq) and the unread count that follows from it. */
@Injectable()
export class MessageReadsService {
  constructor(
    private readonly access: ConversationAccessService,
    private readonly conversations: ConversationsRepository,
    private readonly conversationMembers: ConversationMembersRepository,
    private readonly counters: MessageCountersRepository,
    private readonly messages: MessagesRepository,
    private readonly outbox: OutboxRepository,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * Moves read_seq forward (never back, never past the last visible message) and recounts
   * exactly, under the member row's lock: a one-to-one row stores the unread messages after
   * the new position, a group row those that do not count (own messages and tombstones).
   */
  async markRead(auth: AuthUser, dto: MarkReadDto): Promise<ReadReply> {
    const view = await this.access.resolveForViewer(auth.internalId, dto.conversation_id);
    const upper = view.member.visibleToSeq ?? view.conversation.lastSeq;
    if (BigInt(dto.read_seq) > BigInt(upper))
      throw AppError.invalid('read_seq', `is beyond the last message you can see (last_seq ${upper})`);
    const unchanged = (): ReadReply => ({
      conversation_id: dto.conversation_id,
      read_seq: view.member.readSeq,
      unread: view.member.unreadCount,
      event_id: null,
    });
    if (BigInt(dto.read_seq) <= BigInt(view.member.readSeq)) return unchanged();

    const now = this.clock.now();
    const result = await this.tx.run(async (manager) => {
      const member = await this.conversationMembers.lockMember(manager, view.member.id);
      const conversation = (await this.conversations.findById(view.conversation.id, manager))!;
      if (BigInt(dto.read_seq) <= BigInt(member.readSeq))
        return {
          readSeq: member.readSeq,
          unread: effectiveMemberState(member, conversation).unreadCount,
          eventId: null,
        };
      const visibleUpTo = member.visibleToSeq ?? conversation.lastSeq;
      const unread = await this.messages.countUnread(
        manager,
        view.conversation.id,
        dto.read_seq,
        visibleUpTo,
        auth.internalId,
      );
      const uncounted = Number(BigInt(visibleUpTo) - BigInt(dto.read_seq)) - unread;
      await this.counters.setRead(manager, member, dto.read_seq, { unread, uncounted }, now);
      const state = { conversation_id: dto.conversation_id, read_seq: dto.read_seq, unread };
      const eventId = await this.outbox.append(
        manager,
        { type: 'conversation.read', payload: {}, recipients: [{ userId: auth.internalId, private: state }] },
        now,
      );
      // A read receipt for the other side of a one-to-one conversation, in their own terms; in
      // a group nobody else is told (per-member receipts would cost a row per reader and message).
      if (conversation.type === 'direct') {
        const receipt = { conversation_id: directConversationId(auth.externalId), read_seq: dto.read_seq };
        await this.outbox.append(
          manager,
          {
            type: 'conversation.peer_read',
            payload: {},
            recipients: [{ userId: directPeerId(conversation, auth.internalId), private: receipt }],
          },
          now,
        );
      }
      return { readSeq: dto.read_seq, unread, eventId };
    });
    return {
      conversation_id: dto.conversation_id,
      read_seq: result.readSeq,
      unread: result.unread,
      event_id: result.eventId,
    };
  }
}
