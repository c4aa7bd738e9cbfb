import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { ConversationAccessService, ViewerConversation } from '../conversation-views/conversation-access.service';
import type { Message } from '../conversations/message';
import { MessageHistory } from '../conversations/message-history.service';
import { toMessageReply } from '../conversations/message-reply';
import { isSeqVisible, visibleRange } from '../conversations/visibility';
import type { MessageReply } from '../messages/message.mapper';
import { UsersService } from '../users/users.service';
import type { Report } from './report';

/** A reported message with the messages around it, as the reporter can see them. */
export interface ReportMessageContext {
  /** The reporter's ID of the conversation (as the report names it). */
  conversationId: string;
  before: MessageReply[];
  message: MessageReply;
  after: MessageReply[];
  /** More messages the reporter can see lie beyond the window on that side. */
  hasMoreBefore: boolean;
  hasMoreAfter: boolean;
}

/**
 * The context of a reported message for the admin console, read with the reporter's own
 * visibility, exactly as their message window (MessageWindowService) reads it: their membership's
 * visible range (nothing before they joined or after they left; a rejoin starts a new range)
 * and tombstones for what was recalled or deleted. Nothing the reporter could not load is shown.
 */
@Injectable()
export class ReportContextService {
  constructor(
    private readonly access: ConversationAccessService,
    private readonly messages: MessageHistory,
    private readonly users: UsersService,
  ) {}

  async aroundAsReporterSees(report: Report, messageId: string, count: number): Promise<ReportMessageContext> {
    const reported = JSON.parse(report.messageIds) as string[];
    if (!report.conversationId || reported.length === 0)
      throw AppError.invalid('report_id', 'the report names no messages');
    if (!reported.includes(messageId)) throw AppError.invalid('message_id', "is not one of the report's messages");
    const view = await this.reporterView(report);
    const anchor = await this.messages.findById(messageId);
    if (!anchor || anchor.conversationId !== view.conversation.id || !isSeqVisible(view.member, anchor.seq))
      throw new AppError(ErrorCode.MESSAGE_ABSENT, 'message_id: the reporter can no longer see this message');
    const visible = visibleRange(view.member, view.conversation);
    const seq = BigInt(anchor.seq);
    const [before, after] = await Promise.all([
      this.messages.window(view.conversation.id, { from: visible.from, to: String(seq - 1n) }, count, true),
      this.messages.window(view.conversation.id, { from: anchor.seq, to: visible.to }, count, false),
    ]);
    const [beforeReplies, messageReplies, afterReplies] = await this.replies(report.conversationId, [
      before,
      [anchor],
      after,
    ]);
    // Sequences have no gaps, so what lies beyond the window is known from the numbers alone.
    const first = before.length ? BigInt(before[0].seq) : seq;
    const last = after.length ? BigInt(after[after.length - 1].seq) : seq;
    return {
      conversationId: report.conversationId,
      before: beforeReplies,
      message: messageReplies[0],
      after: afterReplies,
      hasMoreBefore: first - 1n > BigInt(visible.from),
      hasMoreAfter: last < BigInt(visible.to),
    };
  }

  private async reporterView(report: Report): Promise<ViewerConversation> {
    try {
      return await this.access.resolveForViewer(report.reporterId, report.conversationId);
    } catch (error) {
      if (error instanceof AppError)
        throw new AppError(
          ErrorCode.CONVERSATION_INACCESSIBLE,
          'report_id: the reporter can no longer see the conversation',
        );
      throw error;
    }
  }

  private async replies(conversationId: string, lists: Message[][]): Promise<MessageReply[][]> {
    const users = await this.users.findByIds([...new Set(lists.flat().map((m) => m.senderId))]);
    const external = new Map(users.map((u) => [String(u.id), u.externalId]));
    return lists.map((list) => list.map((m) => toMessageReply(m, conversationId, external.get(m.senderId) ?? '')));
  }
}
