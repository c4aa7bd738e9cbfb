import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { AuthUser } from '../common/auth-user';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import {
  ConversationAccessService,
  ViewerConversation,
  memberConversationIds,
} from '../conversation-views/conversation-access.service';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { Message } from '../conversations/message';
import { MessageHistory } from '../conversations/message-history.service';
import { toMessageReply } from '../conversations/message-reply';
import { isSeqVisible } from '../conversations/visibility';
import { TransactionRunner } from '../database/transaction-runner';
import { MediaAttachments } from '../media/media-attachments.service';
import { UsersService } from '../users/users.service';
import { MessageRefDto } from './dto/message-ref.dto';
import { MessageChangeReply } from './messages.reply';
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
    private readonly store: ConversationStore,
    private readonly messages: MessageHistory,
    private readonly media: MediaAttachments,
    private readonly users: UsersService,
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
    authorize: (view: ViewerConversation, message: Message, retry: boolean) => Promise<void>,
  ): Promise<MessageChangeReply> {
    const view = await this.access.resolveForViewer(auth.internalId, dto.conversation_id);
    const message = await this.messages.findById(dto.mid);
    if (!message || message.conversationId !== view.conversation.id || !isSeqVisible(view.member, message.seq)) {
      throw new AppError(ErrorCode.MESSAGE_ABSENT, 'mid: no such message in this conversation');
    }
    const senderExternalId = (await this.users.findById(message.senderId))?.externalId ?? '';
    const reply = (m: Message, eventId: string | null): MessageChangeReply => ({
      message: toMessageReply(m, dto.conversation_id, senderExternalId),
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

    const now = this.clock.now();
    const eventId = await this.tx.run(async (manager) => {
      const changed = await this.store.tombstoneMessage(manager, {
        conversation: view.conversation,
        idFor: memberConversationIds(view, auth),
        actor: auth,
        message,
        senderExternalId,
        to,
        now,
      });
      // After the conversation lock (taken above): the unlink's DELETE locks gaps that an image
      // send of this conversation, holding that lock, inserts its link into.
      if (changed !== null && (message.type === 'image' || message.type === 'file'))
        await this.media.unlinkMessage(manager, view.conversation.id, message.seq);
      return changed;
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
function refuseServiceWritten(message: Message, to: 'recalled' | 'deleted'): void {
  if (message.type === 'call')
    throw new AppError(ErrorCode.RECALL_FORBIDDEN, `mid: a call record cannot be ${to} by its caller`);
}
