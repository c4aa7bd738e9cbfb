import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { AppError } from '../common/app-error';
import { AuthUser } from '../common/auth-user';
import { canonicalJson } from '../common/canonical-json';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { ConversationAccessService, memberConversationIds } from '../conversation-views/conversation-access.service';
import { directConversationId, groupConversationId } from '../conversations/conversation-id';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { Conversation } from '../conversations/conversation';
import type { MemberConversationIds } from '../conversations/message-event-writer';
import { toMessageReply } from '../conversations/message-reply';
import type { Alongside } from '../database/alongside';
import { TransactionRunner } from '../database/transaction-runner';
import { Relationships } from '../friends/relationships.service';
import { GroupDirectory } from '../groups/group-directory.service';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';
import { ParsedContent, findBlockedKeyword, parseMessageContent, parseNoticeContent } from './message-content';
import { SendReply } from './messages.reply';
import { MessagingService } from './messaging.service';
import { SYSTEM_SENDER, serverMessageKey } from './server-message-key';

/** Types the host may send as a user: those without an upload (an upload belongs to the uploading user). */
export const HOST_SEND_TYPES = ['text', 'custom'] as const;
export type HostSendType = (typeof HOST_SEND_TYPES)[number];

/** Where a host message goes: the pair's one-to-one conversation, or a group's. */
export type HostTarget = { kind: 'direct'; peer: AuthUser } | { kind: 'group'; groupId: string };

interface Prepared {
  conversation: Pick<Conversation, 'id' | 'type' | 'directKey'>;
  idFor: MemberConversationIds;
  /** The conversation ID in the reply: the sender's view (for a notice to a pair, the first user's). */
  replyId: string;
}

const hashOf = (conversationId: string, type: string, content: Record<string, unknown>): string =>
  createHash('sha256')
    .update(canonicalJson([conversationId, type, content]))
    .digest('hex');

/**
 * Messages the host backend writes through the server API: as a user, or as a system notice.
 * Both go through ConversationStore.appendMessage like every send (sequence, unread counters,
 * `message.new`), keyed by the request's ID in the service's own key space (serverMessageKey),
 * and are not put to the before-send hook (they come from the host already).
 */
@Injectable()
export class HostMessagingService {
  constructor(
    private readonly settings: RuntimeSettingsService,
    private readonly access: ConversationAccessService,
    private readonly store: ConversationStore,
    private readonly messaging: MessagingService,
    private readonly relationships: Relationships,
    private readonly groups: GroupDirectory,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * As `sender`. A group: the rules of a user's send (current member, group not disabled,
   * dismissed or muted: 1201, 1203, 1218). One-to-one: the host may write between users who
   * are not friends (the conversation is opened if needed), never across a block (1203).
   */
  async sendAs(
    sender: AuthUser,
    target: HostTarget,
    type: HostSendType,
    content: unknown,
    requestId: string,
    alongside: Alongside<SendReply>,
  ): Promise<SendReply> {
    const parsed = parseMessageContent(type, content);
    this.assertAllowedText(parsed);
    let prepared: (manager: Parameters<Alongside<SendReply>>[0], now: number) => Promise<Prepared>;
    if (target.kind === 'group') {
      const view = await this.access.resolveForViewer(
        sender.internalId,
        groupConversationId(target.groupId),
        'group_id',
      );
      await this.messaging.assertMayPost(sender, view);
      const fixed = { conversation: view.conversation, idFor: memberConversationIds(view, sender) };
      prepared = () => Promise.resolve({ ...fixed, replyId: groupConversationId(target.groupId) });
    } else {
      if ((await this.relationships.between(sender.internalId, target.peer.internalId)).blocked)
        throw new AppError(ErrorCode.SEND_FORBIDDEN, 'to_user_id: sending is blocked between these users');
      prepared = (manager, now) => this.direct(manager, sender, target.peer, now);
    }
    return this.append(sender, type, parsed, serverMessageKey('host', requestId), prepared, alongside);
  }

  /** A system notice (no sender) into a group that is not dismissed or disabled, or a pair's conversation. */
  async notice(
    target: { kind: 'direct'; users: [AuthUser, AuthUser] } | { kind: 'group'; groupId: string },
    content: unknown,
    requestId: string,
    alongside: Alongside<SendReply>,
  ): Promise<SendReply> {
    const parsed = parseNoticeContent(content);
    let prepared: (manager: Parameters<Alongside<SendReply>>[0], now: number) => Promise<Prepared>;
    if (target.kind === 'group') {
      const group = await this.groups.findByPublicId(target.groupId);
      if (!group) throw new AppError(ErrorCode.CONVERSATION_INACCESSIBLE, 'group_id: no such group');
      if (group.dismissedAt !== null) throw new AppError(ErrorCode.SEND_FORBIDDEN, 'group_id: the group was dismissed');
      if (group.disabled) throw new AppError(ErrorCode.GROUP_DISABLED, 'group_id: the group is disabled');
      const conversation = await this.store.findByGroupId(group.id);
      if (!conversation) throw new AppError(ErrorCode.CONVERSATION_INACCESSIBLE, 'group_id: no such group');
      const conversationId = groupConversationId(target.groupId);
      prepared = () => Promise.resolve({ conversation, idFor: () => conversationId, replyId: conversationId });
    } else {
      const [first, second] = target.users;
      prepared = (manager, now) => this.direct(manager, first, second, now);
    }
    return this.append(SYSTEM_SENDER, 'notice', parsed, serverMessageKey('notice', requestId), prepared, alongside);
  }

  private assertAllowedText(parsed: ParsedContent): void {
    if (findBlockedKeyword(parsed.moderatedText, this.settings.current.blockedKeywords))
      throw new AppError(ErrorCode.SEND_FORBIDDEN, 'content: the message contains blocked content');
  }

  /** The pair's conversation, opened in the send's transaction when they never had one. */
  private async direct(
    manager: Parameters<Alongside<SendReply>>[0],
    actor: AuthUser,
    peer: AuthUser,
    now: number,
  ): Promise<Prepared> {
    const conversation = await this.store.ensureDirect(manager, actor.internalId, peer.internalId, now);
    return {
      conversation,
      idFor: (userId) =>
        userId === actor.internalId ? directConversationId(peer.externalId) : directConversationId(actor.externalId),
      replyId: directConversationId(peer.externalId),
    };
  }

  private async append(
    sender: AuthUser,
    type: string,
    parsed: ParsedContent,
    key: string,
    prepare: (manager: Parameters<Alongside<SendReply>>[0], now: number) => Promise<Prepared>,
    alongside: Alongside<SendReply>,
  ): Promise<SendReply> {
    const eventId = randomUUID();
    return this.tx.run(async (manager) => {
      const now = this.clock.now();
      const target = await prepare(manager, now);
      const message = await this.store.appendMessage(manager, {
        conversation: target.conversation,
        idFor: target.idFor,
        sender,
        clientMessageId: key,
        type,
        content: parsed.content,
        contentHash: hashOf(target.conversation.id, type, parsed.content),
        searchText: parsed.searchText,
        eventId,
        now,
      });
      if (!message)
        throw new AppError(ErrorCode.SEND_FORBIDDEN, 'sender_id: is no longer a member of this conversation');
      const reply = { message: toMessageReply(message, target.replyId, sender.externalId), event_id: eventId };
      await alongside(manager, reply);
      return reply;
    });
  }
}
