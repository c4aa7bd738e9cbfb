import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { AuthUser } from '../common/auth-user';
import { Clock } from '../common/clock';
import { ConversationAccessService } from '../conversation-views/conversation-access.service';
import { directPeerId } from '../conversation-views/conversation-describer.service';
import { directConversationId } from '../conversations/conversation-id';
import { ConversationStore } from '../conversations/conversation-store.service';
import { TransactionRunner } from '../database/transaction-runner';
import { OutboxWriter } from '../outbox/outbox-writer';
import { MarkReadDto } from './dto/message-ref.dto';
import { ReadReply } from './messages.reply';

/** The reader's position in a conversation (read_seq) and the unread count that follows from it. */
@Injectable()
export class MessageReadsService {
  constructor(
    private readonly access: ConversationAccessService,
    private readonly store: ConversationStore,
    private readonly outbox: OutboxWriter,
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
      const read = await this.store.advanceRead(manager, view.member, dto.read_seq, now);
      if (!read.moved) return { readSeq: read.readSeq, unread: read.unread, eventId: null };
      const { conversation, unread, readSeq } = read;
      const state = { conversation_id: dto.conversation_id, read_seq: readSeq, unread };
      const eventId = await this.outbox.append(
        manager,
        { type: 'conversation.read', payload: {}, recipients: [{ userId: auth.internalId, private: state }] },
        now,
      );
      // A read receipt for the other side of a one-to-one conversation, in their own terms; in
      // a group nobody else is told (per-member receipts would cost a row per reader and message).
      if (conversation.type === 'direct') {
        const receipt = { conversation_id: directConversationId(auth.externalId), read_seq: readSeq };
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
      return { readSeq, unread, eventId };
    });
    return {
      conversation_id: dto.conversation_id,
      read_seq: result.readSeq,
      unread: result.unread,
      event_id: result.eventId,
    };
  }
}
