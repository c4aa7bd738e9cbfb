import type { AuthUser } from '../../src/common/auth-user';
import type { Message } from '../../src/conversations/message';
import {
  Chat,
  StoreKit,
  conversationEvents,
  member,
  newDirect,
  newGroup,
  newUsers,
  outboxEvent,
  send,
  sql,
  startStoreKit,
  totals,
} from './store-kit';

// ConversationStore.tombstoneMessage (recall, delete) and advanceRead, and what they do to unread.
describe('ConversationStore: tombstones and reads', () => {
  let kit: StoreKit;
  beforeAll(async () => {
    kit = await startStoreKit();
  });
  afterAll(() => kit.close());

  const now = () => kit.t.clock.now();

  function tombstone(chat: Chat, actor: AuthUser, message: Message, sender: AuthUser, to: 'recalled' | 'deleted') {
    return kit.tx.run((m) =>
      kit.store.tombstoneMessage(m, {
        conversation: chat.conversation,
        idFor: chat.idFor,
        actor,
        message,
        senderExternalId: sender.externalId,
        to,
        now: now(),
      }),
    );
  }

  async function read(chat: Chat, user: AuthUser, readSeq: string) {
    const row = await member(kit, chat, user);
    return kit.tx.run((m) => kit.store.advanceRead(m, row, readSeq, now()));
  }

  const unreadOf = async (chat: Chat, user: AuthUser) => (await member(kit, chat, user)).unreadCount;

  it('pair: recall, second recall, delete of the recalled message, and their effect on unread', async () => {
    const [a, b] = await newUsers(kit, 2);
    const chat = await newDirect(kit, a, b);
    const [m1, m2, m3] = [await send(kit, chat, a), await send(kit, chat, a), await send(kit, chat, a)];
    await read(chat, b, '1');
    expect(await unreadOf(chat, b)).toBe(2);
    const before = (await kit.store.findById(chat.conversation.id))!;

    // A message the reader had read: recalled, no unread changes.
    expect(await tombstone(chat, a, m1, a, 'recalled')).toEqual(expect.any(String));
    expect(await unreadOf(chat, b)).toBe(2);

    const recalled = await tombstone(chat, a, m2, a, 'recalled');
    expect(recalled).toEqual(expect.any(String));
    expect(await kit.history.findById(m2.id)).toMatchObject({ status: 'recalled', content: '', searchText: null });
    expect(await unreadOf(chat, b)).toBe(1);
    expect(await unreadOf(chat, a)).toBe(0);
    expect(await totals(kit, b)).toEqual({ all: 1, unmuted: 1 });
    const event = await outboxEvent(kit, recalled!);
    expect(event).toMatchObject({ type: 'message.recalled', seq: '2', conversationId: chat.conversation.id });
    const afterRecall = (await kit.store.findById(chat.conversation.id))!;
    expect(afterRecall.contentUpdatedAt).toBeGreaterThan(before.contentUpdatedAt);
    expect(afterRecall.deletionRevision).toBe(before.deletionRevision);
    expect(event!.payload).toMatchObject({
      message: { mid: m2.id, status: 'recalled', content: null },
      by: a.externalId,
      updated_at: afterRecall.contentUpdatedAt,
      deletion_revision: afterRecall.deletionRevision,
      last_seq: '3',
    });
    expect(event!.privateParts).toMatchObject({ [b.internalId]: { unread: 1 }, [a.internalId]: { unread: 0 } });

    // A second recall finds nothing to change and writes nothing.
    const events = (await conversationEvents(kit, chat)).length;
    expect(await tombstone(chat, a, m2, a, 'recalled')).toBeNull();
    expect((await conversationEvents(kit, chat)).length).toBe(events);

    // Deleting the recalled message: a new state and event, the deletion revision moves, unread stays.
    const deleted = await tombstone(chat, b, m2, a, 'deleted');
    expect(deleted).toEqual(expect.any(String));
    expect((await outboxEvent(kit, deleted!))?.type).toBe('message.deleted');
    expect((await kit.history.findById(m2.id))?.status).toBe('deleted');
    expect(await unreadOf(chat, b)).toBe(1);
    expect(await totals(kit, b)).toEqual({ all: 1, unmuted: 1 });
    const afterDelete = (await kit.store.findById(chat.conversation.id))!;
    expect(BigInt(afterDelete.deletionRevision)).toBe(BigInt(before.deletionRevision) + 1n);
    expect(afterDelete.contentUpdatedAt).toBeGreaterThan(afterRecall.contentUpdatedAt);

    // Nothing changes a deleted message again.
    expect(await tombstone(chat, a, m2, a, 'recalled')).toBeNull();
    expect(await tombstone(chat, a, m2, a, 'deleted')).toBeNull();

    // Deleting an unread normal message takes it out of unread.
    expect(await tombstone(chat, b, m3, a, 'deleted')).toEqual(expect.any(String));
    expect(await unreadOf(chat, b)).toBe(0);
    expect(await totals(kit, b)).toEqual({ all: 0, unmuted: 0 });
    expect(await totals(kit, a)).toEqual({ all: 0, unmuted: 0 });
  });

  it('group: a recall counts out of the unread of current and former members who had it unread', async () => {
    const [a, b, c, d, e] = await newUsers(kit, 5);
    const chat = await newGroup(kit, [a, b, c, d, e]);
    const cid = chat.conversation.id;
    const m1 = await send(kit, chat, a);
    await kit.tx.run((m) => kit.store.closeMember(m, cid, e.internalId, now()));
    const m2 = await send(kit, chat, a);
    await send(kit, chat, a);
    await kit.tx.run((m) => kit.store.closeMember(m, cid, d.internalId, now()));
    await read(chat, b, '2');
    expect([
      await unreadOf(chat, b),
      await unreadOf(chat, c),
      await unreadOf(chat, d),
      await unreadOf(chat, e),
    ]).toEqual([1, 3, 3, 1]);
    const dBefore = await member(kit, chat, d);
    const eBefore = await member(kit, chat, e);

    const eventId = await tombstone(chat, a, m2, a, 'recalled');
    // b had read it; c and d (who left after it) had it unread; e left before it was sent.
    expect([
      await unreadOf(chat, b),
      await unreadOf(chat, c),
      await unreadOf(chat, d),
      await unreadOf(chat, e),
    ]).toEqual([1, 2, 2, 1]);
    expect(await unreadOf(chat, a)).toBe(0);
    const conversation = (await kit.store.findById(cid))!;
    // A former member whose window holds the message sees the new content version; the other does not.
    expect((await member(kit, chat, d)).visibleUpdatedAt).toBe(conversation.contentUpdatedAt);
    expect((await member(kit, chat, d)).visibleUpdatedAt).not.toBe(dBefore.visibleUpdatedAt);
    expect((await member(kit, chat, e)).visibleUpdatedAt).toBe(eBefore.visibleUpdatedAt);
    const event = await outboxEvent(kit, eventId!);
    expect(event).toMatchObject({ type: 'message.recalled', seq: '2', privateParts: null });
    expect(event!.payload).toMatchObject({ conversation_id: chat.idFor(a.internalId), unread: null, last_seq: '3' });

    // Deleting the recalled message moves the revision of d's window, and no unread.
    await tombstone(chat, a, m2, a, 'deleted');
    expect([await unreadOf(chat, b), await unreadOf(chat, c), await unreadOf(chat, d)]).toEqual([1, 2, 2]);
    expect((await member(kit, chat, d)).visibleDeletionRevision).toBe('1');
    expect((await member(kit, chat, e)).visibleDeletionRevision).toBe(eBefore.visibleDeletionRevision);
    // A message e saw: its window moves too.
    await tombstone(chat, a, m1, a, 'deleted');
    expect((await member(kit, chat, e)).visibleDeletionRevision).toBe('2');
    expect(await unreadOf(chat, e)).toBe(0);
  });

  it('advanceRead moves forward only and counts unread exactly (pair)', async () => {
    const [a, b] = await newUsers(kit, 2);
    const chat = await newDirect(kit, a, b);
    const sent = [
      await send(kit, chat, a),
      await send(kit, chat, b),
      await send(kit, chat, a),
      await send(kit, chat, a),
    ];
    await tombstone(chat, a, sent[3], a, 'recalled');
    expect(await unreadOf(chat, b)).toBe(2);

    const first = await read(chat, b, '1');
    expect(first).toMatchObject({ readSeq: '1', unread: 1, moved: true });
    expect(first.conversation.id).toBe(chat.conversation.id);
    expect(await member(kit, chat, b)).toMatchObject({ readSeq: '1', unreadCount: 1 });
    expect(await totals(kit, b)).toEqual({ all: 1, unmuted: 1 });

    // Back, or to where it is: nothing moves.
    expect(await read(chat, b, '0')).toMatchObject({ readSeq: '1', unread: 1, moved: false });
    expect(await read(chat, b, '1')).toMatchObject({ readSeq: '1', unread: 1, moved: false });
    expect((await member(kit, chat, b)).readSeq).toBe('1');

    // Past b's own message and a's: only the recalled one is left, which does not count.
    expect(await read(chat, b, '3')).toMatchObject({ readSeq: '3', unread: 0, moved: true });
    expect(await totals(kit, b)).toEqual({ all: 0, unmuted: 0 });
    expect(await read(chat, a, '4')).toMatchObject({ readSeq: '4', unread: 0, moved: true });
  });

  it('advanceRead counts a group member’s unread exactly and a former member’s only within their range', async () => {
    const [a, b, c] = await newUsers(kit, 3);
    const chat = await newGroup(kit, [a, b, c]);
    const cid = chat.conversation.id;
    const sent = [
      await send(kit, chat, a),
      await send(kit, chat, a),
      await send(kit, chat, a),
      await send(kit, chat, b),
    ];
    await tombstone(chat, a, sent[1], a, 'recalled');
    await kit.tx.run((m) => kit.store.closeMember(m, cid, c.internalId, now()));
    await send(kit, chat, a);
    await send(kit, chat, a);

    // b after seq 1: a's messages 3, 5, 6 (2 is recalled, 4 is b's own).
    expect(await read(chat, b, '1')).toMatchObject({ readSeq: '1', unread: 3, moved: true });
    expect(await member(kit, chat, b)).toMatchObject({ readSeq: '1', unreadCount: 3 });
    expect(await read(chat, b, '5')).toMatchObject({ readSeq: '5', unread: 1, moved: true });
    expect(await read(chat, b, '3')).toMatchObject({ readSeq: '5', unread: 1, moved: false });

    // c left at 4: unread 3, 4 (1 read below, 2 recalled) and nothing sent after leaving.
    expect(await unreadOf(chat, c)).toBe(3);
    expect(await read(chat, c, '1')).toMatchObject({ readSeq: '1', unread: 2, moved: true });
    expect(await member(kit, chat, c)).toMatchObject({ readSeq: '1', unreadCount: 2, visibleToSeq: '4' });
    expect(await read(chat, c, '4')).toMatchObject({ readSeq: '4', unread: 0, moved: true });
    const [row] = await sql<{ uncounted: number | string }>(
      kit,
      'SELECT uncounted FROM conversation_members WHERE id = ?',
      [(await member(kit, chat, c)).id],
    );
    expect(Number(row.uncounted)).toBe(0);
  });

  // ConversationStore.advanceRead says it never moves the read position past what the member
  // can see, but it stores whatever it is given; only its caller (MessageReadsService.markRead)
  // refuses a position past the range. See the report of this suite.
  it('advanceRead never stores a read position past the member’s visible range', async () => {
    const [a, b, c] = await newUsers(kit, 3);
    const chat = await newGroup(kit, [a, b, c]);
    await send(kit, chat, a);
    await send(kit, chat, a);
    await kit.tx.run((m) => kit.store.closeMember(m, chat.conversation.id, c.internalId, now()));
    await send(kit, chat, a);

    const current = await read(chat, b, '9');
    const former = await read(chat, c, '3');
    const stored = await sql<{ user_id: number | string; read_seq: number | string; uncounted: number | string }>(
      kit,
      'SELECT user_id, read_seq, uncounted FROM conversation_members WHERE conversation_id = ? AND user_id IN (?, ?)',
      [chat.conversation.id, b.internalId, c.internalId],
    );
    const of = (user: AuthUser) => stored.find((r) => String(r.user_id) === user.internalId)!;
    expect({ current: current.readSeq, former: former.readSeq }).toEqual({ current: '3', former: '2' });
    expect([Number(of(b).read_seq), Number(of(c).read_seq)]).toEqual([3, 2]);
    expect([Number(of(b).uncounted), Number(of(c).uncounted)]).toEqual([0, 0]);
  });
});
