// The home list and unread when one-to-one and group conversations mix. Group rows derive
// unread, last activity and hidden from their conversation (src/conversations/member-state.ts)
// while one-to-one rows store them, so the list is merged from two sources: these tests pin
// that the merged order, paging, hiding, muting, leaving and reading agree with one model.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ConversationMembersRepository } from '../src/conversations/conversation-members.repository';
import { TransactionRunner } from '../src/database/transaction-runner';
import { Seed } from './helpers/seed';
import { IssuedUser, TestApp, bearer, friendConversationId, issueUser, okData, randomGroupId, startTestApp } from './helpers/test-app';

interface Item {
  conversation_id: string;
  type: 'direct' | 'group';
  last_seq: string;
  read_seq: string;
  unread: number;
  pinned: boolean;
  muted: boolean;
  hidden: boolean;
  last_activity_at: number;
  is_member: boolean;
}

interface SyncData {
  conversations: { items: Item[]; next_cursor: string | null; has_more: boolean };
  unread: { total: number; total_unmuted: number };
}

const data = okData;

describe('home list and unread over one-to-one and group conversations', () => {
  let t: TestApp;
  let seed: Seed;
  beforeAll(async () => {
    t = await startTestApp();
    seed = new Seed(t);
  });
  afterAll(() => t.close());

  const friendCid = friendConversationId;

  async function send(u: IssuedUser, conversationId: string, text = 'hi'): Promise<void> {
    data(await t.http.post('/app/sdk/messages/send').set(...bearer(u.token)).send({ conversation_id: conversationId, client_message_id: randomBytes(8).toString('hex'), type: 'text', content: { text } }));
  }

  async function home(u: IssuedUser): Promise<{ items: Item[]; unread: SyncData['unread']; pages: number }> {
    const first = data<SyncData>(await t.http.post('/app/sdk/sync').set(...bearer(u.token)).send({}));
    const items = [...first.conversations.items];
    let page = first.conversations;
    let pages = 1;
    while (page.has_more) {
      page = data<SyncData>(await t.http.post('/app/sdk/sync').set(...bearer(u.token)).send({ cursor: page.next_cursor })).conversations;
      items.push(...page.items);
      pages += 1;
    }
    return { items, unread: first.unread, pages };
  }

  async function setting(u: IssuedUser, what: 'pin' | 'mute' | 'hide', conversationId: string, value: boolean): Promise<Item> {
    const field = { pin: 'pinned', mute: 'muted', hide: 'hidden' }[what];
    return data<{ conversation: Item }>(await t.http.post(`/app/sdk/conversations/${what}`).set(...bearer(u.token)).send({ conversation_id: conversationId, [field]: value })).conversation;
  }

  const badge = async (u: IssuedUser) =>
    data<{ total: number; total_unmuted: number; conversations: Array<{ conversation_id: string; unread: number }> }>(await t.http.get('/app/sdk/unread').set(...bearer(u.token)));

  it('pages, orders, hides, mutes, reads and leaves consistently across both kinds', async () => {
    const me = await issueUser(t);
    const other = await issueUser(t);
    const cids: string[] = [];
    const groups: Array<{ cid: string; groupId: string; conversationId: string }> = [];
    const friends: IssuedUser[] = [];
    // 60 conversations, alternating kinds, each with one message from someone else, one
    // second apart: the home list is the reverse of that order over two pages.
    for (let i = 0; i < 60; i += 1) {
      t.clock.advance(1000);
      if (i % 2 === 0) {
        const friend = await issueUser(t);
        await seed.friends(me.id, friend.id);
        friends.push(friend);
        await send(friend, friendCid(me));
        cids.push(friendCid(friend));
      } else {
        const publicId = randomGroupId();
        const group = await seed.group(publicId, other.id, [me.id]);
        groups.push({ cid: `group_${publicId}`, ...group });
        await send(other, `group_${publicId}`);
        cids.push(`group_${publicId}`);
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
    const read = data<{ unread: number }>(await t.http.post('/app/sdk/messages/read').set(...bearer(me.token)).send({ conversation_id: g2.cid, read_seq: '2' }));
    expect(read.unread).toBe(0);
    await send(me, g2.cid, 'reply');
    listed = await home(me);
    expect(listed.items.find((i) => i.conversation_id === g2.cid)).toMatchObject({ unread: 0, read_seq: '2', last_seq: '3' });
    expect(listed.unread).toEqual({ total: 59, total_unmuted: 58 });

    // After leaving, a group keeps its place and unread as of the leave point.
    const g4 = groups[4];
    const before = (await home(me)).items.find((i) => i.conversation_id === g4.cid)!;
    await seed.leaveGroup(g4.groupId, g4.conversationId, me.id);
    t.clock.advance(1000);
    await send(other, g4.cid, 'after you left');
    listed = await home(me);
    const left = listed.items.find((i) => i.conversation_id === g4.cid)!;
    expect(left).toMatchObject({ is_member: false, unread: 1, last_seq: '1', last_activity_at: before.last_activity_at });
    expect(listed.unread.total).toBe(59);
    const badgeAfter = await badge(me);
    expect(badgeAfter.total).toBe(59);
    expect(badgeAfter.conversations).toHaveLength(59);
    expect(badgeAfter.conversations.find((c) => c.conversation_id === g4.cid)).toEqual({ conversation_id: g4.cid, unread: 1, muted: false });
  });

  it('shows a newcomer no message from before they joined, and refuses a send whose membership closed meanwhile', async () => {
    const owner = await issueUser(t);
    const late = await issueUser(t);
    const publicId = randomGroupId();
    const { groupId, conversationId } = await seed.group(publicId, owner.id);
    await send(owner, `group_${publicId}`, 'before you came');
    await seed.joinGroup(groupId, conversationId, late.id);
    const item = (await home(late)).items.find((i) => i.conversation_id === `group_${publicId}`)!;
    expect(item).toMatchObject({ unread: 0, last_seq: '1', read_seq: '1' });
    expect((item as unknown as { last_message: unknown }).last_message).toBeNull();

    // The send checked membership before its transaction; the removal committed in between.
    await seed.leaveGroup(groupId, conversationId, late.id, 'removed');
    const members = t.app.get(ConversationMembersRepository);
    const still = await t.app.get(TransactionRunner).run((manager) => members.recordSend(manager, { id: conversationId, type: 'group' }, late.id, t.clock.now()));
    expect(still).toBe(false);
    const stored: Array<{ uncounted: string | number }> = await t.app.get(DataSource).query('SELECT uncounted FROM conversation_members WHERE conversation_id = ? AND user_id = ?', [conversationId, late.id]);
    expect(Number(stored[0].uncounted)).toBe(0);
  });

  it("names each last message's sender: the viewer, the peer, another group member", async () => {
    const me = await issueUser(t);
    const peer = await issueUser(t);
    const owner = await issueUser(t);
    await seed.friends(me.id, peer.id);
    const publicId = randomGroupId();
    await seed.group(publicId, owner.id, [me.id]);
    const gcid = `group_${publicId}`;
    type Listed = Item & { last_message: { sender_id: string; conversation_seq: string; content: { text: string } } | null };
    const lastOf = async (cid: string) => ((await home(me)).items as Listed[]).find((i) => i.conversation_id === cid)!.last_message;

    await send(peer, friendCid(me), 'from the peer');
    expect(await lastOf(friendCid(peer))).toMatchObject({ sender_id: peer.userId, conversation_seq: '1', content: { text: 'from the peer' } });
    await send(me, friendCid(peer), 'from me');
    expect(await lastOf(friendCid(peer))).toMatchObject({ sender_id: me.userId, conversation_seq: '2', content: { text: 'from me' } });
    // The peer's own list names the same senders the other way round.
    const peerView = ((await home(peer)).items as Listed[]).find((i) => i.conversation_id === friendCid(me))!;
    expect(peerView.last_message).toMatchObject({ sender_id: me.userId, conversation_seq: '2' });

    await send(owner, gcid, 'from the owner');
    expect(await lastOf(gcid)).toMatchObject({ sender_id: owner.userId, conversation_seq: '1' });
    await send(me, gcid, 'mine in the group');
    expect(await lastOf(gcid)).toMatchObject({ sender_id: me.userId, conversation_seq: '2' });
    // The settings reply lists the conversation the same way.
    const pinned = (await setting(me, 'pin', gcid, true)) as Listed;
    expect(pinned.last_message).toMatchObject({ sender_id: me.userId, conversation_seq: '2' });
  });
});
