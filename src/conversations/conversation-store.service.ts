import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import type { AuthUser } from '../common/auth-user';
import type { Conversation, ConversationMember } from './conversation';
import { directKey } from './conversation-id';
import { ConversationMembersRepository } from './conversation-members.repository';
import { ConversationsRepository } from './conversations.repository';
import { effectiveMemberState } from './member-state';
import type { Message } from './message';
import { MemberConversationIds, MessageEventWriter } from './message-event-writer';
import { MessageCountersRepository } from './message-counters.repository';
import { MessagesRepository } from './messages.repository';

/** A message to append: what the sender (or the service on a member's behalf) wrote. */
export interface AppendMessageInput {
  conversation: Pick<Conversation, 'id' | 'type' | 'directKey'>;
  idFor: MemberConversationIds;
  sender: Pick<AuthUser, 'internalId' | 'externalId'>;
  /** The sender's idempotency key (or the service's key, serverMessageKey). */
  clientMessageId: string;
  type: string;
  /** The content as stored (with media details for image and file messages). */
  content: Record<string, unknown>;
  contentHash: string;
  searchText: string | null;
  eventId?: string;
  now: number;
}

/** A recall or delete: the message becomes a tombstone of status `to`. */
export interface TombstoneInput {
  conversation: Pick<Conversation, 'id' | 'type' | 'directKey'>;
  idFor: MemberConversationIds;
  actor: Pick<AuthUser, 'internalId' | 'externalId'>;
  message: Pick<Message, 'id' | 'seq' | 'senderId'>;
  senderExternalId: string;
  to: 'recalled' | 'deleted';
  now: number;
}

/** What a read moved: the member's read position and unread after it (`moved` false if it was already there). */
export interface ReadResult {
  conversation: Conversation;
  readSeq: string;
  unread: number;
  moved: boolean;
}

/**
 * The one way into conversations: their members and what each can see, sequence allocation,
 * and appending or changing a message together with its event. Calls, groups, friends, media,
 * messages and sync use it; the tables behind it (conversations, conversation_members,
 * user_unread_totals, messages) are this module's alone.
 *
 * Methods that take a `manager` run inside the caller's transaction and take their locks in the
 * order described at ConversationMembersRepository.lockMembers.
 */
