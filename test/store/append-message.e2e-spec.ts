import { randomUUID } from 'node:crypto';
import { directConversationId } from '../../src/conversations/conversation-id';
import {
  Chat,
  StoreKit,
  append,
  appendIn,
  conversationEvents,
  lastSeq,
  member,
  newDirect,
  newGroup,
  newUsers,
  onMysql,
  outboxEvent,
  send,
  sql,
  startStoreKit,
  totals,
} from './store-kit';

// ConversationStore.appendMessage: the one path of every message, with its sequence, counters and event.
describe('ConversationStore.appendMessage', () => {
  let kit: StoreKit;
  beforeAll(async () => {
    kit = await startStoreKit();
  });
  afterAll(() => kit.close());

  const seqsOf = (messages: Array<{ seq: string }>) => messages.map((m) => Number(m.seq)).sort((x, y) => x - y);
  const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  async function storedSeqs(chat: Chat): Promise<number[]> {
    const rows = await sql<{ seq: number | string }>(
      kit,
      'SELECT seq FROM messages WHERE conversation_id = ? ORDER BY seq',
      [chat.conversation.id],
    );
    return rows.map((row) => Number(row.seq));
  }

  it('allocates 1, 2, 3 and stores the message as sent', async () => {
    const [a, b] = await newUsers(kit, 2);
    const chat = await newGroup(kit, [a, b]);
    const first = await append(kit, chat, a, { text: 'One', clientMessageId: 'c-one' });
    expect(first).toMatchObject({
      conversationId: chat.conversation.id,
      seq: '1',
      senderId: a.internalId,
      clientMessageId: 'c-one',
      type: 'text',
      status: 'normal',
      searchText: 'one',
    });
    expect(JSON.parse(first!.content)).toEqual({ text: 'One' });
    expect((await send(kit, chat, b)).seq).toBe('2');
    const third = await send(kit, chat, a);
    expect(third.seq).toBe('3');
    const conversation = (await kit.store.findById(chat.conversation.id))!;
    expect(conversation).toMatchObject({ lastSeq: '3', lastMessageAt: third.createdAt });
    // The content version rises strictly with every send, even within one millisecond.
    expect(conversation.contentUpdatedAt).toBeGreaterThanOrEqual(chat.conversation.contentUpdatedAt + 3);
    expect(await kit.history.findById(first!.id)).toMatchObject({ seq: '1', eventId: first!.eventId });
  });

  it(`allocates without gaps or duplicates under concurrent appends (${onMysql ? 20 : 10} at once, group)`, async () => {
    const n = onMysql ? 20 : 10;
    const users = await newUsers(kit, 5);
    const chat = await newGroup(kit, users);
    const senders = users.slice(0, 4);
    const sent = await Promise.all(oneTo(n).map((i) => send(kit, chat, senders[i % senders.length])));
    expect(seqsOf(sent)).toEqual(oneTo(n));
    expect(await storedSeqs(chat)).toEqual(oneTo(n));
    expect(await lastSeq(kit, chat)).toBe(String(n));
    const events = await conversationEvents(kit, chat);
    expect(events.every((e) => e.type === 'message.new')).toBe(true);
    expect(seqsOf(events)).toEqual(oneTo(n));
    // The reader who sent nothing has every message unread; each sender all but their own.
    expect((await member(kit, chat, users[4])).unreadCount).toBe(n);
    for (const sender of senders) {
      const own = sent.filter((m) => m.senderId === sender.internalId).length;
      expect((await member(kit, chat, sender)).unreadCount).toBe(n - own);
    }
  });

  it('allocates without gaps under concurrent appends from both sides of a pair, and counts unread exactly', async () => {
    const n = onMysql ? 12 : 8;
    const [a, b] = await newUsers(kit, 2);
    const chat = await newDirect(kit, a, b);
    const sent = await Promise.all(oneTo(n).map((i) => send(kit, chat, i % 2 ? a : b)));
    expect(seqsOf(sent)).toEqual(oneTo(n));
    expect(await storedSeqs(chat)).toEqual(oneTo(n));
    const byA = sent.filter((m) => m.senderId === a.internalId).length;
    expect((await member(kit, chat, b)).unreadCount).toBe(byA);
    expect((await member(kit, chat, a)).unreadCount).toBe(n - byA);
    expect(await totals(kit, b)).toEqual({ all: byA, unmuted: byA });
    expect(await totals(kit, a)).toEqual({ all: n - byA, unmuted: n - byA });
  });

  it('answers null for a sender who is no longer a member, and leaves no row, no sequence, no event', async () => {
    const [a, b] = await newUsers(kit, 2);
    const chat = await newGroup(kit, [a, b]);
    await send(kit, chat, a);
    await kit.tx.run((m) => kit.store.closeMember(m, chat.conversation.id, b.internalId, kit.t.clock.now()));
    const before = await member(kit, chat, b);
    const eventId = randomUUID();
    const refused = await append(kit, chat, b, { clientMessageId: 'c-refused', eventId });
    expect(refused).toBeNull();
    expect(await kit.history.findBySenderClientId(b.internalId, 'c-refused')).toBeNull();
    expect(await lastSeq(kit, chat)).toBe('1');
    expect(await outboxEvent(kit, eventId)).toBeNull();
    expect(await conversationEvents(kit, chat)).toHaveLength(1);
    expect(await member(kit, chat, b)).toEqual(before);
  });

  it('writes one message.new event with each side’s conversation ID and unread for a pair', async () => {
    const [a, b] = await newUsers(kit, 2);
    const chat = await newDirect(kit, a, b);
    await send(kit, chat, a, 'first');
    const eventId = randomUUID();
    const message = await append(kit, chat, a, { text: 'second', eventId });
    expect(message!.eventId).toBe(eventId);
    const event = await outboxEvent(kit, eventId);
    expect(event).toMatchObject({ type: 'message.new', conversationId: chat.conversation.id, seq: '2' });
    expect(event!.payload).toEqual({
      message: {
        mid: message!.id,
        conversation_seq: '2',
        sender_id: a.externalId,
        client_message_id: message!.clientMessageId,
        type: 'text',
        content: { text: 'second' },
        status: 'normal',
        created_at: message!.createdAt,
        updated_at: message!.updatedAt,
      },
      by: a.externalId,
    });
    expect(event!.privateParts).toEqual({
      [a.internalId]: { conversation_id: directConversationId(b.externalId), unread: 0 },
      [b.internalId]: { conversation_id: directConversationId(a.externalId), unread: 2 },
    });
    expect(await conversationEvents(kit, chat)).toEqual([
      { type: 'message.new', seq: '1' },
      { type: 'message.new', seq: '2' },
    ]);
  });

  it('writes one shared message.new event for a group, whatever its size', async () => {
    const users = await newUsers(kit, 4);
    const chat = await newGroup(kit, users);
    const eventId = randomUUID();
    const message = await append(kit, chat, users[1], { text: 'to all', eventId });
    const event = await outboxEvent(kit, eventId);
    const conversationId = chat.idFor(users[0].internalId);
    expect(event).toMatchObject({
      type: 'message.new',
      conversationId: chat.conversation.id,
      seq: '1',
      privateParts: null,
    });
    expect(event!.payload).toEqual({
      message: expect.objectContaining({
        mid: message!.id,
        conversation_id: conversationId,
        conversation_seq: '1',
        sender_id: users[1].externalId,
        content: { text: 'to all' },
      }),
      by: users[1].externalId,
      conversation_id: conversationId,
      unread: null,
    });
    const [row] = await sql<{ n: number | string }>(
      kit,
      'SELECT COUNT(*) AS n FROM outbox_recipients r JOIN outbox_events e ON e.id = r.event_row_id WHERE e.event_id = ?',
      [eventId],
    );
    expect(Number(row.n)).toBe(0);
  });

  describe.each(['direct', 'group'] as const)('a %s transaction that fails after appendMessage', (kind) => {
    it('leaves no message, no sequence bump, no counter change and no event', async () => {
      const [a, b, c] = await newUsers(kit, 3);
      const chat = kind === 'direct' ? await newDirect(kit, a, b) : await newGroup(kit, [a, b, c]);
      await send(kit, chat, a);
      const conversation = await kit.store.findById(chat.conversation.id);
      const members = await kit.store.findCurrentMembers(chat.conversation.id);
      const totalsBefore = [await totals(kit, a), await totals(kit, b)];
      const eventId = randomUUID();
      let appended: string | undefined;
      await expect(
        kit.tx.run(async (m) => {
          const message = await appendIn(kit, m, chat, a, { clientMessageId: 'c-rolled-back', eventId });
          appended = message?.seq;
          throw new Error('the rest of the unit failed');
        }),
      ).rejects.toThrow('the rest of the unit failed');
      expect(appended).toBe('2');

      expect(await kit.history.findBySenderClientId(a.internalId, 'c-rolled-back')).toBeNull();
      expect(await kit.store.findById(chat.conversation.id)).toEqual(conversation);
      expect(await kit.store.findCurrentMembers(chat.conversation.id)).toEqual(members);
      expect([await totals(kit, a), await totals(kit, b)]).toEqual(totalsBefore);
      expect(await outboxEvent(kit, eventId)).toBeNull();
      expect(await conversationEvents(kit, chat)).toEqual([{ type: 'message.new', seq: '1' }]);
      // The sequence it took is given again.
      expect((await send(kit, chat, b)).seq).toBe('2');
    });
  });
});
