import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { CursorCodec } from '../common/pagination/cursor';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ConversationAccessService } from '../conversation-views/conversation-access.service';
import { ConversationDescriber } from '../conversation-views/conversation-describer.service';
import type { ConversationMember } from '../conversations/conversation';
import { ConversationStore } from '../conversations/conversation-store.service';
import { HomeListService } from '../conversation-views/home-list.service';
import { HomeEntry, HomeMessage, HomePosition } from '../conversations/home-list';
import { MessageHistory } from '../conversations/message-history.service';
import { TransactionRunner } from '../database/transaction-runner';
import { AuthUser } from '../common/auth-user';
import { mediaLimits } from '../media/media-limits';
import { toMessageReply } from '../conversations/message-reply';
import { OutboxWriter } from '../outbox/outbox-writer';
import { UsersService } from '../users/users.service';
import { ConversationItem, toConversationItem } from './conversation-item';
import { SyncDto } from './dto/sync.dto';
import { SettingsReply, SyncReply, UnreadReply } from './sync.reply';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';

export const HOME_PAGE_SIZE = 50;
const UNREAD_DETAIL_LIMIT = 100;

/** The home list (spec 4.6 sync), the unread badge, and a member's own conversation settings. */
@Injectable()
export class SyncService {
  constructor(
    private readonly settings: RuntimeSettingsService,
    private readonly conversations: ConversationStore,
    private readonly homeList: HomeListService,
    private readonly messages: MessageHistory,
    private readonly users: UsersService,
    private readonly describer: ConversationDescriber,
    private readonly access: ConversationAccessService,
    private readonly outbox: OutboxWriter,
    private readonly tx: TransactionRunner,
    private readonly cursors: CursorCodec,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async sync(auth: AuthUser, dto: SyncDto): Promise<SyncReply> {
    const after =
      dto.cursor != null
        ? this.cursors.decode<HomePosition>(dto.cursor, auth.internalId, 'sync.conversations', {})
        : null;
    const { entries: rows, totals } = await this.homeList.page(auth, after, HOME_PAGE_SIZE + 1);
    const page = rows.slice(0, HOME_PAGE_SIZE);
    const hasMore = rows.length > HOME_PAGE_SIZE;
    const last = page[page.length - 1]?.member;
    const position: HomePosition | null = last
      ? { pinned: last.pinned ? 1 : 0, activity: last.lastActivityAt, conversationId: String(last.conversationId) }
      : null;
    return {
      conversations: {
        items: await this.items(auth, page),
        next_cursor:
          hasMore && position ? this.cursors.encode(auth.internalId, 'sync.conversations', {}, position) : null,
        has_more: hasMore,
      },
      unread: { total: totals.total, total_unmuted: totals.unmuted },
      capabilities: this.settings.current.capabilities,
      media_limits: mediaLimits(this.config),
      server_time: this.clock.now(),
    };
  }

  async unread(auth: AuthUser): Promise<UnreadReply> {
    const [totals, rows] = await Promise.all([
      this.homeList.unreadTotals(auth.internalId),
      this.homeList.withUnread(auth.internalId, UNREAD_DETAIL_LIMIT + 1),
    ]);
    const listed = rows.slice(0, UNREAD_DETAIL_LIMIT);
    const views = await this.describer.describe(
      auth.internalId,
      await this.conversations.findByIds(listed.map((m) => m.conversationId)),
    );
    return {
      total: totals.total,
      total_unmuted: totals.unmuted,
      conversations: listed.flatMap((m) => {
        const view = views.get(m.conversationId);
        return view ? [{ conversation_id: view.conversationId, unread: m.unreadCount, muted: m.muted }] : [];
      }),
      has_more: rows.length > UNREAD_DETAIL_LIMIT,
    };
  }

  /** Pin, mute or hide: the member's private state, announced to their other devices. */
  async updateSettings(
    auth: AuthUser,
    conversationId: string,
    changes: Partial<Pick<ConversationMember, 'pinned' | 'muted' | 'hidden'>>,
  ): Promise<SettingsReply> {
    const view = await this.access.resolveForViewer(auth.internalId, conversationId);
    const changed = (Object.keys(changes) as Array<keyof typeof changes>).some(
      (key) => view.member[key] !== changes[key],
    );
    let eventId: string | null = null;
    if (changed) {
      const now = this.clock.now();
      eventId = await this.tx.run(async (manager) => {
        // A hidden conversation shows again with the next message it brings this member: the
        // last sequence is read here, so a message that arrived since the view was read counts.
        const current = changes.hidden ? await this.conversations.findById(view.conversation.id, manager) : null;
        const hiddenSeq =
          changes.hidden === undefined
            ? {}
            : {
                hiddenSeq: changes.hidden
                  ? (view.member.visibleToSeq ?? current?.lastSeq ?? view.conversation.lastSeq)
                  : null,
              };
        await this.conversations.updateSettings(manager, view.member.id, { ...changes, ...hiddenSeq }, now);
        const member = (await this.conversations.findMember(view.conversation.id, auth.internalId, manager))!;
        const state = {
          conversation_id: conversationId,
          pinned: member.pinned,
          muted: member.muted,
          hidden: member.hidden,
        };
        return this.outbox.append(
          manager,
          { type: 'conversation.updated', payload: {}, recipients: [{ userId: auth.internalId, private: state }] },
          now,
        );
      });
    }
    const [item] = await this.items(auth, [(await this.homeList.entry(auth, view.conversation.id))!]);
    return { conversation: item, event_id: eventId };
  }

  /**
   * Items for home-list rows, which bring their names and last messages; only a former
   * member's last message (the last one of their time in the conversation) is read here.
   */
  private async items(auth: AuthUser, entries: HomeEntry[]): Promise<ConversationItem[]> {
    const formerLast = new Map<string, HomeMessage>();
    for (const { member } of entries.filter((e) => e.member.visibleToSeq !== null)) {
      const [latest] = await this.messages.window(
        member.conversationId,
        { from: member.visibleFromSeq, to: member.visibleToSeq as string },
        1,
        true,
      );
      if (latest) formerLast.set(member.conversationId, latest);
    }
    const formerSenders = new Map(
      (await this.users.findByIds([...formerLast.values()].map((m) => m.senderId))).map((u) => [
        String(u.id),
        u.externalId,
      ]),
    );
    return entries.flatMap(({ member, conversation, peer, group, lastMessage }) => {
      const view = this.describer.viewOf(conversation, peer, group);
      if (!view) return [];
      const former = formerLast.get(member.conversationId);
      const last = former
        ? { message: former, senderExternalId: formerSenders.get(former.senderId) ?? '' }
        : member.visibleToSeq === null
          ? lastMessage
          : null;
      const summary = last ? toMessageReply(last.message, view.conversationId, last.senderExternalId) : null;
      return [toConversationItem(view, conversation, member, summary)];
    });
  }
}
