import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { CursorCodec } from '../common/pagination/cursor';
import { ErrorCode } from '../common/error-code';
import { ConversationAccessService, ViewerConversation } from '../conversation-views/conversation-access.service';
import { SeqRange, isSeqVisible, visibleRange } from '../conversations/visibility';
import type { Message } from '../conversations/message';
import { MessageHistory } from '../conversations/message-history.service';
import { versionsSeenBy } from '../conversations/member-state';
import { AuthUser } from '../common/auth-user';
import { UsersService } from '../users/users.service';
import { MessagesQueryDto } from './dto/messages-query.dto';
import { SearchMessagesQueryDto } from './dto/search-query.dto';
import { MessageReply } from './message.mapper';
import { toMessageReply } from '../conversations/message-reply';
import { MessageWindowReply, SearchPageReply } from './messages.reply';

export const WINDOW_SIZE = 50;
const SEARCH_PAGE = 20;

const max = (a: string, b: string): string => (BigInt(a) > BigInt(b) ? a : b);
const min = (a: string, b: string): string => (BigInt(a) < BigInt(b) ? a : b);

/** Reads message windows for the recovery rules of spec 4.7, and searches one conversation. */
@Injectable()
export class MessageWindowService {
  constructor(
    private readonly access: ConversationAccessService,
    private readonly messages: MessageHistory,
    private readonly users: UsersService,
    private readonly cursors: CursorCodec,
  ) {}

  async read(auth: AuthUser, query: MessagesQueryDto): Promise<MessageWindowReply> {
    const trio = [query.known_last_seq, query.known_updated_at, query.known_deletion_revision];
    const trioSent = trio.filter((v) => v !== undefined).length;
    if (trioSent > 0 && trioSent < 3)
      throw AppError.invalid(
        'known_last_seq',
        'known_last_seq, known_updated_at and known_deletion_revision must be sent together',
      );
    const modes = [
      trioSent === 3,
      query.before_seq !== undefined,
      query.after_seq !== undefined,
      query.around_mid !== undefined,
    ].filter(Boolean).length;
    if (modes !== 1)
      throw AppError.invalid(
        'query',
        'send exactly one of: the calibration trio (known_*), before_seq, after_seq, around_mid',
      );

    const view = await this.access.resolveForViewer(auth.internalId, query.conversation_id);
    const visible = visibleRange(view.member, view.conversation);
    const versions = versionsSeenBy(view.member, view.conversation);
    const current = {
      last_seq: visible.to,
      updated_at: versions.updatedAt,
      deletion_revision: versions.deletionRevision,
    };
    const base = {
      conversation_id: query.conversation_id,
      ...current,
      read_seq: view.member.readSeq,
      unread: view.member.unreadCount,
    };

    if (trioSent === 3) {
      const same =
        query.known_last_seq === current.last_seq &&
        query.known_updated_at === String(current.updated_at) &&
        query.known_deletion_revision === current.deletion_revision;
      if (same) return { ...base, outcome: 'unchanged', messages: [], has_more_before: null, has_more_after: null };
      return {
        ...base,
        outcome: 'reset',
        ...(await this.window(query.conversation_id, view, visible, visible, WINDOW_SIZE, true)),
      };
    }
    if (query.before_seq !== undefined) {
      return {
        ...base,
        outcome: 'page',
        ...(await this.window(
          query.conversation_id,
          view,
          visible,
          { from: visible.from, to: min(visible.to, String(BigInt(query.before_seq) - 1n)) },
          WINDOW_SIZE,
          true,
        )),
      };
    }
    if (query.after_seq !== undefined) {
      return {
        ...base,
        outcome: 'page',
        ...(await this.window(
          query.conversation_id,
          view,
          visible,
          { from: max(visible.from, query.after_seq), to: visible.to },
          WINDOW_SIZE,
          false,
        )),
      };
    }
    const anchor = await this.messages.findById(query.around_mid as string);
    if (!anchor || anchor.conversationId !== view.conversation.id || !isSeqVisible(view.member, anchor.seq)) {
      throw new AppError(ErrorCode.MESSAGE_ABSENT, 'around_mid: no such message in this conversation');
    }
    const half = WINDOW_SIZE / 2;
    const older = await this.messages.window(
      view.conversation.id,
      { from: visible.from, to: String(BigInt(anchor.seq) - 1n) },
      half,
      true,
    );
    const newer = await this.messages.window(
      view.conversation.id,
      { from: String(BigInt(anchor.seq) - 1n), to: visible.to },
      half,
      false,
    );
    return {
      ...base,
      outcome: 'page',
      ...(await this.shape(query.conversation_id, visible, [...older, ...newer], {
        from: visible.from,
        to: visible.to,
      })),
    };
  }

  async search(auth: AuthUser, query: SearchMessagesQueryDto): Promise<SearchPageReply> {
    if (query.cursor !== undefined && query.before_mid !== undefined)
      throw AppError.invalid('cursor', 'send either cursor or before_mid, not both');
    const filters = { conversation_id: query.conversation_id, keyword: query.keyword };
    const beforeMid =
      query.cursor !== undefined
        ? this.cursors.decode<string>(query.cursor, auth.internalId, 'messages.search', filters)
        : (query.before_mid ?? null);
    const view = await this.access.resolveForViewer(auth.internalId, query.conversation_id);
    const visible = visibleRange(view.member, view.conversation);
    const rows = await this.messages.search(
      view.conversation.id,
      visible,
      query.keyword.toLowerCase(),
      beforeMid,
      SEARCH_PAGE + 1,
    );
    const hasMore = rows.length > SEARCH_PAGE;
    const page = rows.slice(0, SEARCH_PAGE);
    const items = await this.replies(page, query.conversation_id);
    const last = page.length ? String(page[page.length - 1].id) : null;
    return {
      items,
      has_more: hasMore,
      next_cursor: hasMore && last ? this.cursors.encode(auth.internalId, 'messages.search', filters, last) : null,
      next_before_mid: hasMore ? last : null,
    };
  }

  /** The newest or oldest `count` messages of `range`, with has_more flags against everything visible. */
  private async window(
    conversationId: string,
    view: ViewerConversation,
    visible: SeqRange,
    range: SeqRange,
    count: number,
    newest: boolean,
  ) {
    const rows = await this.messages.window(view.conversation.id, range, count, newest);
    return this.shape(conversationId, visible, rows, range);
  }

  private async shape(conversationId: string, visible: SeqRange, rows: Message[], range: SeqRange) {
    const first = rows.length ? BigInt(rows[0].seq) : null;
    const last = rows.length ? BigInt(rows[rows.length - 1].seq) : null;
    return {
      messages: await this.replies(rows, conversationId),
      // Sequences have no gaps, so what lies outside the window is known from the numbers alone.
      has_more_before: first !== null ? first - 1n > BigInt(visible.from) : BigInt(range.from) > BigInt(visible.from),
      has_more_after: last !== null ? last < BigInt(visible.to) : BigInt(range.to) < BigInt(visible.to),
    };
  }

  private async replies(rows: Message[], conversationId: string): Promise<MessageReply[]> {
    const users = await this.users.findByIds(rows.map((m) => m.senderId));
    const external = new Map(users.map((u) => [String(u.id), u.externalId]));
    return rows.map((m) => toMessageReply(m, conversationId, external.get(m.senderId) ?? ''));
  }
}
