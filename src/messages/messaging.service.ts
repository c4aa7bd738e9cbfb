import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { canonicalJson } from '../common/canonical-json';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ConversationAccessService, ViewerConversation, isSeqVisible } from '../conversations/conversation-access.service';
import { directPeerId } from '../conversations/conversation-describer.service';
import { directConversationId, groupConversationId } from '../conversations/conversation-id';
import { ConversationEntity } from '../conversations/conversation.entity';
import { ConversationMembersRepository } from '../conversations/conversation-members.repository';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { effectiveMemberState } from '../conversations/member-state';
import { MessageEntity } from '../conversations/message.entity';
import { MessagesRepository } from '../conversations/messages.repository';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { FriendsRepository } from '../friends/friends.repository';
import { AuthUser } from '../im-token/auth-user';
import { MediaRepository } from '../media/media.repository';
import type { DirectPrivatePart, MessageEventType } from '../events/event-map';
import { OutboxRepository } from '../outbox/outbox.repository';
import { UsersRepository } from '../users/users.repository';
import { MarkReadDto, MessageRefDto } from './dto/message-ref.dto';
import { SendMessageDto } from './dto/send-message.dto';
import { directPrivateParts } from './message-events';
import { ParsedContent, findBlockedKeyword, parseMessageContent } from './message-content';
import { MessageReply, toMessageReply } from './message.mapper';

export interface SendReply {
  message: MessageReply;
  event_id: string;
}

export interface MessageChangeReply {
  message: MessageReply;
  /** null when the call changed nothing (the message was already in that state). */
  event_id: string | null;
}

export interface ReadReply {
  conversation_id: string;
  read_seq: string;
  unread: number;
  event_id: string | null;
}

/** Equal JSON content hashes equally, whatever the key order of a retry. */
function contentHash(conversationId: string, type: string, content: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson([conversationId, type, content])).digest('hex');
}

