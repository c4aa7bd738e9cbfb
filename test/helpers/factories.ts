// Test data for the e2e specs. `Factories` makes users, friendships and groups through the API,
// as a client would. `Seed` writes through the application's own repositories, for the state no
// endpoint can make: a one-to-one conversation without a friendship, a message in a conversation
// nobody may send to, a disabled group, a friendship without its request events, two requests
// pending both ways.
import { randomBytes, randomUUID } from 'node:crypto';
import { ConversationMembersRepository } from '../../src/conversations/conversation-members.repository';
import { ConversationsRepository } from '../../src/conversations/conversations.repository';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { FriendsRepository } from '../../src/friends/friends.repository';
import { GroupsRepository } from '../../src/groups/groups.repository';
import { MessagesRepository } from '../../src/conversations/messages.repository';
import { IssuedUser, TestApp, randomGroupId } from './test-app';
import { ApiClient, UserRef } from './api-client';

/** Users, friendships and groups made through the endpoints. */
export class Factories {
  readonly seed: Seed;

  constructor(
    private readonly t: TestApp,
    private readonly api: ApiClient = new ApiClient(t),
  ) {
    this.seed = new Seed(t);
  }

  /** A fresh user (random external ID) with an IM token. */
  user(fields: Record<string, unknown> = {}): Promise<IssuedUser> {
    return this.api.user(fields);
  }

  users(n: number): Promise<IssuedUser[]> {
    return this.api.users(n);
  }

  /** Two fresh users who are friends (request and accept), with their one-to-one conversation. */
  async pair(): Promise<{ a: IssuedUser; b: IssuedUser }> {
    const a = await this.user();
    const b = await this.user();
    await this.api.befriend(a, b);
    return { a, b };
  }

  friends(a: IssuedUser, b: IssuedUser): Promise<void> {
    return this.api.befriend(a, b);
  }

  /** A group owned by `owner` with `members` from the start; returns its public group_id. */
  group(owner: IssuedUser, members: UserRef[] = [], groupId = randomGroupId()): Promise<string> {
    return this.api.createGroup(owner, members, { name: `Group ${groupId}` }, groupId);
  }

  /** Disables a group the way the operator does (there is no endpoint for it). */
  async disableGroup(publicGroupId: string, disabled = true): Promise<void> {
    const groups = this.t.app.get(GroupsRepository);
    const group = await groups.findByPublicId(publicGroupId);
    if (!group) throw new Error(`no group ${publicGroupId}`);
    await groups.setDisabled(group.id, disabled, this.t.clock.now());
  }
}

/** Fixtures written through the application's own repositories (IDs are internal ones). */
export class Seed {
  private readonly tx: TransactionRunner;
  private readonly groups: GroupsRepository;
  private readonly conversations: ConversationsRepository;
  private readonly conversationMembers: ConversationMembersRepository;
  private readonly messages: MessagesRepository;
  private readonly friendsRepo: FriendsRepository;

  constructor(private readonly t: TestApp) {
    this.tx = t.app.get(TransactionRunner);
    this.friendsRepo = t.app.get(FriendsRepository);
    this.groups = t.app.get(GroupsRepository);
    this.conversations = t.app.get(ConversationsRepository);
    this.conversationMembers = t.app.get(ConversationMembersRepository);
    this.messages = t.app.get(MessagesRepository);
  }

