import type { AuthUser } from '../../src/common/auth-user';
import { directKey } from '../../src/conversations/conversation-id';
import { visibleRange } from '../../src/conversations/visibility';
import {
  StoreKit,
  barrier,
  member,
  newDirect,
  newGroup,
  newUser,
  newUsers,
  send,
  onMysql,
  sql,
  startStoreKit,
} from './store-kit';

// ConversationStore: conversations, members and the range of messages each member sees.
describe('ConversationStore: conversations and members', () => {
  let kit: StoreKit;
  beforeAll(async () => {
    kit = await startStoreKit();
  });
  afterAll(() => kit.close());

  const now = () => kit.t.clock.now();

  it('ensureDirect finds the one conversation of a pair again, whichever side asks', async () => {
    const [a, b] = await newUsers(kit, 2);
    const first = await kit.tx.run((m) => kit.store.ensureDirect(m, a.internalId, b.internalId, now()));
    expect(first).toMatchObject({ type: 'direct', groupId: null, lastSeq: '0' });
    const again = await kit.tx.run((m) => kit.store.ensureDirect(m, b.internalId, a.internalId, now()));
    expect(again.id).toBe(first.id);
    expect((await kit.store.findDirect(b.internalId, a.internalId))?.id).toBe(first.id);
    await expectPair(first.id, a, b);
  });

  // The losing call of a race on the insert reads the winner's row with a locking read (once
  // written with TypeORM's FOR SHARE, which MariaDB 10.11 does not parse); the race is forced here.
  it('ensureDirect converges: two calls racing on the insert make one conversation with two members', async () => {
    const [a, b] = await newUsers(kit, 2);
    // Both calls look the pair up before either inserts (MySQL; SQLite runs them one by one).
    const meet = barrier(2);
    const call = (x: AuthUser, y: AuthUser) =>
      kit.tx.run((m) => {
        if (onMysql) {
          const lookup = m.findOneBy.bind(m);
          m.findOneBy = (async (...args: Parameters<typeof lookup>) => {
            const found = await lookup(...args);
            await meet();
            return found;
          }) as typeof m.findOneBy;
        }
        return kit.store.ensureDirect(m, x.internalId, y.internalId, now());
      });
    const [one, two] = await Promise.all([call(a, b), call(b, a)]);
    expect(two.id).toBe(one.id);
    expect((await kit.store.findDirect(a.internalId, b.internalId))?.id).toBe(one.id);
    await expectPair(one.id, a, b);
  });

  async function expectPair(id: string, a: AuthUser, b: AuthUser): Promise<void> {
    const members = await kit.store.findCurrentMembers(id);
    expect(members.map((m) => [m.userId, m.peerId]).sort()).toEqual(
      [
        [a.internalId, b.internalId],
        [b.internalId, a.internalId],
      ].sort(),
    );
    for (const m of members)
      expect(m).toMatchObject({
        isGroup: false,
        readSeq: '0',
        visibleFromSeq: '0',
        visibleToSeq: null,
        unreadCount: 0,
      });
    const [row] = await sql<{ n: number | string }>(
      kit,
      'SELECT COUNT(*) AS n FROM conversation_members WHERE conversation_id = ?',
      [id],
    );
    expect(Number(row.n)).toBe(2);
    const [key] = await sql<{ n: number | string }>(
      kit,
      'SELECT COUNT(*) AS n FROM conversations WHERE direct_key = ?',
      [directKey(a.internalId, b.internalId)],
    );
    expect(Number(key.n)).toBe(1);
    // Each side's totals row exists from their first one-to-one conversation on.
    const totals = await sql(kit, 'SELECT user_id FROM user_unread_totals WHERE user_id IN (?, ?)', [
      a.internalId,
      b.internalId,
    ]);
    expect(totals).toHaveLength(2);
  }

  it('createGroupConversation and openFirstMembers: the first members see the group from its start', async () => {
    const users = await newUsers(kit, 3);
    const chat = await newGroup(kit, users);
    expect(chat.conversation).toMatchObject({ type: 'group', groupId: chat.groupId, directKey: null, lastSeq: '0' });
    expect((await kit.store.findByGroupId(chat.groupId!))?.id).toBe(chat.conversation.id);
    expect((await kit.store.findById(chat.conversation.id))?.type).toBe('group');
    expect((await kit.store.findByIds([chat.conversation.id, '999999999999'])).map((c) => c.id)).toEqual([
      chat.conversation.id,
    ]);

    const members = await kit.store.findCurrentMembers(chat.conversation.id);
    expect(members.map((m) => m.userId).sort()).toEqual(users.map((u) => u.internalId).sort());
    for (const m of members)
      expect(m).toMatchObject({
        isGroup: true,
        peerId: null,
        readSeq: '0',
        visibleFromSeq: '0',
        visibleToSeq: null,
        visibleToPosition: null,
        unreadCount: 0,
      });
  });

  it('closeMember keeps what the member saw up to leaving; openMember shows what is sent from the rejoin on', async () => {
    const [a, b, c] = await newUsers(kit, 3);
    const chat = await newGroup(kit, [a, b, c]);
    const cid = chat.conversation.id;
    await send(kit, chat, a);
    await send(kit, chat, a);
    const [last] = await sql<{ id: number | string }>(
      kit,
      'SELECT MAX(id) AS id FROM outbox_events WHERE conversation_id = ?',
      [cid],
    );

    await kit.tx.run((m) => kit.store.closeMember(m, cid, c.internalId, now()));
    await send(kit, chat, a);
    await send(kit, chat, b);

    const left = await member(kit, chat, c);
    expect(left).toMatchObject({
      visibleFromSeq: '0',
      visibleToSeq: '2',
      visibleToPosition: String(last.id),
      unreadCount: 2,
    });
    const conversation = (await kit.store.findById(cid))!;
    expect(conversation.lastSeq).toBe('4');
    expect(visibleRange(left, conversation)).toEqual({ from: '0', to: '2' });
    expect((await kit.history.window(cid, visibleRange(left, conversation), 10, true)).map((m) => m.seq)).toEqual([
      '1',
      '2',
    ]);
    expect(await kit.store.isCurrentMember(cid, c.internalId)).toBe(false);
    expect((await kit.store.findCurrentMembers(cid)).map((m) => m.userId).sort()).toEqual(
      [a.internalId, b.internalId].sort(),
    );
    // Closing again changes nothing: the range stays where the member left.
    await kit.tx.run((m) => kit.store.closeMember(m, cid, c.internalId, now()));
    expect((await member(kit, chat, c)).visibleToSeq).toBe('2');

    await kit.tx.run((m) => kit.store.openMember(m, cid, c.internalId, now()));
    const back = await member(kit, chat, c);
    expect(back).toMatchObject({
      visibleFromSeq: '4',
      visibleToSeq: null,
      visibleToPosition: null,
      readSeq: '4',
      unreadCount: 0,
    });
    expect(back.id).toBe(left.id);
    await send(kit, chat, a);
    const after = (await kit.store.findById(cid))!;
    const range = visibleRange(await member(kit, chat, c), after);
    expect(range).toEqual({ from: '4', to: '5' });
    expect((await kit.history.window(cid, range, 10, false)).map((m) => m.seq)).toEqual(['5']);
    expect((await member(kit, chat, c)).unreadCount).toBe(1);
    expect(await kit.store.isCurrentMember(cid, c.internalId)).toBe(true);
  });

  it('closeMembers and openMembers move several ranges at once; a new member sees from joining', async () => {
    const [a, b, c, d] = await newUsers(kit, 4);
    const chat = await newGroup(kit, [a, b, c]);
    const cid = chat.conversation.id;
    await send(kit, chat, a);
    await kit.tx.run((m) => kit.store.closeMembers(m, cid, [b.internalId, c.internalId], now()));
    expect((await member(kit, chat, b)).visibleToSeq).toBe('1');
    expect((await member(kit, chat, c)).visibleToSeq).toBe('1');
    await send(kit, chat, a);
    await send(kit, chat, a);

    await kit.tx.run((m) => kit.store.openMembers(m, cid, [b.internalId, d.internalId, a.internalId], now()));
    expect(await member(kit, chat, b)).toMatchObject({ visibleFromSeq: '3', visibleToSeq: null, readSeq: '3' });
    expect(await member(kit, chat, d)).toMatchObject({
      visibleFromSeq: '3',
      visibleToSeq: null,
      readSeq: '3',
      isGroup: true,
    });
    // A current member is left as they were.
    expect(await member(kit, chat, a)).toMatchObject({ visibleFromSeq: '0', visibleToSeq: null });
    expect((await member(kit, chat, c)).visibleToSeq).toBe('1');
    expect((await kit.store.findCurrentMembers(cid)).map((m) => m.userId).sort()).toEqual(
      [a.internalId, b.internalId, d.internalId].sort(),
    );
    // Nobody to open or close: nothing happens.
    await kit.tx.run(async (m) => {
      await kit.store.openMembers(m, cid, [], now());
      await kit.store.closeMembers(m, cid, [], now());
    });
    expect(await kit.store.findCurrentMembers(cid)).toHaveLength(3);
  });

  it('openMember refuses a one-to-one conversation', async () => {
    const [a, b, c] = await newUsers(kit, 3);
    const chat = await newDirect(kit, a, b);
    await expect(kit.tx.run((m) => kit.store.openMember(m, chat.conversation.id, c.internalId, now()))).rejects.toThrow(
      'openMember on direct conversation',
    );
    expect(await kit.store.findMember(chat.conversation.id, c.internalId)).toBeNull();
  });

  it('findCurrentMembers, isCurrentMember and countCurrentForUser count only current memberships', async () => {
    const [u, v, w] = await newUsers(kit, 3);
    const stranger = await newUser(kit);
    const g1 = await newGroup(kit, [u, v]);
    const g2 = await newGroup(kit, [v, u, w]);
    await newDirect(kit, u, w);
    expect(await kit.store.countCurrentForUser(u.internalId)).toBe(3);
    await kit.tx.run((m) => kit.store.closeMember(m, g2.conversation.id, u.internalId, now()));

    expect(await kit.store.countCurrentForUser(u.internalId)).toBe(2);
    expect(await kit.store.countCurrentForUser(w.internalId)).toBe(2);
    expect(await kit.store.countCurrentForUser(stranger.internalId)).toBe(0);
    expect(await kit.store.isCurrentMember(g1.conversation.id, u.internalId)).toBe(true);
    expect(await kit.store.isCurrentMember(g2.conversation.id, u.internalId)).toBe(false);
    expect(await kit.store.isCurrentMember(g2.conversation.id, stranger.internalId)).toBe(false);
    expect((await kit.store.findCurrentMembers(g2.conversation.id)).map((m) => m.userId).sort()).toEqual(
      [v.internalId, w.internalId].sort(),
    );
    // Inside a transaction, through its manager.
    const inside = await kit.tx.run((m) => kit.store.findCurrentMembers(g1.conversation.id, m));
    expect(inside.map((m) => m.userId).sort()).toEqual([u.internalId, v.internalId].sort());
  });
});