@Injectable()
export class ConversationStore {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly members: ConversationMembersRepository,
    private readonly counters: MessageCountersRepository,
    private readonly messages: MessagesRepository,
    private readonly events: MessageEventWriter,
  ) {}

  // Conversations

  /** Internal IDs of the other members of the user's one-to-one conversations. */
  directPeerIds(userId: string): Promise<string[]> {
    return this.members.directPeerIds(userId);
  }

  findById(id: string, manager?: EntityManager): Promise<Conversation | null> {
    return this.conversations.findById(id, manager);
  }

  findByIds(ids: string[]): Promise<Conversation[]> {
    return this.conversations.findByIds(ids);
  }

  /** The stored one-to-one conversation of two users (internal IDs), or null. */
  findDirect(userId: string, otherId: string): Promise<Conversation | null> {
    return this.conversations.findByDirectKey(directKey(userId, otherId));
  }

  /** A group's conversation (the group's row ID), or null. */
  findByGroupId(groupId: string, manager?: EntityManager): Promise<Conversation | null> {
    return this.conversations.findByGroupId(groupId, manager);
  }

  /** The one-to-one conversation of two users with both members, created on first need. */
  ensureDirect(manager: EntityManager, userA: string, userB: string, now: number): Promise<Conversation> {
    return this.conversations.ensureDirect(manager, userA, userB, now);
  }

  /** A new group's conversation (its members are opened with openFirstMembers). */
  createGroupConversation(manager: EntityManager, groupId: string, now: number): Promise<Conversation> {
    return this.conversations.insertConversation(manager, { type: 'group', groupId }, now);
  }

  // Members and what they can see

  findMember(conversationId: string, userId: string, manager?: EntityManager): Promise<ConversationMember | null> {
    return this.members.findMember(conversationId, userId, manager);
  }

  /** Members who currently receive the conversation's messages. */
  findCurrentMembers(conversationId: string, manager?: EntityManager): Promise<ConversationMember[]> {
    return this.members.findCurrentMembers(conversationId, manager);
  }

  /** Whether the user is a member now: joined, and neither left nor removed. */
  async isCurrentMember(conversationId: string, userId: string): Promise<boolean> {
    const member = await this.members.findMember(conversationId, userId);
    return member !== null && member.visibleToSeq === null;
  }

  countCurrentForUser(userId: string): Promise<number> {
    return this.members.countCurrentForUser(userId);
  }

  /** Which of `userIds` muted the conversation. */
  mutedAmong(conversationId: string, userIds: readonly string[]): Promise<Set<string>> {
    return this.members.mutedAmong(conversationId, userIds);
  }

  /** A group's member rows, locked for a change that touches them all (see lockMembers' order). */
  lockMembers(manager: EntityManager, conversationId: string): Promise<void> {
    return this.members.lockMembers(manager, conversationId);
  }

  /** The members of a new group, who see its history from the start. */
  openFirstMembers(
    manager: EntityManager,
    conversation: Conversation,
    userIds: readonly string[],
    now: number,
  ): Promise<void> {
    return this.members.openFirstMembers(manager, conversation, userIds, now);
  }

  /** Joining (or rejoining): the member sees what is sent from now on. */
  openMembers(manager: EntityManager, conversationId: string, userIds: readonly string[], now: number): Promise<void> {
    return this.members.openMembers(manager, conversationId, userIds, now);
  }

  openMember(manager: EntityManager, conversationId: string, userId: string, now: number): Promise<void> {
    return this.members.openMember(manager, conversationId, userId, now);
  }

  /** Leaving or removal: the member keeps what they could see up to now, and nothing after. */
  closeMembers(manager: EntityManager, conversationId: string, userIds: readonly string[], now: number): Promise<void> {
    return this.members.closeMembers(manager, conversationId, userIds, now);
  }

  closeMember(manager: EntityManager, conversationId: string, userId: string, now: number): Promise<void> {
    return this.members.closeMember(manager, conversationId, userId, now);
  }

  /** Pin, mute, hide: the member's own settings (a mute moves the unread totals with it). */
  updateSettings(
    manager: EntityManager,
    memberId: string,
    changes: Partial<Pick<ConversationMember, 'pinned' | 'muted' | 'hidden' | 'hiddenSeq'>>,
    now: number,
  ): Promise<void> {
    return this.members.updateSettings(manager, memberId, changes, now);
  }

  // Messages

  /**
   * Appends a message with its sequence, unread counters and `message.new` event, in the
   * caller's transaction: the one path of user sends and of the service's own messages. Answers
   * null when the sender is no longer a current member (a removal that committed after the
   * caller's checks), and changes nothing then.
   */
  async appendMessage(manager: EntityManager, input: AppendMessageInput): Promise<Message | null> {
    const { conversation, sender, now } = input;
    // Member rows first, as every writer takes them (ConversationMembersRepository.lockMembers):
    // the sequence allocation below locks the conversation row until commit and every send of
    // the conversation queues on it, so the less that follows it the more sends per second one
    // conversation takes.
    // A system notice (sender 0, no member row) counts as unread for every group member: there
    // is no sender's row to keep it out of.
    const notice = sender.internalId === '0' && conversation.type === 'group';
    if (!notice && !(await this.counters.recordSend(manager, conversation, sender.internalId, now))) return null;
    const eventId = input.eventId ?? randomUUID();
    const seq = await this.conversations.allocateNextSeq(manager, conversation.id, now);
    const message = await this.messages.insertInTransaction(
      manager,
      {
        conversationId: conversation.id,
        eventId,
        senderId: sender.internalId,
        clientMessageId: input.clientMessageId,
        type: input.type,
        content: JSON.stringify(input.content),
        contentHash: input.contentHash,
        searchText: input.searchText,
        now,
      },
      seq,
    );
    await this.events.write(manager, {
      type: 'message.new',
      conversation,
      idFor: input.idFor,
      actor: sender,
      senderExternalId: sender.externalId,
      message,
      now,
      eventId,
    });
    return message;
  }

  /**
   * Turns a message into a tombstone with its `message.recalled` / `message.deleted` event, takes
   * it out of unread counts and raises the conversation's versions. Answers null when there was
   * nothing to change (a concurrent change won); otherwise the event's ID.
   */
  /** The conversation's messages among `ids`, locked in ID order: the first step of a change of many (see MessagesRepository.lockInConversation). */
  lockMessages(manager: EntityManager, conversationId: string, ids: readonly string[]): Promise<Message[]> {
    return this.messages.lockInConversation(manager, conversationId, ids);
  }

  async tombstoneMessage(manager: EntityManager, input: TombstoneInput): Promise<string | null> {
    const { conversation, message, to, now } = input;
    // Locks in the order every writer takes them (ConversationMembersRepository.lockMembers): the
    // message, a group's member rows, then the conversation. A delete of a recalled message
    // changes no unread but still updates former members' rows after the conversation's, so a
    // group's rows are locked first in either case.
    let counted = false;
    if (await this.messages.tombstone(manager, message.id, to, 'normal', now)) counted = true;
    else if (!(to === 'deleted' && (await this.messages.tombstone(manager, message.id, to, 'recalled', now))))
      return null;
    if (conversation.type === 'group') await this.members.lockMembers(manager, conversation.id);
    if (counted) await this.counters.recordTombstone(manager, conversation, message.senderId, message.seq, now);
    const changed = await this.counters.bumpContentVersion(manager, conversation, message.seq, now, to === 'deleted');
    const stored = await this.messages.findById(message.id, manager);
    return this.events.write(manager, {
      type: to === 'recalled' ? 'message.recalled' : 'message.deleted',
      conversation: changed,
      idFor: input.idFor,
      actor: input.actor,
      senderExternalId: input.senderExternalId,
      message: stored!,
      now,
      versions: {
        updated_at: changed.contentUpdatedAt,
        deletion_revision: String(changed.deletionRevision),
        last_seq: String(changed.lastSeq),
      },
    });
  }

  /**
   * Moves the member's read position forward (never back, never past what they can see) and
   * recounts exactly, under the member row's lock: a one-to-one row stores the unread messages
   * after the new position, a group row those that do not count (own messages and tombstones).
   */
  async advanceRead(
    manager: EntityManager,
    member: Pick<ConversationMember, 'id' | 'conversationId' | 'userId'>,
    readSeq: string,
    now: number,
  ): Promise<ReadResult> {
    const locked = await this.members.lockMember(manager, member.id);
    const conversation = (await this.conversations.findById(member.conversationId, manager))!;
    // Never past what the member can see: they may have left since the caller checked.
    const visibleUpTo = locked.visibleToSeq ?? conversation.lastSeq;
    const target = BigInt(readSeq) > BigInt(visibleUpTo) ? visibleUpTo : readSeq;
    if (BigInt(target) <= BigInt(locked.readSeq))
      return {
        conversation,
        readSeq: locked.readSeq,
        unread: effectiveMemberState(locked, conversation).unreadCount,
        moved: false,
      };
    const unread = await this.messages.countUnread(manager, conversation.id, target, visibleUpTo, member.userId);
    const uncounted = Number(BigInt(visibleUpTo) - BigInt(target)) - unread;
    await this.counters.setRead(manager, locked, target, { unread, uncounted }, now);
    return { conversation, readSeq: target, unread, moved: true };
  }
}
