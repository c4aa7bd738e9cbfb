import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { AuthUser } from '../common/auth-user';
import { canonicalJson } from '../common/canonical-json';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import {
  ConversationAccessService,
  ViewerConversation,
  memberConversationIds,
} from '../conversation-views/conversation-access.service';
import { directPeerId } from '../conversation-views/conversation-describer.service';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { Message } from '../conversations/message';
import { MessageHistory } from '../conversations/message-history.service';
import { toMessageReply } from '../conversations/message-reply';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { Relationships } from '../friends/relationships.service';
import { MediaAttachments } from '../media/media-attachments.service';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';
import { UsersService } from '../users/users.service';
import { BeforeSendHook } from './before-send-hook';
import { beforeSendRequest, describeConversation } from './before-send-rules';
import { SendMessageDto } from './dto/send-message.dto';
import { ParsedContent, findBlockedKeyword, parseMessageContent } from './message-content';
import { SendReply } from './messages.reply';
import { serverMessageKey } from './server-message-key';

/** Equal JSON content hashes equally, whatever the key order of a retry. */
function contentHash(conversationId: string, type: string, content: Record<string, unknown>): string {
  return createHash('sha256')
    .update(canonicalJson([conversationId, type, content]))
    .digest('hex');
}

/**
 * Sending messages: by users (send) and by the service on a member's behalf (call summaries),
 * under the same rules of who may post. Recall and delete are MessageChangesService's, reads
 * MessageReadsService's.
 */
