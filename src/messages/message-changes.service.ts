import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { AuthUser } from '../common/auth-user';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import {
  ConversationAccessService,
  ViewerConversation,
  isSeqVisible,
} from '../conversations/conversation-access.service';
import { ConversationMembersRepository } from '../conversations/conversation-members.repository';
import { MessageCountersRepository } from '../conversations/message-counters.repository';
import { TransactionRunner } from '../database/transaction-runner';
import { MediaRepository } from '../media/media.repository';
import { MessageRefDto } from './dto/message-ref.dto';
import { MessageEventWriter } from './message-event-writer';
import type { MessageEntity } from './message.entity';
import { toMessageReply } from './message.mapper';
import { MessageChangeReply } from './messages.reply';
import { MessagesRepository } from './messages.repository';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';

/**
 * Recall and delete for everyone. Both turn the message into a tombstone (same mid and sequence,
 * content removed), take it out of unread counts, and raise the conversation's content version
 * (and, for a delete, its deletion revision) so that clients recalibrate (spec 4.7).
 */
@Injectable()
export class MessageChangesService {
  constructor(
    private readonly settings: RuntimeSettingsService,
    private readonly access: ConversationAccessService,
    private readonly conversationMembers: ConversationMembersRepository,
    private readonly counters: MessageCountersRepository,
    private readonly messages: MessagesRepository,
    private readonly media: MediaRepository,
    private readonly events: MessageEventWriter,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Recall: by the sender within the configured window, or by a group owner or admin. */
  recall(auth: AuthUser, dto: MessageRefDto): Promise<MessageChangeReply> {
    return this.change(auth, dto, 'recalled', async (view, message, retry) => {
      // A retry of a recall that already happened is not held to the window.
      const withinWindow =
        retry || this.clock.now() - message.createdAt <= this.settings.current.recallWindowSeconds * 1000;
      if (this.isGroupManager(view)) return;
      refuseServiceWritten(message, 'recalled');
      if (message.senderId === auth.internalId && withinWindow) return;
      throw new AppError(
        ErrorCode.RECALL_FORBIDDEN,
        message.senderId === auth.internalId
          ? 'mid: the recall window has passed'
          : 'mid: only the sender or a group owner/admin may recall this message',
      );
    });
  }

  /** Delete for everyone: by the sender at any time, or by a group owner or admin. */
  delete(auth: AuthUser, dto: MessageRefDto): Promise<MessageChangeReply> {
    return this.change(auth, dto, 'deleted', async (view, message) => {
      if (this.isGroupManager(view)) return;
      refuseServiceWritten(message, 'deleted');
      if (message.senderId === auth.internalId) return;
      throw new AppError(
        ErrorCode.RECALL_FORBIDDEN,
        'mid: only the sender or a group owner/admin may delete this message',
      );
    });
  }

  private async change(
    auth: AuthUser,
    dto: MessageRefDto,
    to: 'recalled' | 'deleted',
    authorize: (view: ViewerConversation, message: MessageEntity, retry: boolean) => Promise<void>,
  ): Promise<MessageChangeReply> {
    const view = await this.access.resolveForViewer(auth.internalId, dto.conversation_id);
    const message = await this.messages.findById(dto.mid);
    if (!message || message.conversationId !== view.conversation.id || !isSeqVisible(view.member, message.seq)) {
      throw new AppError(ErrorCode.MESSAGE_ABSENT, 'mid: no such message in this conversation');
    }
    const reply = async (m: MessageEntity, eventId: string | null): Promise<MessageChangeReply> => ({
      message: toMessageReply(m, dto.conversation_id, await this.events.externalId(m.senderId)),
      event_id: eventId,
    });
    // Someone who left or was removed keeps reading their old window but changes nothing in it.
    if (view.member.visibleToSeq !== null)
      throw new AppError(ErrorCode.RECALL_FORBIDDEN, 'mid: you are no longer a member of this conversation');
    // Permission is checked first, so "already done" is only said to someone allowed to do it.
    if (message.status === to) {
      await authorize(view, message, true);
      return reply(message, null);
    }
    if (message.status === 'deleted') throw new AppError(ErrorCode.MESSAGE_ABSENT, 'mid: the message was deleted');
    await authorize(view, message, false);

    const idFor = this.events.conversationIdFor(view, auth);
    const senderId = await this.events.externalId(message.senderId);
    const now = this.clock.now();
    const eventId = await this.tx.run(async (manager) => {
      // Locks in the order every writer takes them (ConversationMembersRepository.lockMembers): the
      // message, a group's member rows, the conversation, then the media links. A delete of a
      // recalled message changes no unread but still updates former members' rows after the
      // conversation's, so a group's rows are locked first in either case.
      let counted = false;
      if (await this.messages.tombstone(manager, message.id, to, 'normal', now)) counted = true;
      else if (!(to === 'deleted' && (await this.messages.tombstone(manager, message.id, to, 'recalled', now))))
        return null;
      if (view.conversation.type === 'group') await this.conversationMembers.lockMembers(manager, view.conversation.id);
      if (counted) await this.counters.recordTombstone(manager, view.conversation, message.senderId, message.seq, now);
      const conversation = await this.counters.bumpContentVersion(
        manager,
        view.conversation,
        message.seq,
        now,
        to === 'deleted',
      );
      // After the conversation lock: the unlink's DELETE locks gaps that an image send of this
      // conversation, holding that lock, inserts its link into.
      if (message.type === 'image' || message.type === 'file')
        await this.media.unlinkMessage(manager, view.conversation.id, message.seq);
      const changed = await this.messages.findById(message.id, manager);
      return this.events.emit(
        manager,
        to === 'recalled' ? 'message.recalled' : 'message.deleted',
        conversation,
        idFor,
        auth,
        senderId,
        changed!,
        now,
        {
          updated_at: conversation.contentUpdatedAt,
          deletion_revision: String(conversation.deletionRevision),
          last_seq: String(conversation.lastSeq),
        },
      );
    });
    const current = (await this.messages.findById(message.id)) ?? message;
    return reply(current, eventId);
  }

  private isGroupManager(view: ViewerConversation): boolean {
    const membership = view.groupRole;
    return (
      view.conversation.type === 'group' &&
      membership !== null &&
      membership.status === 'active' &&
      (membership.role === 'owner' || membership.role === 'admin')
    );
  }
}

/**
 * A call record is written by the service under the caller's name: it tells the callee about a
 * missed or declined call, so the caller cannot take it back. Group owners and admins still
 * moderate it like any message.
 */
function refuseServiceWritten(message: MessageEntity, to: 'recalled' | 'deleted'): void {
  if (message.type === 'call')
    throw new AppError(ErrorCode.RECALL_FORBIDDEN, `mid: a call record cannot be ${to} by its caller`);
}
