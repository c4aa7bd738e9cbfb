import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import type { Conversation } from '../conversations/conversation';
import { directConversationId, groupConversationId } from '../conversations/conversation-id';
import { ConversationStore } from '../conversations/conversation-store.service';
import { MessageHistory } from '../conversations/message-history.service';
import { toMessageReply } from '../conversations/message-reply';
import type { ServerConversationPageReply, ServerMessagePageReply } from '../contract/server-api';
import { GroupDirectory } from '../groups/group-directory.service';
import { HostMessagingService, HostTarget } from '../messages/host-messaging.service';
import { SendReply } from '../messages/messages.reply';
import { SyncService } from '../sync/sync.service';
import { UsersService } from '../users/users.service';
import {
  DEFAULT_LIST_COUNT,
  ServerListConversationsDto,
  ServerListMessagesDto,
  ServerNoticeDto,
  ServerSendMessageDto,
} from './dto/server-messages.dto';
import type { HostActor } from './host-actor';
import { ServerWrites, asAuthUser } from './server-writes.service';

const sendAudit = (action: string, targetId: string) => ({
  action,
  targetType: 'conversation' as const,
  targetId,
  after: (reply: SendReply) => ({ mid: reply.message.mid, event_id: reply.event_id }),
});

/** Messages sent, noticed and listed by the host; conversations listed as a user sees them. */
@Injectable()
export class ServerMessagesService {
  constructor(
    private readonly writes: ServerWrites,
    private readonly messaging: HostMessagingService,
    private readonly store: ConversationStore,
    private readonly history: MessageHistory,
    private readonly groups: GroupDirectory,
    private readonly users: UsersService,
    private readonly sync: SyncService,
  ) {}

  async send(host: HostActor, dto: ServerSendMessageDto): Promise<SendReply> {
    const sender = asAuthUser(await this.writes.user(dto.sender_id, 'sender_id'));
    const to = exactlyOne(dto.to_user_id, dto.group_id, 'to_user_id', 'group_id');
    let target: HostTarget;
    if (to === 'group_id') target = { kind: 'group', groupId: dto.group_id as string };
    else {
      if (dto.to_user_id === dto.sender_id) throw AppError.invalid('to_user_id', 'must differ from sender_id');
      target = { kind: 'direct', peer: asAuthUser(await this.writes.user(dto.to_user_id as string, 'to_user_id')) };
    }
    const audit = sendAudit('server.message.sent', conversationName(dto.group_id, [dto.sender_id, dto.to_user_id]));
    return this.writes.once(host, 'messages.send', dto, audit, (alongside) =>
      this.messaging.sendAs(sender, target, dto.type, dto.content, dto.request_id, alongside),
    );
  }

  async notice(host: HostActor, dto: ServerNoticeDto): Promise<SendReply> {
    const to = exactlyOne(dto.user_ids, dto.group_id, 'user_ids', 'group_id');
    const target =
      to === 'group_id'
        ? { kind: 'group' as const, groupId: dto.group_id as string }
        : {
            kind: 'direct' as const,
            users: (await this.writes.usersNamed(dto.user_ids as string[], 'user_ids')).map(asAuthUser) as [
              ReturnType<typeof asAuthUser>,
              ReturnType<typeof asAuthUser>,
            ],
          };
    const audit = sendAudit('server.message.notice', conversationName(dto.group_id, dto.user_ids ?? []));
    return this.writes.once(host, 'messages.notice', dto, audit, (alongside) =>
      this.messaging.notice(target, dto.content, dto.request_id, alongside),
    );
  }

  /**
   * The conversation as a whole (not one member's view): every message by sequence, tombstones
   * included as tombstones. 1201 when the group or the pair's conversation does not exist.
   */
  async listMessages(dto: ServerListMessagesDto): Promise<ServerMessagePageReply> {
    const to = exactlyOne(dto.user_ids, dto.group_id, 'user_ids', 'group_id');
    let conversation: Conversation | null;
    let conversationId: string;
    if (to === 'group_id') {
      const group = await this.groups.findByPublicId(dto.group_id as string);
      conversation = group ? await this.store.findByGroupId(group.id) : null;
      conversationId = groupConversationId(dto.group_id as string);
    } else {
      const [first, second] = await this.writes.usersNamed(dto.user_ids as string[], 'user_ids', false);
      conversation = await this.store.findDirect(first.id, second.id);
      conversationId = directConversationId(second.externalId);
    }
    if (!conversation)
      throw new AppError(ErrorCode.CONVERSATION_INACCESSIBLE, `${to}: no such conversation (no message yet)`);
    const count = dto.count ?? DEFAULT_LIST_COUNT;
    const after = dto.after_seq ?? '0';
    const rows = await this.history.window(
      conversation.id,
      { from: after, to: conversation.lastSeq },
      count + 1,
      false,
    );
    const page = rows.slice(0, count);
    const senders = await this.users.externalIds(page.map((m) => m.senderId));
    const hasMore = rows.length > count;
    return {
      conversation_id: conversationId,
      messages: page.map((m) => toMessageReply(m, conversationId, senders.get(m.senderId) ?? '')),
      last_seq: conversation.lastSeq,
      has_more: hasMore,
      next_after_seq: hasMore ? page[page.length - 1].seq : null,
    };
  }

  /** The user's home list, exactly as their own sync shows it (same items and cursor). */
  async listConversations(dto: ServerListConversationsDto): Promise<ServerConversationPageReply> {
    const user = asAuthUser(await this.writes.user(dto.user_id, 'user_id', false));
    return (await this.sync.sync(user, { cursor: dto.cursor })).conversations;
  }
}

/** Which of two mutually exclusive fields was sent: exactly one must be (1004 naming the first). */
function exactlyOne(first: unknown, second: unknown, firstName: string, secondName: string): string {
  if ((first === undefined) === (second === undefined))
    throw AppError.invalid(firstName, `send exactly one of ${firstName} and ${secondName}`);
  return first === undefined ? secondName : firstName;
}

/** The audit target: group_<id>, or the two users of a one-to-one conversation. */
function conversationName(groupId: string | undefined, users: Array<string | undefined>): string {
  return groupId !== undefined ? groupConversationId(groupId) : users.join(':').slice(0, 128);
}
