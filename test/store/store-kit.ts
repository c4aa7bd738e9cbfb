// The store-level suite calls the modules' services directly (no HTTP), each test on users,
// groups and conversations of its own. This kit boots the application and makes those fixtures
// through the same services and repositories the application uses.
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { AuthUser } from '../../src/common/auth-user';
import type { Conversation, ConversationMember } from '../../src/conversations/conversation';
import { directConversationId, groupConversationId } from '../../src/conversations/conversation-id';
import { ConversationStore } from '../../src/conversations/conversation-store.service';
import type { Message } from '../../src/conversations/message';
import type { MemberConversationIds } from '../../src/conversations/message-event-writer';
import { MessageHistory } from '../../src/conversations/message-history.service';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { GroupsRepository } from '../../src/groups/groups.repository';
import { UsersService } from '../../src/users/users.service';
import { TestApp, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';

export interface StoreKit {
  t: TestApp;
  tx: TransactionRunner;
  store: ConversationStore;
  history: MessageHistory;
  users: UsersService;
  close(): Promise<void>;
}

export async function startStoreKit(env: Record<string, string> = {}): Promise<StoreKit> {
  const t = await startTestApp(env);
  return {
    t,
    tx: t.app.get(TransactionRunner),
    store: t.app.get(ConversationStore),
    history: t.app.get(MessageHistory),
    users: t.app.get(UsersService),
    close: () => t.close(),
  };
}

/** A plain query through the pool, for what the services do not expose. */
export function sql<T = Record<string, unknown>>(kit: StoreKit, query: string, params: unknown[] = []): Promise<T[]> {
  return kit.t.app.get(DataSource).query(query, params) as Promise<T[]>;
}

/** A fresh user, created as the host's token call creates it. */
export async function newUser(kit: StoreKit): Promise<AuthUser> {
  const externalId = randomUserId('st');
  const user = await kit.users.upsertProfile({ externalId, nickname: `Store ${externalId.slice(-4)}` });
  return { internalId: user.id, externalId: user.externalId };
}

export async function newUsers(kit: StoreKit, n: number): Promise<AuthUser[]> {
  const users: AuthUser[] = [];
  for (let i = 0; i < n; i++) users.push(await newUser(kit));
  return users;
}

/** A conversation with each member's ID of it, as the messaging service passes them to the store. */
export interface Chat {
  conversation: Conversation;
  idFor: MemberConversationIds;
  /** The group's public ID (groups only). */
  publicId: string | null;
  /** The group's row ID (groups only). */
  groupId: string | null;
}

/** The one-to-one conversation of `a` and `b`. */
export async function newDirect(kit: StoreKit, a: AuthUser, b: AuthUser): Promise<Chat> {
  const conversation = await kit.tx.run((m) =>
    kit.store.ensureDirect(m, a.internalId, b.internalId, kit.t.clock.now()),
  );
  return { conversation, idFor: directIds(a, b), publicId: null, groupId: null };
}

/** Each side names a pair by the other's external ID. */
export function directIds(a: AuthUser, b: AuthUser): MemberConversationIds {
  return (userId) => directConversationId(userId === a.internalId ? b.externalId : a.externalId);
}

/** A group (its row, owned by the first member) and its conversation, the members seeing it from the start. */
export async function newGroup(kit: StoreKit, members: AuthUser[]): Promise<Chat> {
  const publicId = randomGroupId();
  const now = kit.t.clock.now();
  const groups = kit.t.app.get(GroupsRepository);
  return kit.tx.run(async (m) => {
    const group = await groups.insertGroup(m, {
      publicId,
      name: `Group ${publicId}`,
      ownerId: members[0].internalId,
      now,
    });
    for (const [i, user] of members.entries())
      await groups.insertMember(m, group.id, user.internalId, i === 0 ? 'owner' : 'member', now);
    const conversation = await kit.store.createGroupConversation(m, group.id, now);
    await kit.store.openFirstMembers(
      m,
      conversation,
      members.map((u) => u.internalId),
      now,
    );
    return { conversation, idFor: () => groupConversationId(publicId), publicId, groupId: group.id };
  });
}

export interface AppendOptions {
  text?: string;
  clientMessageId?: string;
  eventId?: string;
}

/** appendMessage with a text message, in the caller's transaction. */
export function appendIn(
  kit: StoreKit,
  manager: EntityManager,
  chat: Chat,
  sender: AuthUser,
  options: AppendOptions = {},
): Promise<Message | null> {
  const text = options.text ?? `hello ${randomBytes(3).toString('hex')}`;
  return kit.store.appendMessage(manager, {
    conversation: chat.conversation,
    idFor: chat.idFor,
    sender,
    clientMessageId: options.clientMessageId ?? `c-${randomBytes(8).toString('hex')}`,
    type: 'text',
    content: { text },
    contentHash: randomBytes(16).toString('hex'),
    searchText: text.toLowerCase(),
    eventId: options.eventId ?? randomUUID(),
    now: kit.t.clock.now(),
  });
}

/** appendMessage in a transaction of its own. */
export function append(
  kit: StoreKit,
  chat: Chat,
  sender: AuthUser,
  options: AppendOptions = {},
): Promise<Message | null> {
  return kit.tx.run((m) => appendIn(kit, m, chat, sender, options));
}

/** Appends and fails the test if the sender was refused. */
export async function send(kit: StoreKit, chat: Chat, sender: AuthUser, text?: string): Promise<Message> {
  const message = await append(kit, chat, sender, { text });
  if (!message) throw new Error(`append by ${sender.internalId} refused`);
  return message;
}

export async function member(kit: StoreKit, chat: Chat, user: AuthUser): Promise<ConversationMember> {
  const found = await kit.store.findMember(chat.conversation.id, user.internalId);
  if (!found) throw new Error(`user ${user.internalId} is no member of ${chat.conversation.id}`);
  return found;
}

export async function lastSeq(kit: StoreKit, chat: Chat): Promise<string> {
  return (await kit.store.findById(chat.conversation.id))!.lastSeq;
}

/** The user's one-to-one unread totals row. */
export async function totals(kit: StoreKit, user: AuthUser): Promise<{ all: number; unmuted: number } | null> {
  const [row] = await sql<{ direct_unread: number | string; direct_unread_unmuted: number | string }>(
    kit,
    'SELECT direct_unread, direct_unread_unmuted FROM user_unread_totals WHERE user_id = ?',
    [user.internalId],
  );
  return row ? { all: Number(row.direct_unread), unmuted: Number(row.direct_unread_unmuted) } : null;
}

export interface EventRow {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  conversationId: string | null;
  seq: string | null;
  privateParts: Record<string, unknown> | null;
  position: string | null;
}

/** The outbox row of an event, or null. */
export async function outboxEvent(kit: StoreKit, eventId: string): Promise<EventRow | null> {
  const rows = await sql<Record<string, string | number | null>>(
    kit,
    'SELECT id, type, payload, conversation_id, seq, private_payloads, position FROM outbox_events WHERE event_id = ?',
    [eventId],
  );
  const row = rows[0];
  if (!row) return null;
  const text = (value: string | number | null) => (value === null ? null : String(value));
  return {
    id: String(row.id),
    type: String(row.type),
    payload: JSON.parse(String(row.payload)) as Record<string, unknown>,
    conversationId: text(row.conversation_id),
    seq: text(row.seq),
    privateParts:
      row.private_payloads === null ? null : (JSON.parse(String(row.private_payloads)) as Record<string, unknown>),
    position: text(row.position),
  };
}

/** Message events of a conversation, in row order. */
export async function conversationEvents(kit: StoreKit, chat: Chat): Promise<Array<{ type: string; seq: string }>> {
  const rows = await sql<{ type: string; seq: string | number }>(
    kit,
    'SELECT type, seq FROM outbox_events WHERE conversation_id = ? ORDER BY id',
    [chat.conversation.id],
  );
  return rows.map((row) => ({ type: row.type, seq: String(row.seq) }));
}

/** Waits until `check` holds, polling (never a duration assertion: the deadline only ends a hung test). */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  deadlineMs = 30_000,
): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A meeting point for `parties` concurrent transactions (MySQL only: SQLite runs transactions
 * one after another, so a second party would never come). A party that waits longer than
 * `giveUpMs` goes on alone, so a test never hangs on it.
 */
export function barrier(parties: number, giveUpMs = 10_000): () => Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => (release = resolve));
  return async () => {
    arrived += 1;
    if (arrived >= parties) release();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, giveUpMs)))]);
    clearTimeout(timer);
  };
}

/** Whether this run is on MySQL/MariaDB (E2E_DATABASE_URL), known before the app boots. */
export const onMysql = (process.env.E2E_DATABASE_URL ?? '').startsWith('mysql');