/** Sending, recalling, deleting and reading messages. */
@Injectable()
export class MessagingService {
  constructor(
    private readonly access: ConversationAccessService,
    private readonly conversations: ConversationsRepository,
    private readonly conversationMembers: ConversationMembersRepository,
    private readonly messages: MessagesRepository,
    private readonly friends: FriendsRepository,
    private readonly media: MediaRepository,
    private readonly users: UsersRepository,
    private readonly outbox: OutboxRepository,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Sends a message. The sequence is allocated in the transaction that inserts the message,
   * with the unread counters, the media link and the outbox event, so a failed send leaves
   * no trace. `client_message_id` is the sender's idempotency key.
   */
  async send(auth: AuthUser, dto: SendMessageDto): Promise<SendReply> {
    const view = await this.access.resolveForViewer(auth.id, dto.conversation_id, 'conversation_id', true);
    const parsed = parseMessageContent(dto.type, dto.content);
    // The idempotency key is looked up only when it can matter: a retry that may no longer
    // send (unfriended, muted, ...) still gets its original message, and an insert that hits
    // the unique key (a retry, or two at once) answers with the stored one below.
    let content: Record<string, unknown>;
    try {
      await this.assertMaySend(auth, view, parsed);
      content = await this.withMedia(auth, dto.type, parsed);
    } catch (error) {
      const existing = await this.messages.findBySenderClientId(auth.id, dto.client_message_id);
      if (existing) return this.replaySend(existing, view, dto, parsed);
      throw error;
    }
    const hash = contentHash(view.conversation.id, dto.type, parsed.content);
    const idFor = this.conversationIdFor(view, auth);
    const eventId = randomUUID();
    const now = this.clock.now();
    try {
      const message = await this.tx.run(async (manager) => {
        // Member rows first, as every writer takes them (ConversationMembersRepository.lockMembers):
        // the sequence allocation below locks the conversation row until commit and every send
        // of the conversation queues on it, so the less that follows it the more sends per
        // second one conversation takes.
        if (!(await this.conversationMembers.recordSend(manager, view.conversation, auth.id, now))) {
          throw new AppError(ErrorCode.SEND_FORBIDDEN, 'you are no longer a member of this conversation');
        }
        const privateParts = await this.privateParts(manager, view.conversation, idFor);
        const message = await this.messages.appendInTransaction(manager, {
          conversationId: view.conversation.id,
          eventId,
          senderId: auth.id,
          clientMessageId: dto.client_message_id,
          type: dto.type,
          content: JSON.stringify(content),
          contentHash: hash,
          searchText: parsed.searchText,
          now,
        });
        if (parsed.mediaId) await this.media.linkToMessage(manager, parsed.mediaId, view.conversation.id, message.seq, now);
        await this.emit(manager, 'message.new', view.conversation, idFor, auth, auth.userId, message, now, {}, eventId, privateParts);
        return message;
      });
      return { message: toMessageReply(message, dto.conversation_id, auth.userId), event_id: eventId };
    } catch (error) {
      // A retry answers with its original message, also when the sender was removed meanwhile.
      const refused = error instanceof AppError && error.code === ErrorCode.SEND_FORBIDDEN;
      if (!isUniqueViolation(error, 'sender') && !refused) throw error;
      const winner = await this.messages.findBySenderClientId(auth.id, dto.client_message_id);
      if (!winner) throw error;
      return this.replaySend(winner, view, dto, parsed);
    }
  }

  /** Recall: by the sender within the configured window, or by a group owner or admin. */
  recall(auth: AuthUser, dto: MessageRefDto): Promise<MessageChangeReply> {
    return this.change(auth, dto, 'recalled', async (view, message, retry) => {
      // A retry of a recall that already happened is not held to the window.
      const withinWindow = retry || this.clock.now() - message.createdAt <= this.config.messaging.recallWindowSeconds * 1000;
      if (message.senderId === auth.id && withinWindow) return;
      if (this.isGroupManager(view)) return;
      throw new AppError(ErrorCode.RECALL_FORBIDDEN, message.senderId === auth.id ? 'mid: the recall window has passed' : 'mid: only the sender or a group owner/admin may recall this message');
    });
  }

  /** Delete for everyone: by the sender at any time, or by a group owner or admin. */
  delete(auth: AuthUser, dto: MessageRefDto): Promise<MessageChangeReply> {
    return this.change(auth, dto, 'deleted', async (view, message) => {
      if (message.senderId === auth.id || this.isGroupManager(view)) return;
      throw new AppError(ErrorCode.RECALL_FORBIDDEN, 'mid: only the sender or a group owner/admin may delete this message');
    });
  }

  /**
   * Moves read_seq forward (never back, never past the last visible message) and recounts
   * exactly, under the member row's lock: a one-to-one row stores the unread messages after
   * the new position, a group row those that do not count (own messages and tombstones).
   */
  async markRead(auth: AuthUser, dto: MarkReadDto): Promise<ReadReply> {
    const view = await this.access.resolveForViewer(auth.id, dto.conversation_id);
    const upper = view.member.visibleToSeq ?? view.conversation.lastSeq;
    if (BigInt(dto.read_seq) > BigInt(upper)) throw AppError.invalid('read_seq', `is beyond the last message you can see (last_seq ${upper})`);
    const unchanged = (): ReadReply => ({ conversation_id: dto.conversation_id, read_seq: view.member.readSeq, unread: view.member.unreadCount, event_id: null });
    if (BigInt(dto.read_seq) <= BigInt(view.member.readSeq)) return unchanged();

    const now = this.clock.now();
    const result = await this.tx.run(async (manager) => {
      const member = await this.conversationMembers.lockMember(manager, view.member.id);
      const conversation = (await this.conversations.findById(view.conversation.id, manager))!;
      if (BigInt(dto.read_seq) <= BigInt(member.readSeq)) return { readSeq: member.readSeq, unread: effectiveMemberState(member, conversation).unreadCount, eventId: null };
      const visibleUpTo = member.visibleToSeq ?? conversation.lastSeq;
      const unread = await this.messages.countUnread(manager, view.conversation.id, dto.read_seq, visibleUpTo, auth.id);
      const uncounted = Number(BigInt(visibleUpTo) - BigInt(dto.read_seq)) - unread;
      await this.conversationMembers.setRead(manager, member, dto.read_seq, { unread, uncounted }, now);
      const state = { conversation_id: dto.conversation_id, read_seq: dto.read_seq, unread };
      const eventId = await this.outbox.append(manager, { type: 'conversation.read', payload: {}, recipients: [{ userId: auth.id, private: state }] }, now);
      // A read receipt for the other side of a one-to-one conversation, in their own terms; in
      // a group nobody else is told (per-member receipts would cost a row per reader and message).
      if (conversation.type === 'direct') {
        const receipt = { conversation_id: directConversationId(auth.userId), read_seq: dto.read_seq };
        await this.outbox.append(manager, { type: 'conversation.peer_read', payload: {}, recipients: [{ userId: directPeerId(conversation, auth.id), private: receipt }] }, now);
      }
      return { readSeq: dto.read_seq, unread, eventId };
    });
    return { conversation_id: dto.conversation_id, read_seq: result.readSeq, unread: result.unread, event_id: result.eventId };
  }

  private async change(
    auth: AuthUser,
    dto: MessageRefDto,
    to: 'recalled' | 'deleted',
    authorize: (view: ViewerConversation, message: MessageEntity, retry: boolean) => Promise<void>,
  ): Promise<MessageChangeReply> {
    const view = await this.access.resolveForViewer(auth.id, dto.conversation_id);
    const message = await this.messages.findById(dto.mid);
    if (!message || message.conversationId !== view.conversation.id || !isSeqVisible(view.member, message.seq)) {
      throw new AppError(ErrorCode.MESSAGE_ABSENT, 'mid: no such message in this conversation');
    }
    const reply = async (m: MessageEntity, eventId: string | null): Promise<MessageChangeReply> => ({
      message: toMessageReply(m, dto.conversation_id, await this.externalId(m.senderId)),
      event_id: eventId,
    });
    // Someone who left or was removed keeps reading their old window but changes nothing in it.
    if (view.member.visibleToSeq !== null) throw new AppError(ErrorCode.RECALL_FORBIDDEN, 'mid: you are no longer a member of this conversation');
    // Permission is checked first, so "already done" is only said to someone allowed to do it.
    if (message.status === to) {
      await authorize(view, message, true);
      return reply(message, null);
    }
    if (message.status === 'deleted') throw new AppError(ErrorCode.MESSAGE_ABSENT, 'mid: the message was deleted');
    await authorize(view, message, false);

    const idFor = this.conversationIdFor(view, auth);
    const senderId = await this.externalId(message.senderId);
    const now = this.clock.now();
    const eventId = await this.tx.run(async (manager) => {
      // Locks in the order every writer takes them (ConversationMembersRepository.lockMembers): the
      // message, a group's member rows, the conversation, then the media links. A delete of a
      // recalled message changes no unread but still updates former members' rows after the
      // conversation's, so a group's rows are locked first in either case.
      let counted = false;
      if (await this.messages.tombstone(manager, message.id, to, 'normal', now)) counted = true;
      else if (!(to === 'deleted' && (await this.messages.tombstone(manager, message.id, to, 'recalled', now)))) return null;
      if (view.conversation.type === 'group') await this.conversationMembers.lockMembers(manager, view.conversation.id);
      if (counted) await this.conversationMembers.recordTombstone(manager, view.conversation, message.senderId, message.seq, now);
      const conversation = await this.conversationMembers.bumpContentVersion(manager, view.conversation, message.seq, now, to === 'deleted');
      // After the conversation lock: the unlink's DELETE locks gaps that an image send of this
      // conversation, holding that lock, inserts its link into.
      if (message.type === 'image' || message.type === 'file') await this.media.unlinkMessage(manager, view.conversation.id, message.seq);
      const changed = await this.messages.findById(message.id, manager);
      return this.emit(manager, to === 'recalled' ? 'message.recalled' : 'message.deleted', conversation, idFor, auth, senderId, changed!, now, {
        updated_at: conversation.contentUpdatedAt,
        deletion_revision: String(conversation.deletionRevision),
        last_seq: String(conversation.lastSeq),
      });
    });
    const current = (await this.messages.findById(message.id)) ?? message;
    return reply(current, eventId);
  }

  /**
   * Writes a conversation event with the message as each recipient sees it. Runs inside the
   * caller's transaction and queries only through `manager`: a pooled query here would wait
   * for a connection while this transaction holds the conversation lock that the pool's other
   * transactions are queued on.
   */
  private async emit(
    manager: EntityManager,
    type: MessageEventType,
    conversation: ConversationEntity,
    idFor: (userId: string) => string,
    actor: AuthUser,
    senderId: string,
    message: MessageEntity,
    now: number,
    extra: Record<string, unknown> = {},
    eventId: string = randomUUID(),
    privateParts?: Record<string, DirectPrivatePart> | null,
  ): Promise<string> {
    const body = toMessageReply(message, '', senderId);
    const seq = message.seq;
    if (conversation.type === 'group') {
      const payload = { message: { ...body, conversation_id: idFor(actor.id) }, by: actor.userId, ...extra, conversation_id: idFor(actor.id), unread: null };
      return this.outbox.appendForConversation(manager, { type, payload, conversationId: conversation.id, seq }, now, eventId);
    }
    const { conversation_id: _omit, ...messageWithoutId } = body;
    const payload = { message: messageWithoutId, by: actor.userId, ...extra };
    const parts = privateParts ?? (await this.privateParts(manager, conversation, idFor));
    return this.outbox.appendForConversation(manager, { type, payload, conversationId: conversation.id, seq, privateParts: parts }, now, eventId);
  }

  /**
   * One-to-one events carry each member's conversation ID and unread, read inside the
   * transaction after its own updates (null for groups, whose events are shared).
   */
  private async privateParts(manager: EntityManager, conversation: ConversationEntity, idFor: (userId: string) => string): Promise<Record<string, DirectPrivatePart> | null> {
    if (conversation.type === 'group') return null;
    return directPrivateParts(await this.conversationMembers.findCurrentMembers(conversation.id, manager), idFor);
  }

  /**
   * Each member's ID for the conversation, from what resolving it already loaded: a group has
   * one ID; in a one-to-one conversation each side's ID names the other side.
   */
  private conversationIdFor(view: ViewerConversation, actor: AuthUser): (userId: string) => string {
    if (view.group) {
      const conversationId = groupConversationId(view.group.publicId);
      return () => conversationId;
    }
    const peerExternalId = view.peer?.externalId ?? '';
    return (userId: string) => (userId === actor.id ? directConversationId(peerExternalId) : directConversationId(actor.userId));
  }

  private async replaySend(existing: MessageEntity, view: ViewerConversation, dto: SendMessageDto, parsed: ParsedContent): Promise<SendReply> {
    if (existing.conversationId !== view.conversation.id || existing.contentHash !== contentHash(view.conversation.id, dto.type, parsed.content)) {
      throw AppError.invalid('client_message_id', 'was already used for a different message');
    }
    return { message: toMessageReply(existing, dto.conversation_id, await this.externalId(existing.senderId)), event_id: existing.eventId };
  }

  /** 1203 unless the sender may post here now; 1218 for a disabled group. */
  private async assertMaySend(auth: AuthUser, view: ViewerConversation, parsed: ParsedContent): Promise<void> {
    await this.assertMayPost(auth, view);
    const keyword = findBlockedKeyword(parsed.moderatedText, this.config.messaging.blockedKeywords);
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
      const relationship = view.relationship ?? (await this.friends.relationship(auth.id, directPeerId(view.conversation, auth.id)));
      if (relationship.blocked) throw forbidden('sending is blocked between you and this user');
      if (!relationship.friends) throw forbidden('you are not friends with this user');
    } else {
      const group = view.group;
      if (!group) throw forbidden('the group no longer exists');
      if (group.disabled) throw new AppError(ErrorCode.GROUP_DISABLED, 'the group is disabled');
      if (group.dismissedAt !== null) throw forbidden('the group was dismissed');
      const membership = view.groupRole;
      if (!membership || membership.status !== 'active') throw forbidden('you are no longer a member of this group');
      if (membership.mutedUntil > this.clock.now()) throw forbidden(`you are muted in this group until ${membership.mutedUntil}`);
    }
  }