  /** A group with its conversation; the owner and members are internal user IDs. */
  async group(
    publicId: string,
    ownerId: string,
    memberIds: string[] = [],
  ): Promise<{ groupId: string; conversationId: string }> {
    const now = this.t.clock.now();
    return this.tx.run(async (manager) => {
      const group = await this.groups.insertGroup(manager, { publicId, name: `Group ${publicId}`, ownerId, now });
      const conversation = await this.conversations.insertConversation(
        manager,
        { type: 'group', groupId: group.id },
        now,
      );
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

  async leaveGroup(
    groupId: string,
    conversationId: string,
    userId: string,
    status: 'left' | 'removed' = 'left',
  ): Promise<void> {
    const now = this.t.clock.now();
    await this.tx.run(async (manager) => {
      await this.groups.markLeft(manager, groupId, userId, status, now);
      await this.conversationMembers.closeMember(manager, conversationId, userId, now);
    });
  }

  async disableGroup(groupId: string): Promise<void> {
    await this.groups.setDisabled(groupId, true, this.t.clock.now());
  }

  /** A one-to-one conversation between two users who need not be friends; returns its internal ID. */
  async direct(userA: string, userB: string): Promise<string> {
    const now = this.t.clock.now();
    return this.tx.run(async (manager) => (await this.conversations.ensureDirect(manager, userA, userB, now)).id);
  }

  /**
   * Makes two users friends (both directions) with their one-to-one conversation, writing no
   * request and no event; returns the conversation's internal ID.
   */
  async friends(userA: string, userB: string): Promise<string> {
    const now = this.t.clock.now();
    return this.tx.run(async (manager) => {
      await manager.query('INSERT INTO friendships (user_id, friend_id, created_at) VALUES (?, ?, ?), (?, ?, ?)', [
        userA,
        userB,
        now,
        userB,
        userA,
        now,
      ]);
      return (await this.conversations.ensureDirect(manager, userA, userB, now)).id;
    });
  }

  /**
   * A pending request as a concurrent request could leave it (the endpoint accepts a request
   * crossing a pending one at once); returns its ID.
   */
  async pendingRequest(fromId: string, toId: string): Promise<string> {
    const now = this.t.clock.now();
    const requestId = `fr-${randomBytes(6).toString('hex')}`;
    const request = await this.tx.run((manager) =>
      this.friendsRepo.insertRequest(manager, {
        fromUserId: fromId,
        toUserId: toId,
        requestId,
        message: '',
        status: 'pending',
        now,
      }),
    );
    return request.id;
  }

  /** The internal IDs of a group (made through the API, say), for the calls above that take them. */
  async groupIds(publicId: string): Promise<{ groupId: string; conversationId: string }> {
    const group = await this.groups.findByPublicId(publicId);
    if (!group) throw new Error(`no group ${publicId}`);
    const conversation = await this.conversations.findByGroupId(group.id);
    if (!conversation) throw new Error(`no conversation for group ${publicId}`);
    return { groupId: group.id, conversationId: conversation.id };
  }

  /** Appends a text message; returns its mid. */
  async message(conversationId: string, senderId: string, text = 'hello'): Promise<string> {
    const now = this.t.clock.now();
    const message = await this.tx.run(async (manager) =>
      this.messages.insertInTransaction(
        manager,
        {
          conversationId,
          senderId,
          clientMessageId: randomBytes(8).toString('hex'),
          eventId: '',
          type: 'text',
          content: JSON.stringify({ text }),
          contentHash: '',
          searchText: text.toLowerCase(),
          now,
        },
        await this.conversations.allocateNextSeq(manager, conversationId, now),
      ),
    );
    return message.id;
  }

  /** Turns a message into a tombstone in place, without the events and counters a recall or delete moves. */
  async setMessageStatus(mid: string, status: 'recalled' | 'deleted'): Promise<void> {
    await this.tx.manager.query("UPDATE messages SET status = ?, content = '' WHERE id = ?", [status, mid]);
  }
}

/**
 * A valid client error report (spec 4.2: all 16 fields, the nullable ones null) of `user`, on a
 * device of its own so that nothing merges by accident; `over` replaces fields.
 */
export function clientErrorBody(user: UserRef, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_id: randomUUID(),
    user_id: user.userId,
    username: null,
    device_id: `dev-${randomBytes(6).toString('hex')}`,
    platform: 'android',
    severity: 'normal',
    error_code: 'net.timeout',
    message: 'Request timed out after 3 retries',
    stack_trace: null,
    operation: 'sync',
    build_id: null,
    conversation_id: null,
    message_id: null,
    trace_id: null,
    recovered: false,
    context: { screen: 'home' },
    ...over,
  };
}
