import { randomBytes } from 'node:crypto';
import { ConversationMembersRepository } from '../../src/conversations/conversation-members.repository';
import { ConversationsRepository } from '../../src/conversations/conversations.repository';
import { MessagesRepository } from '../../src/conversations/messages.repository';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { GroupsRepository } from '../../src/groups/groups.repository';
import { TestApp } from './test-app';

/**
 * Fixtures written through the application's own repositories, for the entities whose
 * endpoints arrive with the messaging core (groups, conversations, messages).
 */
export class Seed {
  private readonly tx: TransactionRunner;
  private readonly groups: GroupsRepository;
  private readonly conversations: ConversationsRepository;
  private readonly conversationMembers: ConversationMembersRepository;
  private readonly messages: MessagesRepository;

  constructor(private readonly t: TestApp) {
    this.tx = t.app.get(TransactionRunner);
    this.groups = t.app.get(GroupsRepository);
    this.conversations = t.app.get(ConversationsRepository);
    this.conversationMembers = t.app.get(ConversationMembersRepository);
    this.messages = t.app.get(MessagesRepository);
  }

  /** A group with its conversation; the owner and members are internal user IDs. */
  async group(publicId: string, ownerId: string, memberIds: string[] = []): Promise<{ groupId: string; conversationId: string }> {
    const now = this.t.clock.now();
    return this.tx.run(async (manager) => {
      const group = await this.groups.insertGroup(manager, { publicId, name: `Group ${publicId}`, ownerId, now });
      const conversation = await this.conversations.insertConversation(manager, { type: 'group', groupId: group.id }, now);
      await this.groups.insertMember(manager, group.id, ownerId, 'owner', now);
      await this.conversationMembers.openMember(manager, conversation.id, ownerId, now);
      for (const memberId of memberIds) {
        await this.groups.insertMember(manager, group.id, memberId, 'member', now);
        await this.conversationMembers.openMember(manager, conversation.id, memberId, now);
      }
      return { groupId: group.id, conversationId: conversation.id };
    });
  }

  /** Adds a member who joins now and sees only later messages. */
  async joinGroup(groupId: string, conversationId: string, userId: string): Promise<void> {
    const now = this.t.clock.now();
    await this.tx.run(async (manager) => {
      await this.groups.insertMember(manager, groupId, userId, 'member', now);
      await this.conversationMembers.openMember(manager, conversationId, userId, now);
    });
  }

  async leaveGroup(groupId: string, conversationId: string, userId: string, status: 'left' | 'removed' = 'left'): Promise<void> {
    const now = this.t.clock.now();
    await this.tx.run(async (manager) => {
      await this.groups.markLeft(manager, groupId, userId, status, now);
      await this.conversationMembers.closeMember(manager, conversationId, userId, now);
    });
  }

  async disableGroup(groupId: string): Promise<void> {
    await this.groups.setDisabled(groupId, true, this.t.clock.now());
  }

  async direct(userA: string, userB: string): Promise<string> {
    const now = this.t.clock.now();
    return this.tx.run(async (manager) => (await this.conversations.ensureDirect(manager, userA, userB, now)).id);
  }

  /** Makes two users friends (both directions) with their one-to-one conversation; returns its internal ID. */
  async friends(userA: string, userB: string): Promise<string> {
    const now = this.t.clock.now();
    return this.tx.run(async (manager) => {
      await manager.query('INSERT INTO friendships (user_id, friend_id, created_at) VALUES (?, ?, ?), (?, ?, ?)', [userA, userB, now, userB, userA, now]);
      return (await this.conversations.ensureDirect(manager, userA, userB, now)).id;
    });
  }

  /** Appends a text message; returns its mid. */
  async message(conversationId: string, senderId: string, text = 'hello'): Promise<string> {
    const now = this.t.clock.now();
    const message = await this.tx.run((manager) =>
      this.messages.appendInTransaction(manager, { conversationId, senderId, clientMessageId: randomBytes(8).toString('hex'), eventId: '', type: 'text', content: JSON.stringify({ text }), contentHash: '', searchText: text.toLowerCase(), now }),
    );
    return message.id;
  }

  async setMessageStatus(mid: string, status: 'recalled' | 'deleted'): Promise<void> {
    await this.tx.manager.query("UPDATE messages SET status = ?, content = '' WHERE id = ?", [status, mid]);
  }
}
