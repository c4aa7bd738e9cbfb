// Black-box tests of POST /app/sdk/sync, the conversation settings (pin, mute, hide) and
// GET /app/sdk/unread, written from the service specification (2.1, 2.2, 4, 4.6, 4.7, 6, 7, 8)
// and the documented API contract. Everything, set-up included, goes through HTTP; SQL only
// reads the outbox.
import { TestApp, randomGroupId, startTestApp } from '../helpers/test-app';
import {
  ApiClient,
  IssuedUser,
  SyncItem as Item,
  SyncData,
  UnreadData,
  friendCid,
  groupCid,
} from '../helpers/api-client';
import { expectDelivered, expectFail, expectOk } from '../helpers/assertions';
import { Factories } from '../helpers/factories';

/** Flips one character in the middle of a cursor. */
function tamper(cursor: string): string {
  const i = Math.floor(cursor.length / 2);
  const c = cursor[i] === 'A' ? 'B' : 'A';
  return cursor.slice(0, i) + c + cursor.slice(i + 1);
}

describe('Sync, conversation settings and unread (black box)', () => {
  let t: TestApp;
  let api: ApiClient;
  let factories: Factories;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    factories = new Factories(t, api);
  });
  afterAll(() => t.close());

  const ids = (items: Item[]): string[] => items.map((i) => i.conversation_id);

  /** A user with `count` friends; friend i sends one message, one second apart (friend 0 oldest). */
  async function hub(
    count: number,
    spacingMs = 1000,
  ): Promise<{ me: IssuedUser; friends: IssuedUser[]; cids: string[] }> {
    const me = await api.user();
    const friends: IssuedUser[] = [];
    for (let i = 0; i < count; i += 1) {
      const f = await api.user();
      await api.befriend(me, f);
      friends.push(f);
    }
    for (const f of friends) {
      t.clock.advance(spacingMs);
      await api.send(f, friendCid(me), `hello from ${f.userId}`);
    }
    return { me, friends, cids: friends.map((f) => friendCid(f)) };
  }

  // =====================================================================================
  describe('paging past 50 conversations', () => {
    let me: IssuedUser;
    let friends: IssuedUser[];
    let cids: string[];
    beforeAll(async () => {
      ({ me, friends, cids } = await hub(55));
    });

    it('returns 50 then 5 conversations, newest activity first, no duplicates, with has_more/next_cursor', async () => {
      const { pages, items } = await api.syncPages(me);
      expect(pages).toHaveLength(2);
      expect(pages[0].conversations.items).toHaveLength(50);
      expect(pages[0].conversations.has_more).toBe(true);
      expect(typeof pages[0].conversations.next_cursor).toBe('string');
      expect(pages[1].conversations.items).toHaveLength(5);
      expect(pages[1].conversations.has_more).toBe(false);
      expect(pages[1].conversations.next_cursor).toBeNull();
      expect(ids(items)).toEqual([...cids].reverse());
      expect(new Set(ids(items)).size).toBe(55);
      for (let i = 1; i < items.length; i += 1)
        expect(items[i - 1].last_activity_at).toBeGreaterThanOrEqual(items[i].last_activity_at);
      expect(pages[0].unread).toEqual({ total: 55, total_unmuted: 55 });
    });

    it('describes each one-to-one item completely', async () => {
      const { items } = await api.syncPages(me);
      const item = items.find((i) => i.conversation_id === cids[0])!;
      expect(item).toEqual({
        conversation_id: cids[0],
        type: expect.any(String),
        title: expect.any(String),
        avatar: expect.any(String),
        peer_user_id: friends[0].userId,
        group_id: null,
        last_message: expect.objectContaining({
          conversation_id: cids[0],
          conversation_seq: '1',
          sender_id: friends[0].userId,
          status: 'normal',
        }),
        last_seq: '1',
        read_seq: '0',
        unread: 1,
        pinned: false,
        muted: false,
        hidden: false,
        updated_at: expect.any(Number),
        deletion_revision: expect.anything(),
        last_activity_at: expect.any(Number),
        is_member: true,
      });
      expect(item.last_message?.content).toEqual({ text: `hello from ${friends[0].userId}` });
      // The peer sees the same conversation under his own id.
      const peer = expectOk<SyncData>(await api.raw.sync(friends[0])).conversations.items;
      expect(peer).toHaveLength(1);
      expect(peer[0]).toMatchObject({
        conversation_id: friendCid(me),
        peer_user_id: me.userId,
        unread: 0,
        last_seq: '1',
      });
    });

    it('the /unread badge agrees with sync', async () => {
      const badge = expectOk<UnreadData>(await api.raw.unread(me));
      expect({ total: badge.total, total_unmuted: badge.total_unmuted }).toEqual({ total: 55, total_unmuted: 55 });
      for (const entry of badge.conversations)
        expect(entry).toEqual({ conversation_id: expect.any(String), unread: 1, muted: false });
      expect(new Set(badge.conversations.map((c) => c.conversation_id)).size).toBe(badge.conversations.length);
      if (!badge.has_more) expect(badge.conversations).toHaveLength(55);
    });

    it('a conversation that moves to the top between page reads is not duplicated on the next page', async () => {
      const first = expectOk<SyncData>(await api.raw.sync(me));
      const firstIds = ids(first.conversations.items);
      t.clock.advance(1000);
      // the oldest conversation (on page 2) gets a message and jumps to the top
      await api.send(friends[0], friendCid(me), 'bump');
      const second = expectOk<SyncData>(await api.raw.sync(me, { cursor: first.conversations.next_cursor }));
      const dupes = ids(second.conversations.items).filter((id) => firstIds.includes(id));
      expect(dupes).toEqual([]);
      const fresh = await api.syncPages(me);
      expect(ids(fresh.items)[0]).toBe(cids[0]);
      expect(new Set(ids(fresh.items)).size).toBe(55);
      expect(fresh.items[0].unread).toBe(2);
    });

    it('puts pinned conversations first (newest activity first among them) on page one', async () => {
      const p1 = await api.setting(me, 'pin', cids[3], true);
      expect(p1.conversation).toMatchObject({
        conversation_id: cids[3],
        pinned: true,
        peer_user_id: friends[3].userId,
      });
      await expectDelivered(t, p1.event_id, [me], [friends[3]]);
      await api.setting(me, 'pin', cids[1], true);
      const { pages, items } = await api.syncPages(me);
      expect(ids(items).slice(0, 2)).toEqual([cids[3], cids[1]]);
      expect(items[0].pinned && items[1].pinned).toBe(true);
      expect(items.slice(2).every((i) => !i.pinned)).toBe(true);
      expect(pages[0].conversations.items).toHaveLength(50);
      expect(new Set(ids(items)).size).toBe(55);
      const rest = items.slice(2);
      for (let i = 1; i < rest.length; i += 1)
        expect(rest[i - 1].last_activity_at).toBeGreaterThanOrEqual(rest[i].last_activity_at);
      // pinning is private: the peer's item is not pinned
      const peer = expectOk<SyncData>(await api.raw.sync(friends[3])).conversations.items[0];
      expect(peer.pinned).toBe(false);
      // unpin restores the activity order
      const u1 = await api.setting(me, 'pin', cids[3], false);
      expect(u1.conversation.pinned).toBe(false);
      await api.setting(me, 'pin', cids[1], false);
      const after = await api.syncPages(me);
      expect(after.items.every((i) => !i.pinned)).toBe(true);
      for (let i = 1; i < after.items.length; i += 1)
        expect(after.items[i - 1].last_activity_at).toBeGreaterThanOrEqual(after.items[i].last_activity_at);
    });

    it('hides a conversation until its next message, and unhides on request', async () => {
      const h = await api.setting(me, 'hide', cids[30], true);
      expect(h.conversation).toMatchObject({ conversation_id: cids[30], hidden: true });
      await expectDelivered(t, h.event_id, [me], [friends[30]]);
      let listed = await api.syncPages(me);
      expect(ids(listed.items)).not.toContain(cids[30]);
      expect(listed.items).toHaveLength(54);
      expect(new Set(ids(listed.items)).size).toBe(54);
      // explicit unhide
      expect((await api.setting(me, 'hide', cids[30], false)).conversation.hidden).toBe(false);
      listed = await api.syncPages(me);
      expect(ids(listed.items)).toContain(cids[30]);
      // hide again; the next message brings it back on top, not hidden
      await api.setting(me, 'hide', cids[31], true);
      expect(ids((await api.syncPages(me)).items)).not.toContain(cids[31]);
      t.clock.advance(1000);
      await api.send(friends[31], friendCid(me), 'are you there?');
      listed = await api.syncPages(me);
      expect(ids(listed.items)[0]).toBe(cids[31]);
      expect(listed.items[0]).toMatchObject({ hidden: false, unread: 2 });
      expect(listed.items).toHaveLength(55);
    });

    it('a message sent by the hider himself also brings the conversation back', async () => {
      await api.setting(me, 'hide', cids[32], true);
      expect(ids((await api.syncPages(me)).items)).not.toContain(cids[32]);
      t.clock.advance(1000);
      await api.send(me, cids[32], 'I am back');
      const listed = await api.syncPages(me);
      expect(ids(listed.items)[0]).toBe(cids[32]);
      expect(listed.items[0].hidden).toBe(false);
    });

    it('excludes muted unread from total_unmuted in sync and /unread', async () => {
      const before = expectOk<SyncData>(await api.raw.sync(me)).unread;
      const m = await api.setting(me, 'mute', cids[40], true);
      expect(m.conversation).toMatchObject({ conversation_id: cids[40], muted: true, unread: 1 });
      await expectDelivered(t, m.event_id, [me], [friends[40]]);
      const s = expectOk<SyncData>(await api.raw.sync(me));
      expect(s.unread).toEqual({ total: before.total, total_unmuted: before.total - 1 });
      const item = (await api.syncPages(me)).items.find((i) => i.conversation_id === cids[40])!;
      expect(item).toMatchObject({ muted: true, unread: 1 });
      const badge = expectOk<UnreadData>(await api.raw.unread(me));
      expect({ total: badge.total, total_unmuted: badge.total_unmuted }).toEqual({
        total: before.total,
        total_unmuted: before.total - 1,
      });
      const entry = badge.conversations.find((c) => c.conversation_id === cids[40]);
      if (entry || !badge.has_more) expect(entry).toEqual({ conversation_id: cids[40], unread: 1, muted: true });
      // a new message in a muted conversation counts in total only
      await api.send(friends[40], friendCid(me), 'muted news');
      const s2 = expectOk<SyncData>(await api.raw.sync(me));
      expect(s2.unread).toEqual({ total: before.total + 1, total_unmuted: before.total - 1 });
      const badge2 = expectOk<UnreadData>(await api.raw.unread(me));
      expect({ total: badge2.total, total_unmuted: badge2.total_unmuted }).toEqual({
        total: before.total + 1,
        total_unmuted: before.total - 1,
      });
      // muting is private: the peer's own aggregate is untouched
      const peer = expectOk<SyncData>(await api.raw.sync(friends[40]));
      expect(peer.conversations.items[0].muted).toBe(false);
      // unmute
      await api.setting(me, 'mute', cids[40], false);
      const s3 = expectOk<SyncData>(await api.raw.sync(me));
      expect(s3.unread).toEqual({ total: before.total + 1, total_unmuted: before.total + 1 });
    });

    it('refuses a tampered or garbage cursor with 1004', async () => {
      const first = expectOk<SyncData>(await api.raw.sync(me));
      const cursor = first.conversations.next_cursor!;
      expectFail(await api.raw.sync(me, { cursor: tamper(cursor) }), 1004);
      expectFail(await api.raw.sync(me, { cursor: `${cursor}x` }), 1004);
      expectFail(await api.raw.sync(me, { cursor: cursor.slice(0, -1) }), 1004);
      expectFail(await api.raw.sync(me, { cursor: 'garbage' }), 1004);
      expectFail(
        await api.raw.sync(me, { cursor: Buffer.from(JSON.stringify({ offset: 50 })).toString('base64url') }),
        1004,
      );
      expectFail(await api.raw.sync(me, { cursor: 50 }), 1004);
      expectFail(await api.raw.sync(me, { cursor: { offset: 50 } }), 1004);
      // the untouched cursor still works
      expect(expectOk<SyncData>(await api.raw.sync(me, { cursor })).conversations.items.length).toBeGreaterThan(0);
    });

    it('refuses a cursor reused by another account with 1004', async () => {
      const other = await hub(52, 10);
      const mine = expectOk<SyncData>(await api.raw.sync(me)).conversations.next_cursor!;
      expectFail(await api.raw.sync(other.me, { cursor: mine }), 1004);
      expectFail(await api.raw.sync(friends[0], { cursor: mine }), 1004);
      const theirs = expectOk<SyncData>(await api.raw.sync(other.me)).conversations.next_cursor!;
      expect(typeof theirs).toBe('string');
      expectFail(await api.raw.sync(me, { cursor: theirs }), 1004);
    });

    it('refuses a sync cursor on search and a search cursor on sync (1004)', async () => {
      const talk = friendCid(friends[50]);
      for (let i = 0; i < 45; i += 1) await api.send(me, talk, `needle ${i}`);
      const search = expectOk<{ next_cursor: string | null; has_more: boolean }>(
        await api.raw.search(me, { conversation_id: talk, keyword: 'needle' }),
      );
      expect(search.has_more).toBe(true);
      expectFail(await api.raw.sync(me, { cursor: search.next_cursor }), 1004);
      const syncCursor = expectOk<SyncData>(await api.raw.sync(me)).conversations.next_cursor!;
      expectFail(await api.raw.search(me, { conversation_id: talk, keyword: 'needle', cursor: syncCursor }), 1004);
    });

    it('refuses page/offset/limit with 1004', async () => {
      for (const extra of [{ page: 2 }, { offset: 50 }, { limit: 10 }, { page: '2' }]) {
        expectFail(await api.raw.sync(me, extra), 1004);
      }
      const cursor = expectOk<SyncData>(await api.raw.sync(me)).conversations.next_cursor!;
      expectFail(await api.raw.sync(me, { cursor, limit: 10 }), 1004);
    });

    it('reports capabilities, media limits and the server time', async () => {
      const before = t.clock.now();
      const s = expectOk<SyncData>(await api.raw.sync(me));
      expect(s.capabilities).toEqual({
        friends: true,
        groups: true,
        calls: expect.any(Boolean),
        search: true,
        media: expect.any(Boolean),
      });
      expect(typeof s.media_limits).toBe('object');
      expect(s.media_limits).not.toBeNull();
      expect(Number.isInteger(s.server_time)).toBe(true);
      expect(s.server_time).toBeGreaterThanOrEqual(before);
      expect(s.server_time).toBeLessThanOrEqual(t.clock.now());
    });
  });

  // =====================================================================================
  describe('paging with equal activity times', () => {
    it('pages 55 conversations with identical last activity without duplicates or gaps', async () => {
      const fixed = t.clock.now() + 10_000;
      t.clock.set(fixed);
      const { me, cids } = await hub(55, 0);
      const { pages, items } = await api.syncPages(me);
      expect(pages.map((p) => p.conversations.items.length)).toEqual([50, 5]);
      expect(new Set(ids(items)).size).toBe(55);
      expect([...ids(items)].sort()).toEqual([...cids].sort());
      t.clock.advance(1);
    });

    it('pages correctly when more than 50 conversations are pinned', async () => {
      const { me, cids } = await hub(53, 1);
      for (const cid of cids) await api.setting(me, 'pin', cid, true);
      const { pages, items } = await api.syncPages(me);
      expect(pages.map((p) => p.conversations.items.length)).toEqual([50, 3]);
      expect(new Set(ids(items)).size).toBe(53);
      expect(items.every((i) => i.pinned)).toBe(true);
    });

    it('hidden conversations do not take places on a page', async () => {
      const { me, cids } = await hub(53, 1);
      for (const cid of cids.slice(0, 3)) await api.setting(me, 'hide', cid, true);
      const { pages, items } = await api.syncPages(me);
      expect(pages[0].conversations.items).toHaveLength(50);
      expect(pages[0].conversations.has_more).toBe(false);
      expect(items).toHaveLength(50);
    });
  });

  // =====================================================================================
  describe('settings and unread', () => {
    it('refuses non-boolean values and missing fields with 1004', async () => {
      const me = await api.user();
      const f = await api.user();
      await api.befriend(me, f);
      const cid = friendCid(f);
      for (const [what, field] of [
        ['pin', 'pinned'],
        ['mute', 'muted'],
        ['hide', 'hidden'],
      ] as const) {
        for (const value of ['true', 1, 0, 'false', null])
          expectFail(await api.raw.setting(me, what, { conversation_id: cid, [field]: value }), 1004);
        expectFail(await api.raw.setting(me, what, { conversation_id: cid }), 1004);
        expectFail(await api.raw.setting(me, what, { [field]: true }), 1004);
        expectFail(await api.raw.setting(me, what, { conversation_id: 'bogus', [field]: true }), 1004);
      }
    });

    it('refuses settings on an inaccessible conversation with 1201', async () => {
      const me = await api.user();
      const owner = await api.user();
      const stranger = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [], pub);
      expectFail(await api.raw.setting(me, 'pin', { conversation_id: groupCid(pub), pinned: true }), 1201);
      expectFail(await api.raw.setting(me, 'mute', { conversation_id: groupCid(pub), muted: true }), 1201);
      expectFail(await api.raw.setting(me, 'hide', { conversation_id: groupCid(pub), hidden: true }), 1201);
      const r = await api.raw.setting(me, 'pin', { conversation_id: friendCid(stranger), pinned: true });
      expect([1201, 1203]).toContain(r.body.code);
    });

    it('setting the same value again succeeds and leaves state unchanged', async () => {
      const me = await api.user();
      const f = await api.user();
      await api.befriend(me, f);
      const a = await api.setting(me, 'pin', friendCid(f), true);
      const b = await api.setting(me, 'pin', friendCid(f), true);
      expect(a.conversation.pinned && b.conversation.pinned).toBe(true);
      if (b.event_id !== null) await expectDelivered(t, b.event_id, [me]);
    });

    it('group items carry group fields; a removed member sees is_member false and stops counting new messages', async () => {
      const owner = await api.user();
      const x = await api.user();
      const y = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [x, y], pub);
      const cid = groupCid(pub);
      await api.send(owner, cid, 'one');
      const item = expectOk<SyncData>(await api.raw.sync(x)).conversations.items.find(
        (i) => i.conversation_id === cid,
      )!;
      expect(item).toMatchObject({
        conversation_id: cid,
        group_id: pub,
        peer_user_id: null,
        is_member: true,
        unread: 1,
        last_seq: '1',
      });
      expect(item.title).toBe(`Group ${pub}`);
      await api.removeMembers(owner, pub, [x]);
      t.clock.advance(1000);
      await api.send(owner, cid, 'two');
      await api.send(y, cid, 'three');
      const s = expectOk<SyncData>(await api.raw.sync(x));
      const after = s.conversations.items.find((i) => i.conversation_id === cid);
      if (after) {
        expect(after).toMatchObject({ is_member: false, last_seq: '1', unread: 1 });
        expect(after.last_message?.conversation_seq).toBe('1');
      }
      expect(s.unread.total).toBe(after ? 1 : 0);
      const badge = expectOk<UnreadData>(await api.raw.unread(x));
      expect(badge.total).toBe(s.unread.total);
      const yItem = expectOk<SyncData>(await api.raw.sync(y)).conversations.items.find(
        (i) => i.conversation_id === cid,
      )!;
      expect(yItem).toMatchObject({ is_member: true, last_seq: '3', unread: 2 });
    });

    it('orders a mix of groups and one-to-one conversations by last activity', async () => {
      const me = await api.user();
      const f = await api.user();
      const owner = await api.user();
      await api.befriend(me, f);
      const pub1 = randomGroupId();
      const pub2 = randomGroupId();
      await factories.group(owner, [me], pub1);
      await factories.group(owner, [me], pub2);
      t.clock.advance(1000);
      await api.send(owner, groupCid(pub2), 'g2');
      t.clock.advance(1000);
      await api.send(f, friendCid(me), 'f');
      t.clock.advance(1000);
      await api.send(owner, groupCid(pub1), 'g1');
      const items = expectOk<SyncData>(await api.raw.sync(me)).conversations.items;
      expect(ids(items)).toEqual([groupCid(pub1), friendCid(f), groupCid(pub2)]);
      const s = expectOk<SyncData>(await api.raw.sync(me));
      expect(s.unread).toEqual({ total: 3, total_unmuted: 3 });
      await api.setting(me, 'mute', groupCid(pub2), true);
      expect(expectOk<SyncData>(await api.raw.sync(me)).unread).toEqual({ total: 3, total_unmuted: 2 });
      const badge = expectOk<UnreadData>(await api.raw.unread(me));
      expect(badge).toMatchObject({ total: 3, total_unmuted: 2, has_more: false });
      expect([...badge.conversations].sort((p, q) => p.conversation_id.localeCompare(q.conversation_id))).toEqual(
        [
          { conversation_id: groupCid(pub1), unread: 1, muted: false },
          { conversation_id: friendCid(f), unread: 1, muted: false },
          { conversation_id: groupCid(pub2), unread: 1, muted: true },
        ].sort((p, q) => p.conversation_id.localeCompare(q.conversation_id)),
      );
    });

    it('last_message follows a recall or delete of the latest message (no stale text)', async () => {
      const me = await api.user();
      const f = await api.user();
      await api.befriend(me, f);
      await api.send(f, friendCid(me), 'first');
      const second = await api.send(f, friendCid(me), 'secret second');
      await api.recall(f, friendCid(me), second.message.mid);
      const item = expectOk<SyncData>(await api.raw.sync(me)).conversations.items[0];
      expect(item.last_seq).toBe('2');
      expect(item.unread).toBe(1);
      expect(JSON.stringify(item)).not.toContain('secret second');
      if (item.last_message && item.last_message.mid === second.message.mid)
        expect(item.last_message).toMatchObject({ status: 'recalled', content: null });
      const third = await api.send(f, friendCid(me), 'secret third');
      await api.deleteMessage(f, friendCid(me), third.message.mid);
      const item2 = expectOk<SyncData>(await api.raw.sync(me)).conversations.items[0];
      expect(JSON.stringify(item2)).not.toContain('secret third');
      expect(item2.unread).toBe(1);
      const peerItem = expectOk<SyncData>(await api.raw.sync(f)).conversations.items[0];
      expect(JSON.stringify(peerItem)).not.toContain('secret');
    });

    it('the conversation in a pin/mute/hide reply is the same item sync lists', async () => {
      const me = await api.user();
      const f = await api.user();
      await api.befriend(me, f);
      await api.send(f, friendCid(me), 'hi');
      const pinned = await api.setting(me, 'pin', friendCid(f), true);
      const listed = expectOk<SyncData>(await api.raw.sync(me)).conversations.items[0];
      expect(pinned.conversation).toEqual(listed);
      const muted = await api.setting(me, 'mute', friendCid(f), true);
      expect(muted.conversation).toEqual({ ...listed, muted: true });
    });

    it('an event_id of sync-visible changes refers to the right recipients (group message, all members)', async () => {
      const owner = await api.user();
      const x = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [x], pub);
      const s = await api.send(x, groupCid(pub), 'hey');
      await expectDelivered(t, s.event_id, [owner, x]);
      const pin = await api.setting(owner, 'pin', groupCid(pub), true);
      await expectDelivered(t, pin.event_id, [owner], [x]);
    });
  });
});
