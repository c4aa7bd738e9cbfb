// The home list and unread when one-to-one and group conversations mix. Group rows derive
// unread, last activity and hidden from their conversation (src/conversations/member-state.ts)
// while one-to-one rows store them, so the list is merged from two sources: these tests pin
// that the merged order, paging, hiding, muting, leaving and reading agree with one model.
import { DataSource } from 'typeorm';
import { MessageCountersRepository } from '../../src/conversations/message-counters.repository';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient, IssuedUser, SyncItem, UnreadTotals, friendCid, groupCid } from '../helpers/api-client';
import { Seed } from '../helpers/factories';

describe('home list and unread over one-to-one and group conversations', () => {
  let t: TestApp;
  let api: ApiClient;
  let seed: Seed;
  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    seed = new Seed(t);
  });
  afterAll(() => t.close());

  async function send(u: IssuedUser, conversationId: string, text = 'hi'): Promise<void> {
    await api.send(u, conversationId, text);
  }

  /** Every item of the home list, the aggregate of its first page, and how many pages it took. */
  async function home(u: IssuedUser): Promise<{ items: SyncItem[]; unread: UnreadTotals; pages: number }> {
    const { pages, items } = await api.syncPages(u);
    return { items, unread: pages[0].unread, pages: pages.length };
  }

  const setting = async (
    u: IssuedUser,
    what: 'pin' | 'mute' | 'hide',
    conversationId: string,
    value: boolean,
  ): Promise<SyncItem> => (await api.setting(u, what, conversationId, value)).conversation;
  const badge = (u: IssuedUser) => api.unread(u);

  it('pages, orders, hides, mutes, reads and leaves consistently across both kinds', async () => {
    const [me, other] = await api.users(2);
    const cids: string[] = [];
    const groups: Array<{ cid: string; publicId: string }> = [];
    const friends: IssuedUser[] = [];
    // 60 conversations, alternating kinds, each with one message from someone else, one
    // second apart: the home list is the reverse of that order over two pages.
    for (let i = 0; i < 60; i += 1) {
      t.clock.advance(1000);
      if (i % 2 === 0) {
        const friend = await api.user();
        await api.befriend(me, friend);
        friends.push(friend);
        await send(friend, friendCid(me));
        cids.push(friendCid(friend));
      } else {
        const publicId = await api.createGroup(other, [me]);
        groups.push({ cid: groupCid(publicId), publicId });
        await send(other, groupCid(publicId));
        cids.push(groupCid(publicId));
      }
    }
    let listed = await home(me);
    expect(listed.pages).toBe(2);
    expect(listed.items.map((i) => i.conversation_id)).toEqual([...cids].reverse());
    expect(listed.items.every((i) => i.unread === 1 && i.read_seq === '0' && i.last_seq === '1')).toBe(true);
    expect(listed.unread).toEqual({ total: 60, total_unmuted: 60 });
    expect((await badge(me)).conversations.map((c) => c.conversation_id)).toEqual([...cids].reverse());

    // A pinned group comes first; muting a group leaves it out of the badge only.
    const [g0, g1, g2, g3] = groups;
    expect(await setting(me, 'pin', g0.cid, true)).toMatchObject({ pinned: true, unread: 1, type: 'group' });
    await setting(me, 'mute', g1.cid, true);
    listed = await home(me);
    expect(listed.items[0].conversation_id).toBe(g0.cid);
    expect(listed.unread).toEqual({ total: 60, total_unmuted: 59 });

    // Hidden until the next message, whoever sends it; its unread then counts both.
    expect(await setting(me, 'hide', g2.cid, true)).toMatchObject({ hidden: true });
    listed = await home(me);
    expect(listed.items.map((i) => i.conversation_id)).not.toContain(g2.cid);
    expect(listed.unread.total).toBe(60);
    t.clock.advance(1000);
    await send(other, g2.cid, 'back');
    listed = await home(me);
    expect(listed.items[1]).toMatchObject({ conversation_id: g2.cid, hidden: false, unread: 2, last_seq: '2' });
    await setting(me, 'hide', g3.cid, true);
    t.clock.advance(1000);
    await send(me, g3.cid, 'mine');
    listed = await home(me);
    expect(listed.items[1]).toMatchObject({ conversation_id: g3.cid, hidden: false, unread: 1, last_seq: '2' });
    expect(listed.unread).toEqual({ total: 61, total_unmuted: 60 });

    // Reading a group clears its unread; my own later message does not raise it.
    const read = await api.read(me, g2.cid, '2');
    expect(read.unread).toBe(0);
    await send(me, g2.cid, 'reply');
    listed = await home(me);
    expect(listed.items.find((i) => i.conversation_id === g2.cid)).toMatchObject({
      unread: 0,
      read_seq: '2',
      last_seq: '3',
    });
    expect(listed.unread).toEqual({ total: 59, total_unmuted: 58 });

    // After leaving, a group keeps its place and unread as of the leave point.
    const g4 = groups[4];
    const before = (await home(me)).items.find((i) => i.conversation_id === g4.cid)!;
    await api.leaveGroup(me, g4.publicId);
    t.clock.advance(1000);
    await send(other, g4.cid, 'after you left');
    listed = await home(me);
    const left = listed.items.find((i) => i.conversation_id === g4.cid)!;
    expect(left).toMatchObject({
      is_member: false,
      unread: 1,
      last_seq: '1',
      last_activity_at: before.last_activity_at,
    });
    expect(listed.unread.total).toBe(59);
    const badgeAfter = await badge(me);
    expect(badgeAfter.total).toBe(59);
    expect(badgeAfter.conversations).toHaveLength(59);
    expect(badgeAfter.conversations.find((c) => c.conversation_id === g4.cid)).toEqual({
      conversation_id: g4.cid,
      unread: 1,
      muted: false,
    });
  });

  it('shows a newcomer no message from before they joined, and refuses a send whose membership closed meanwhile', async () => {
    const [owner, late] = await api.users(2);
    const publicId = await api.createGroup(owner);
    await send(owner, groupCid(publicId), 'before you came');
    await api.addMembers(owner, publicId, [late]);
    const item = (await home(late)).items.find((i) => i.conversation_id === groupCid(publicId))!;
    expect(item).toMatchObject({ unread: 0, last_seq: '1', read_seq: '1' });
    expect(item.last_message).toBeNull();

    // The send checked membership before its transaction; the removal committed in between (the
    // race is played on the repository: no request can stop between the check and the transaction).
    await api.removeMembers(owner, publicId, [late]);
    const { conversationId } = await seed.groupIds(publicId);
    const counters = t.app.get(MessageCountersRepository);
    const still = await t.app
      .get(TransactionRunner)
      .run((manager) => counters.recordSend(manager, { id: conversationId, type: 'group' }, late.id, t.clock.now()));
    expect(still).toBe(false);
    const stored: Array<{ uncounted: string | number }> = await t.app
      .get(DataSource)
      .query('SELECT uncounted FROM conversation_members WHERE conversation_id = ? AND user_id = ?', [
        conversationId,
        late.id,
      ]);
    expect(Number(stored[0].uncounted)).toBe(0);
  });

  it("names each last message's sender: the viewer, the peer, another group member", async () => {
    const [me, peer, owner] = await api.users(3);
    await api.befriend(me, peer);
    const gcid = groupCid(await api.createGroup(owner, [me]));
    const lastOf = async (cid: string) => (await home(me)).items.find((i) => i.conversation_id === cid)!.last_message;

    await send(peer, friendCid(me), 'from the peer');
    expect(await lastOf(friendCid(peer))).toMatchObject({
      sender_id: peer.userId,
      conversation_seq: '1',
      content: { text: 'from the peer' },
    });
    await send(me, friendCid(peer), 'from me');
    expect(await lastOf(friendCid(peer))).toMatchObject({
      sender_id: me.userId,
      conversation_seq: '2',
      content: { text: 'from me' },
    });
    // The peer's own list names the same senders the other way round.
    const peerView = (await home(peer)).items.find((i) => i.conversation_id === friendCid(me))!;
    expect(peerView.last_message).toMatchObject({ sender_id: me.userId, conversation_seq: '2' });

    await send(owner, gcid, 'from the owner');
    expect(await lastOf(gcid)).toMatchObject({ sender_id: owner.userId, conversation_seq: '1' });
    await send(me, gcid, 'mine in the group');
    expect(await lastOf(gcid)).toMatchObject({ sender_id: me.userId, conversation_seq: '2' });
    // The settings reply lists the conversation the same way.
    const pinned = await setting(me, 'pin', gcid, true);
    expect(pinned.last_message).toMatchObject({ sender_id: me.userId, conversation_seq: '2' });
  });
});
