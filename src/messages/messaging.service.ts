import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { canonicalJson } from '../common/canonical-json';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { ConversationAccessService, ViewerConversation } from '../conversations/conversation-access.service';
import { directPeerId } from '../conversations/conversation-describer.service';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { MessageCountersRepository } from '../conversations/message-counters.repository';
import { MessageEntity } from './message.entity';
import { MessagesRepository } from './messages.repository';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { FriendsRepository } from '../friends/friends.repository';
import { AuthUser } from '../common/auth-user';
import { MediaRepository } from '../media/media.repository';
import { SendMessageDto } from './dto/send-message.dto';
import { MessageEventWriter } from './message-event-writer';
import { ParsedContent, findBlockedKeyword, parseMessageContent } from './message-content';
import { toMessageReply } from './message.mapper';
import { SendReply } from './messages.reply';
import { serverMessageKey } from './server-message-key';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';

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
    private readonly conversations: ConversationsRepository,
    private readonly counters: MessageCountersRepository,
    private readonly messages: MessagesRepository,
    private readonly friends: FriendsRepository,
    private readonly media: MediaRepository,
    private readonly events: MessageEventWriter,
    private readonly tx: TransactionRunner,
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
    const hash = contentHash(view.conversation.id, dto.type, parsed.content);
    const idFor = this.events.conversationIdFor(view, auth);
    const eventId = randomUUID();
    const now = this.clock.now();
    try {
      const message = await this.tx.run(async (manager) => {
        // Member rows first, as every writer takes them (ConversationMembersRepository.lockMembers):
        // the sequence allocation below locks the conversation row until commit and every send
        // of the conversation queues on it, so the less that follows it the more sends per
        // second one conversation takes.
        if (!(await this.counters.recordSend(manager, view.conversation, auth.internalId, now))) {
          throw new AppError(ErrorCode.SEND_FORBIDDEN, 'you are no longer a member of this conversation');
        }
        const privateParts = await this.events.privateParts(manager, view.conversation, idFor);
        const seq = await this.conversations.allocateNextSeq(manager, view.conversation.id, now);
        const message = await this.messages.insertInTransaction(
          manager,
          {
            conversationId: view.conversation.id,
            eventId,
            senderId: auth.internalId,
            clientMessageId: dto.client_message_id,
            type: dto.type,
            content: JSON.stringify(content),
            contentHash: hash,
            searchText: parsed.searchText,
            now,
          },
          seq,
        );
        if (parsed.mediaId)
          await this.media.linkToMessage(manager, parsed.mediaId, view.conversation.id, message.seq, now);
        await this.events.emit(
          manager,
          'message.new',
          view.conversation,
          idFor,
          auth,
          auth.externalId,
          message,
          now,
          {},
          eventId,
          privateParts,
        );
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

  private async replaySend(
    existing: MessageEntity,
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
      message: toMessageReply(existing, dto.conversation_id, await this.events.externalId(existing.senderId)),
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
        (await this.friends.relationship(auth.internalId, directPeerId(view.conversation, auth.internalId)));
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
  ): Promise<{ message: MessageEntity; eventId: string } | null> {
    if (!(await this.counters.recordSend(manager, view.conversation, sender.internalId, now))) return null;
    const idFor = this.events.conversationIdFor(view, sender);
    const privateParts = await this.events.privateParts(manager, view.conversation, idFor);
    const eventId = randomUUID();
    const seq = await this.conversations.allocateNextSeq(manager, view.conversation.id, now);
    const message = await this.messages.insertInTransaction(
      manager,
      {
        conversationId: view.conversation.id,
        eventId,
        senderId: sender.internalId,
        clientMessageId: serverMessageKey(input.type, input.key),
        type: input.type,
        content: JSON.stringify(input.content),
        contentHash: contentHash(view.conversation.id, input.type, input.content),
        searchText: null,
        now,
      },
      seq,
    );
    await this.events.emit(
      manager,
      'message.new',
      view.conversation,
      idFor,
      sender,
      sender.externalId,
      message,
      now,
      {},
      eventId,
      privateParts,
    );
    return { message, eventId };
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