@Injectable()
export class MessagingService {
  constructor(
    private readonly settings: RuntimeSettingsService,
    private readonly access: ConversationAccessService,
    private readonly store: ConversationStore,
    private readonly messages: MessageHistory,
    private readonly relationships: Relationships,
    private readonly media: MediaAttachments,
    private readonly users: UsersService,
    private readonly tx: TransactionRunner,
    private readonly beforeSend: BeforeSendHook,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * Sends a message. The sequence is allocated in the transaction that inserts the message,
   * with the unread counters, the media link and the outbox event, so a failed send leaves
   * no trace. `client_message_id` is the sender's idempotency key.
   */
  async send(auth: AuthUser, dto: SendMessageDto): Promise<SendReply> {
    const view = await this.access.resolveForViewer(auth.internalId, dto.conversation_id, 'conversation_id', true);
    const parsed = parseMessageContent(dto.type, dto.content);
    // The idempotency key is looked up only when it can matter: a retry that may no longer
    // send (unfriended, muted, ...) still gets its original message, and an insert that hits
    // the unique key (a retry, or two at once) answers with the stored one below.
    let content: Record<string, unknown>;
    try {
      await this.assertMaySend(auth, view, parsed);
      content = await this.withMedia(auth, dto.type, parsed);
    } catch (error) {
      const existing = await this.messages.findBySenderClientId(auth.internalId, dto.client_message_id);
      if (existing) return this.replaySend(existing, view, dto, parsed);
      throw error;
    }
    let stored = { parsed, content };
    if (this.beforeSend.enabled) {
      // A retry of a stored message is answered from the store: the host judged it once.
      const existing = await this.messages.findBySenderClientId(auth.internalId, dto.client_message_id);
      if (existing) return this.replaySend(existing, view, dto, parsed);
      stored = (await this.askBeforeSend(auth, view, dto, content)) ?? stored;
    }
    // The hash is of what the client sent, so a retry of a replaced message is still the same message.
    const hash = contentHash(view.conversation.id, dto.type, parsed.content);
    const eventId = randomUUID();
    const now = this.clock.now();
    try {
      const message = await this.tx.run(async (manager) => {
        const message = await this.store.appendMessage(manager, {
          conversation: view.conversation,
          idFor: memberConversationIds(view, auth),
          sender: auth,
          clientMessageId: dto.client_message_id,
          type: dto.type,
          content: stored.content,
          contentHash: hash,
          searchText: stored.parsed.searchText,
          eventId,
          now,
        });
        if (!message) throw new AppError(ErrorCode.SEND_FORBIDDEN, 'you are no longer a member of this conversation');
        if (stored.parsed.mediaId)
          await this.media.linkToMessage(manager, stored.parsed.mediaId, view.conversation.id, message.seq, now);
        return message;
      });
      return { message: toMessageReply(message, dto.conversation_id, auth.externalId), event_id: eventId };
    } catch (error) {
      // A retry answers with its original message, also when the sender was removed meanwhile.
      const refused = error instanceof AppError && error.code === ErrorCode.SEND_FORBIDDEN;
      if (!isUniqueViolation(error, 'sender') && !refused) throw error;
      const winner = await this.messages.findBySenderClientId(auth.internalId, dto.client_message_id);
      if (!winner) throw error;
      return this.replaySend(winner, view, dto, parsed);
    }
  }

  /**
   * The host's before-send hook (WEBHOOK_BEFORE_SEND_URL), outside any transaction: null keeps
   * the message as sent; a replacement is checked exactly like a client's content of that type.
   */
  private askBeforeSend(
    auth: AuthUser,
    view: ViewerConversation,
    dto: SendMessageDto,
    content: Record<string, unknown>,
  ): Promise<{ parsed: ParsedContent; content: Record<string, unknown> } | null> {
    const request = beforeSendRequest({
      senderId: auth.externalId,
      conversation: describeConversation(view, auth),
      type: dto.type,
      content,
      clientMessageId: dto.client_message_id,
    });
    return this.beforeSend.check(request, async (replacement) => {
      const parsed = parseMessageContent(dto.type, replacement);
      return { parsed, content: await this.withMedia(auth, dto.type, parsed) };
    });
  }

  private async replaySend(
    existing: Message,
    view: ViewerConversation,
    dto: SendMessageDto,
    parsed: ParsedContent,
  ): Promise<SendReply> {
    if (
      existing.conversationId !== view.conversation.id ||
      existing.contentHash !== contentHash(view.conversation.id, dto.type, parsed.content)
    ) {
      throw AppError.invalid('client_message_id', 'was already used for a different message');
    }
    return {
      message: toMessageReply(
        existing,
        dto.conversation_id,
        (await this.users.findById(existing.senderId))?.externalId ?? '',
      ),
      event_id: existing.eventId,
    };
  }

  /** 1203 unless the sender may post here now; 1218 for a disabled group. */
  private async assertMaySend(auth: AuthUser, view: ViewerConversation, parsed: ParsedContent): Promise<void> {
    await this.assertMayPost(auth, view);
    const keyword = findBlockedKeyword(parsed.moderatedText, this.settings.current.blockedKeywords);
    if (keyword) throw new AppError(ErrorCode.SEND_FORBIDDEN, 'the message contains blocked content');
  }

  /**
   * The rules of sending, whatever is sent: a current member; one-to-one, friends and not
   * blocked; in a group, not disabled, dismissed or muted. Calls follow them too.
   */
  async assertMayPost(auth: AuthUser, view: ViewerConversation): Promise<void> {
    const forbidden = (reason: string) => new AppError(ErrorCode.SEND_FORBIDDEN, reason);
    if (view.member.visibleToSeq !== null) throw forbidden('you are no longer a member of this conversation');
    if (view.conversation.type === 'direct') {
      const relationship =
        view.relationship ??
        (await this.relationships.between(auth.internalId, directPeerId(view.conversation, auth.internalId)));
      if (relationship.blocked) throw forbidden('sending is blocked between you and this user');
      if (!relationship.friends) throw forbidden('you are not friends with this user');
    } else {
      const group = view.group;
      if (!group) throw forbidden('the group no longer exists');
      if (group.disabled) throw new AppError(ErrorCode.GROUP_DISABLED, 'the group is disabled');
      if (group.dismissedAt !== null) throw forbidden('the group was dismissed');
      const membership = view.groupRole;
      if (!membership || membership.status !== 'active') throw forbidden('you are no longer a member of this group');
      if (membership.mutedUntil > this.clock.now())
        throw forbidden(`you are muted in this group until ${membership.mutedUntil}`);
    }
  }

  /**
   * A message the service writes on a member's behalf (a call summary), inside the caller's
   * transaction, with its sequence, unread counters and `message.new` event like any send.
   * `key` makes it idempotent; it is stored in a form no client key can take (serverMessageKey).
   * Answers null when the sender is no longer a member.
   */
  async appendServerMessage(
    manager: EntityManager,
    view: ViewerConversation,
    sender: AuthUser,
    input: { type: 'call'; key: string; content: Record<string, unknown> },
    now: number,
  ): Promise<{ message: Message; eventId: string } | null> {
    const eventId = randomUUID();
    const message = await this.store.appendMessage(manager, {
      conversation: view.conversation,
      idFor: memberConversationIds(view, sender),
      sender,
      clientMessageId: serverMessageKey(input.type, input.key),
      type: input.type,
      content: input.content,
      contentHash: contentHash(view.conversation.id, input.type, input.content),
      searchText: null,
      eventId,
      now,
    });
    return message && { message, eventId };
  }

  /** Image and file messages carry an upload of the sender's; its details are stored with the message. */
  private async withMedia(auth: AuthUser, type: string, parsed: ParsedContent): Promise<Record<string, unknown>> {
    if (!parsed.mediaId) return parsed.content;
    const media = await this.media.findOwned(parsed.mediaId, auth.internalId);
    if (!media) throw AppError.invalid('content.media_id', 'is not a media item you uploaded');
    if (type === 'image' && media.kind !== 'image') throw AppError.invalid('content.media_id', 'is not an image');
    return {
      ...parsed.content,
      mime_type: media.mimeType,
      size: media.size,
      file_name: media.fileName,
      url: `/app/sdk/media/${media.id}`,
    };
  }
}