  /**
   * A message the service writes on a member's behalf (a call summary), inside the caller's
   * transaction, with its sequence, unread counters and `message.new` event like any send.
   * `clientMessageId` makes it idempotent. Answers null when the sender is no longer a member.
   */
  async appendServerMessage(
    manager: EntityManager,
    view: ViewerConversation,
    sender: AuthUser,
    input: { type: 'call'; clientMessageId: string; content: Record<string, unknown> },
    now: number,
  ): Promise<{ message: MessageEntity; eventId: string } | null> {
    if (!(await this.conversationMembers.recordSend(manager, view.conversation, sender.id, now))) return null;
    const idFor = this.conversationIdFor(view, sender);
    const privateParts = await this.privateParts(manager, view.conversation, idFor);
    const eventId = randomUUID();
    const message = await this.messages.appendInTransaction(manager, {
      conversationId: view.conversation.id,
      eventId,
      senderId: sender.id,
      clientMessageId: input.clientMessageId,
      type: input.type,
      content: JSON.stringify(input.content),
      contentHash: contentHash(view.conversation.id, input.type, input.content),
      searchText: null,
      now,
    });
    await this.emit(manager, 'message.new', view.conversation, idFor, sender, sender.userId, message, now, {}, eventId, privateParts);
    return { message, eventId };
  }

  /** Image and file messages carry an upload of the sender's; its details are stored with the message. */
  private async withMedia(auth: AuthUser, type: string, parsed: ParsedContent): Promise<Record<string, unknown>> {
    if (!parsed.mediaId) return parsed.content;
    const media = await this.media.findOwned(parsed.mediaId, auth.id);
    if (!media) throw AppError.invalid('content.media_id', 'is not a media item you uploaded');
    if (type === 'image' && media.kind !== 'image') throw AppError.invalid('content.media_id', 'is not an image');
    return { ...parsed.content, mime_type: media.mimeType, size: media.size, file_name: media.fileName, url: `/app/sdk/media/${media.id}` };
  }

  private isGroupManager(view: ViewerConversation): boolean {
    const membership = view.groupRole;
    return view.conversation.type === 'group' && membership !== null && membership.status === 'active' && (membership.role === 'owner' || membership.role === 'admin');
  }

  private async externalId(userId: string): Promise<string> {
    const [user] = await this.users.findByIds([userId]);
    return user?.externalId ?? '';
  }
}
