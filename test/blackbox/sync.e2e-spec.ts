// Black-box tests of POST /app/sdk/sync, the conversation settings (pin, mute, hide) and
// GET /app/sdk/unread, written from the service specification (2.1, 2.2, 4, 4.6, 4.7, 6, 7, 8)
// and the documented API contract. Friendships and groups are created with the Seed helper;
// everything under test goes through HTTP; SQL only reads the outbox.
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { isDeliveredTo } from '../helpers/outbox';
import { Seed } from '../helpers/seed';
import { IssuedUser, TestApp, bearer, issueUser, randomGroupId, startTestApp } from '../helpers/test-app';

type Body = Record<string, unknown>;

interface Msg {
  mid: string;
  conversation_id: string;
  conversation_seq: string;
  sender_id: string;
  status: string;
  content: Body | null;
}

interface Item {
  conversation_id: string;
  type: string;
  title: string;
  avatar: string;
  peer_user_id: string | null;
  group_id: string | null;
  last_message: Msg | null;
  last_seq: string;
  read_seq: string;
  unread: number;
  pinned: boolean;
  muted: boolean;
  hidden: boolean;
  updated_at: number;
  deletion_revision: number | string;
  last_activity_at: number;
  is_member: boolean;
}

interface SyncData {
  conversations: { items: Item[]; next_cursor: string | null; has_more: boolean };
  unread: { total: number; total_unmuted: number };
  capabilities: Record<string, boolean>;
  media_limits: Body;
  server_time: number;
}

interface UnreadData {
  total: number;
  total_unmuted: number;
  conversations: { conversation_id: string; unread: number; muted: boolean }[];
  has_more: boolean;
}

const friendCid = (peer: IssuedUser): string => `friend_${Buffer.from(peer.userId).toString('base64url')}`;
const groupCid = (publicId: string): string => `group_${publicId}`;
const cmid = (): string => `c-${randomBytes(8).toString('hex')}`;

function ok<T = Body>(response: Response): T {
  expect({ status: response.status, code: response.body?.code, body: response.body }).toMatchObject({ status: 200, code: 0 });
  expect(response.body.msg).toBe('ok');
  return response.body.data as T;
}

function fail(response: Response, code: number): void {
  const body = response.body ?? {};
  const data = body.data === null ? null : `non-null data: ${JSON.stringify(body.data).slice(0, 300)}`;
  expect({ status: response.status, code: body.code, msg: body.msg, data }).toEqual({ status: 200, code, msg: expect.any(String), data: null });
}

/** Flips one character in the middle of a cursor. */
function tamper(cursor: string): string {
  const i = Math.floor(cursor.length / 2);
  const c = cursor[i] === 'A' ? 'B' : 'A';
  return cursor.slice(0, i) + c + cursor.slice(i + 1);
}

describe('Sync, conversation settings and unread (black box)', () => {
  let t: TestApp;
  let seed: Seed;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    seed = new Seed(t);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const syncRaw = (u: IssuedUser, body: Body = {}) => t.http.post('/app/sdk/sync').set(...bearer(u.token)).send(body);
  const unreadRaw = (u: IssuedUser) => t.http.get('/app/sdk/unread').set(...bearer(u.token));
  const settingRaw = (u: IssuedUser, what: 'pin' | 'mute' | 'hide', body: Body) => t.http.post(`/app/sdk/conversations/${what}`).set(...bearer(u.token)).send(body);
  const sendRaw = (u: IssuedUser, body: Body) => t.http.post('/app/sdk/messages/send').set(...bearer(u.token)).send(body);
  const searchRaw = (u: IssuedUser, query: Record<string, string>) => t.http.get('/app/sdk/messages/search').set(...bearer(u.token)).query(query);

  async function send(u: IssuedUser, conversationId: string, text: string): Promise<{ message: Msg; event_id: string }> {
    return ok(await sendRaw(u, { conversation_id: conversationId, client_message_id: cmid(), type: 'text', content: { text } }));
  }
  async function setting(u: IssuedUser, what: 'pin' | 'mute' | 'hide', conversationId: string, value: boolean): Promise<{ conversation: Item; event_id: string }> {
    const field = { pin: 'pinned', mute: 'muted', hide: 'hidden' }[what];
    return ok(await settingRaw(u, what, { conversation_id: conversationId, [field]: value }));
  }
  async function syncPages(u: IssuedUser): Promise<{ pages: SyncData[]; items: Item[] }> {
    const pages = [ok<SyncData>(await syncRaw(u))];
    for (let guard = 0; pages[pages.length - 1].conversations.has_more && guard < 20; guard += 1) {
      pages.push(ok<SyncData>(await syncRaw(u, { cursor: pages[pages.length - 1].conversations.next_cursor })));
    }
    return { pages, items: pages.flatMap((p) => p.conversations.items) };
  }
  async function expectEvent(eventId: string | null | undefined, recipients: IssuedUser[], excluded: IssuedUser[] = []): Promise<void> {
    expect(typeof eventId).toBe('string');
    const rows: { id: string | number }[] = await db.query('SELECT id FROM outbox_events WHERE event_id = ?', [eventId]);
    expect({ eventId, rows: rows.length }).toEqual({ eventId, rows: 1 });
    for (const r of recipients) expect({ recipient: r.id, delivered: await isDeliveredTo(t, rows[0].id, r.id) }).toEqual({ recipient: r.id, delivered: true });
    for (const e of excluded) expect({ excluded: e.id, delivered: await isDeliveredTo(t, rows[0].id, e.id) }).toEqual({ excluded: e.id, delivered: false });
  }
  const ids = (items: Item[]): string[] => items.map((i) => i.conversation_id);

  /** A user with `count` friends; friend i sends one message, one second apart (friend 0 oldest). */
  async function hub(count: number, spacingMs = 1000): Promise<{ me: IssuedUser; friends: IssuedUser[]; cids: string[] }> {
    const me = await issueUser(t);
    const friends: IssuedUser[] = [];
    for (let i = 0; i < count; i += 1) {
      const f = await issueUser(t);
      await seed.friends(me.id, f.id);
      friends.push(f);
    }
    for (const f of friends) {
      t.clock.advance(spacingMs);
      await send(f, friendCid(me), `hello from ${f.userId}`);
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
      const { pages, items } = await syncPages(me);
      expect(pages).toHaveLength(2);
      expect(pages[0].conversations.items).toHaveLength(50);
      expect(pages[0].conversations.has_more).toBe(true);
      expect(typeof pages[0].conversations.next_cursor).toBe('string');
      expect(pages[1].conversations.items).toHaveLength(5);
      expect(pages[1].conversations.has_more).toBe(false);
      expect(pages[1].conversations.next_cursor).toBeNull();
      expect(ids(items)).toEqual([...cids].reverse());
      expect(new Set(ids(items)).size).toBe(55);
      for (let i = 1; i < items.length; i += 1) expect(items[i - 1].last_activity_at).toBeGreaterThanOrEqual(items[i].last_activity_at);
      expect(pages[0].unread).toEqual({ total: 55, total_unmuted: 55 });
    });

    it('describes each one-to-one item completely', async () => {
      const { items } = await syncPages(me);
      const item = items.find((i) => i.conversation_id === cids[0])!;
      expect(item).toEqual({
        conversation_id: cids[0],
        type: expect.any(String),
        title: expect.any(String),
        avatar: expect.any(String),
        peer_user_id: friends[0].userId,
        group_id: null,
        last_message: expect.objectContaining({ conversation_id: cids[0], conversation_seq: '1', sender_id: friends[0].userId, status: 'normal' }),
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
      const peer = ok<SyncData>(await syncRaw(friends[0])).conversations.items;
      expect(peer).toHaveLength(1);
      expect(peer[0]).toMatchObject({ conversation_id: friendCid(me), peer_user_id: me.userId, unread: 0, last_seq: '1' });
    });

    it('the /unread badge agrees with sync', async () => {
      const badge = ok<UnreadData>(await unreadRaw(me));
      expect({ total: badge.total, total_unmuted: badge.total_unmuted }).toEqual({ total: 55, total_unmuted: 55 });
      for (const entry of badge.conversations) expect(entry).toEqual({ conversation_id: expect.any(String), unread: 1, muted: false });
      expect(new Set(badge.conversations.map((c) => c.conversation_id)).size).toBe(badge.conversations.length);
      if (!badge.has_more) expect(badge.conversations).toHaveLength(55);
    });

    it('a conversation that moves to the top between page reads is not duplicated on the next page', async () => {
      const first = ok<SyncData>(await syncRaw(me));
      const firstIds = ids(first.conversations.items);
      t.clock.advance(1000);
      // the oldest conversation (on page 2) gets a message and jumps to the top
      await send(friends[0], friendCid(me), 'bump');
      const second = ok<SyncData>(await syncRaw(me, { cursor: first.conversations.next_cursor }));
      const dupes = ids(second.conversations.items).filter((id) => firstIds.includes(id));
      expect(dupes).toEqual([]);
      const fresh = await syncPages(me);
      expect(ids(fresh.items)[0]).toBe(cids[0]);
      expect(new Set(ids(fresh.items)).size).toBe(55);
      expect(fresh.items[0].unread).toBe(2);
    });

    it('puts pinned conversations first (newest activity first among them) on page one', async () => {
      const p1 = await setting(me, 'pin', cids[3], true);
      expect(p1.conversation).toMatchObject({ conversation_id: cids[3], pinned: true, peer_user_id: friends[3].userId });
      await expectEvent(p1.event_id, [me], [friends[3]]);
      await setting(me, 'pin', cids[1], true);
      const { pages, items } = await syncPages(me);
      expect(ids(items).slice(0, 2)).toEqual([cids[3], cids[1]]);
      expect(items[0].pinned && items[1].pinned).toBe(true);
      expect(items.slice(2).every((i) => !i.pinned)).toBe(true);
      expect(pages[0].conversations.items).toHaveLength(50);
      expect(new Set(ids(items)).size).toBe(55);
      const rest = items.slice(2);
      for (let i = 1; i < rest.length; i += 1) expect(rest[i - 1].last_activity_at).toBeGreaterThanOrEqual(rest[i].last_activity_at);
      // pinning is private: the peer's item is not pinned
      const peer = ok<SyncData>(await syncRaw(friends[3])).conversations.items[0];
      expect(peer.pinned).toBe(false);
      // unpin restores the activity order
      const u1 = await setting(me, 'pin', cids[3], false);
      expect(u1.conversation.pinned).toBe(false);
      await setting(me, 'pin', cids[1], false);
      const after = await syncPages(me);
      expect(after.items.every((i) => !i.pinned)).toBe(true);
      for (let i = 1; i < after.items.length; i += 1) expect(after.items[i - 1].last_activity_at).toBeGreaterThanOrEqual(after.items[i].last_activity_at);
    });

    it('hides a conversation until its next message, and unhides on request', async () => {
      const h = await setting(me, 'hide', cids[30], true);
      expect(h.conversation).toMatchObject({ conversation_id: cids[30], hidden: true });
      await expectEvent(h.event_id, [me], [friends[30]]);
      let listed = await syncPages(me);
      expect(ids(listed.items)).not.toContain(cids[30]);
      expect(listed.items).toHaveLength(54);
      expect(new Set(ids(listed.items)).size).toBe(54);
      // explicit unhide
      expect((await setting(me, 'hide', cids[30], false)).conversation.hidden).toBe(false);
      listed = await syncPages(me);
      expect(ids(listed.items)).toContain(cids[30]);
      // hide again; the next message brings it back on top, not hidden
      await setting(me, 'hide', cids[31], true);
      expect(ids((await syncPages(me)).items)).not.toContain(cids[31]);
      t.clock.advance(1000);
      await send(friends[31], friendCid(me), 'are you there?');
      listed = await syncPages(me);
      expect(ids(listed.items)[0]).toBe(cids[31]);
      expect(listed.items[0]).toMatchObject({ hidden: false, unread: 2 });
      expect(listed.items).toHaveLength(55);
    });

    it('a message sent by the hider himself also brings the conversation back', async () => {
      await setting(me, 'hide', cids[32], true);
      expect(ids((await syncPages(me)).items)).not.toContain(cids[32]);
      t.clock.advance(1000);
      await send(me, cids[32], 'I am back');
      const listed = await syncPages(me);
      expect(ids(listed.items)[0]).toBe(cids[32]);
      expect(listed.items[0].hidden).toBe(false);
    });

    it('excludes muted unread from total_unmuted in sync and /unread', async () => {
      const before = ok<SyncData>(await syncRaw(me)).unread;
      const m = await setting(me, 'mute', cids[40], true);
      expect(m.conversation).toMatchObject({ conversation_id: cids[40], muted: true, unread: 1 });
      await expectEvent(m.event_id, [me], [friends[40]]);
      const s = ok<SyncData>(await syncRaw(me));
      expect(s.unread).toEqual({ total: before.total, total_unmuted: before.total - 1 });
      const item = (await syncPages(me)).items.find((i) => i.conversation_id === cids[40])!;
      expect(item).toMatchObject({ muted: true, unread: 1 });
      const badge = ok<UnreadData>(await unreadRaw(me));
      expect({ total: badge.total, total_unmuted: badge.total_unmuted }).toEqual({ total: before.total, total_unmuted: before.total - 1 });
      const entry = badge.conversations.find((c) => c.conversation_id === cids[40]);
      if (entry || !badge.has_more) expect(entry).toEqual({ conversation_id: cids[40], unread: 1, muted: true });
      // a new message in a muted conversation counts in total only
      await send(friends[40], friendCid(me), 'muted news');
      const s2 = ok<SyncData>(await syncRaw(me));
      expect(s2.unread).toEqual({ total: before.total + 1, total_unmuted: before.total - 1 });
      const badge2 = ok<UnreadData>(await unreadRaw(me));
      expect({ total: badge2.total, total_unmuted: badge2.total_unmuted }).toEqual({ total: before.total + 1, total_unmuted: before.total - 1 });
      // muting is private: the peer's own aggregate is untouched
      const peer = ok<SyncData>(await syncRaw(friends[40]));
      expect(peer.conversations.items[0].muted).toBe(false);
      // unmute
      await setting(me, 'mute', cids[40], false);
      const s3 = ok<SyncData>(await syncRaw(me));
      expect(s3.unread).toEqual({ total: before.total + 1, total_unmuted: before.total + 1 });
    });

    it('refuses a tampered or garbage cursor with 1004', async () => {
      const first = ok<SyncData>(await syncRaw(me));
      const cursor = first.conversations.next_cursor!;
      fail(await syncRaw(me, { cursor: tamper(cursor) }), 1004);
      fail(await syncRaw(me, { cursor: `${cursor}x` }), 1004);
      fail(await syncRaw(me, { cursor: cursor.slice(0, -1) }), 1004);
      fail(await syncRaw(me, { cursor: 'garbage' }), 1004);
      fail(await syncRaw(me, { cursor: Buffer.from(JSON.stringify({ offset: 50 })).toString('base64url') }), 1004);
      fail(await syncRaw(me, { cursor: 50 }), 1004);
      fail(await syncRaw(me, { cursor: { offset: 50 } }), 1004);
      // the untouched cursor still works
      expect(ok<SyncData>(await syncRaw(me, { cursor })).conversations.items.length).toBeGreaterThan(0);
    });

    it('refuses a cursor reused by another account with 1004', async () => {
      const other = await hub(52, 10);
      const mine = ok<SyncData>(await syncRaw(me)).conversations.next_cursor!;
      fail(await syncRaw(other.me, { cursor: mine }), 1004);
      fail(await syncRaw(friends[0], { cursor: mine }), 1004);
      const theirs = ok<SyncData>(await syncRaw(other.me)).conversations.next_cursor!;
      expect(typeof theirs).toBe('string');
      fail(await syncRaw(me, { cursor: theirs }), 1004);
    });

    it('refuses a sync cursor on search and a search cursor on sync (1004)', async () => {
      const talk = friendCid(friends[50]);
      for (let i = 0; i < 45; i += 1) await send(me, talk, `needle ${i}`);
      const search = ok<{ next_cursor: string | null; has_more: boolean }>(await searchRaw(me, { conversation_id: talk, keyword: 'needle' }));
      expect(search.has_more).toBe(true);
      fail(await syncRaw(me, { cursor: search.next_cursor }), 1004);
      const syncCursor = ok<SyncData>(await syncRaw(me)).conversations.next_cursor!;
      fail(await searchRaw(me, { conversation_id: talk, keyword: 'needle', cursor: syncCursor }), 1004);
    });

    it('refuses page/offset/limit with 1004', async () => {
      for (const extra of [{ page: 2 }, { offset: 50 }, { limit: 10 }, { page: '2' }]) {
        fail(await syncRaw(me, extra), 1004);
      }
      const cursor = ok<SyncData>(await syncRaw(me)).conversations.next_cursor!;
      fail(await syncRaw(me, { cursor, limit: 10 }), 1004);
    });

    it('reports capabilities, media limits and the server time', async () => {
      const before = t.clock.now();
      const s = ok<SyncData>(await syncRaw(me));
      expect(s.capabilities).toEqual({ friends: true, groups: true, calls: expect.any(Boolean), search: true, media: expect.any(Boolean) });
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
      const { pages, items } = await syncPages(me);
      expect(pages.map((p) => p.conversations.items.length)).toEqual([50, 5]);
      expect(new Set(ids(items)).size).toBe(55);
      expect([...ids(items)].sort()).toEqual([...cids].sort());
      t.clock.advance(1);
    });

    it('pages correctly when more than 50 conversations are pinned', async () => {
      const { me, cids } = await hub(53, 1);
      for (const cid of cids) await setting(me, 'pin', cid, true);
      const { pages, items } = await syncPages(me);
      expect(pages.map((p) => p.conversations.items.length)).toEqual([50, 3]);
      expect(new Set(ids(items)).size).toBe(53);
      expect(items.every((i) => i.pinned)).toBe(true);
    });

    it('hidden conversations do not take places on a page', async () => {
      const { me, cids } = await hub(53, 1);
      for (const cid of cids.slice(0, 3)) await setting(me, 'hide', cid, true);
      const { pages, items } = await syncPages(me);
      expect(pages[0].conversations.items).toHaveLength(50);
      expect(pages[0].conversations.has_more).toBe(false);
      expect(items).toHaveLength(50);
    });
  });

  // =====================================================================================
  describe('settings and unread', () => {
    it('refuses non-boolean values and missing fields with 1004', async () => {
      const me = await issueUser(t);
      const f = await issueUser(t);
      await seed.friends(me.id, f.id);
      const cid = friendCid(f);
      for (const [what, field] of [
        ['pin', 'pinned'],
        ['mute', 'muted'],
        ['hide', 'hidden'],
      ] as const) {
        for (const value of ['true', 1, 0, 'false', null]) fail(await settingRaw(me, what, { conversation_id: cid, [field]: value }), 1004);
        fail(await settingRaw(me, what, { conversation_id: cid }), 1004);
        fail(await settingRaw(me, what, { [field]: true }), 1004);
        fail(await settingRaw(me, what, { conversation_id: 'bogus', [field]: true }), 1004);
      }
    });

    it('refuses settings on an inaccessible conversation with 1201', async () => {
      const me = await issueUser(t);
      const owner = await issueUser(t);
      const stranger = await issueUser(t);
      const pub = randomGroupId();
      await seed.group(pub, owner.id, []);
      fail(await settingRaw(me, 'pin', { conversation_id: groupCid(pub), pinned: true }), 1201);
      fail(await settingRaw(me, 'mute', { conversation_id: groupCid(pub), muted: true }), 1201);
      fail(await settingRaw(me, 'hide', { conversation_id: groupCid(pub), hidden: true }), 1201);
      const r = await settingRaw(me, 'pin', { conversation_id: friendCid(stranger), pinned: true });
      expect([1201, 1203]).toContain(r.body.code);
    });

    it('setting the same value again succeeds and leaves state unchanged', async () => {
      const me = await issueUser(t);
      const f = await issueUser(t);
      await seed.friends(me.id, f.id);
      const a = await setting(me, 'pin', friendCid(f), true);
      const b = await setting(me, 'pin', friendCid(f), true);
      expect(a.conversation.pinned && b.conversation.pinned).toBe(true);
      if (b.event_id !== null) await expectEvent(b.event_id, [me]);
    });

    it('group items carry group fields; a removed member sees is_member false and stops counting new messages', async () => {
      const owner = await issueUser(t);
      const x = await issueUser(t);
      const y = await issueUser(t);
      const pub = randomGroupId();
      const g = await seed.group(pub, owner.id, [x.id, y.id]);
      const cid = groupCid(pub);
      await send(owner, cid, 'one');
      const item = ok<SyncData>(await syncRaw(x)).conversations.items.find((i) => i.conversation_id === cid)!;
      expect(item).toMatchObject({ conversation_id: cid, group_id: pub, peer_user_id: null, is_member: true, unread: 1, last_seq: '1' });
      expect(item.title).toBe(`Group ${pub}`);
      await seed.leaveGroup(g.groupId, g.conversationId, x.id, 'removed');
      t.clock.advance(1000);
      await send(owner, cid, 'two');
      await send(y, cid, 'three');
      const s = ok<SyncData>(await syncRaw(x));
      const after = s.conversations.items.find((i) => i.conversation_id === cid);
      if (after) {
        expect(after).toMatchObject({ is_member: false, last_seq: '1', unread: 1 });
        expect(after.last_message?.conversation_seq).toBe('1');
      }
      expect(s.unread.total).toBe(after ? 1 : 0);
      const badge = ok<UnreadData>(await unreadRaw(x));
      expect(badge.total).toBe(s.unread.total);
      const yItem = ok<SyncData>(await syncRaw(y)).conversations.items.find((i) => i.conversation_id === cid)!;
      expect(yItem).toMatchObject({ is_member: true, last_seq: '3', unread: 2 });
    });

    it('orders a mix of groups and one-to-one conversations by last activity', async () => {
      const me = await issueUser(t);
      const f = await issueUser(t);
      const owner = await issueUser(t);
      await seed.friends(me.id, f.id);
      const pub1 = randomGroupId();
      const pub2 = randomGroupId();
      await seed.group(pub1, owner.id, [me.id]);
      await seed.group(pub2, owner.id, [me.id]);
      t.clock.advance(1000);
      await send(owner, groupCid(pub2), 'g2');
      t.clock.advance(1000);
      await send(f, friendCid(me), 'f');
      t.clock.advance(1000);
      await send(owner, groupCid(pub1), 'g1');
      const items = ok<SyncData>(await syncRaw(me)).conversations.items;
      expect(ids(items)).toEqual([groupCid(pub1), friendCid(f), groupCid(pub2)]);
      const s = ok<SyncData>(await syncRaw(me));
      expect(s.unread).toEqual({ total: 3, total_unmuted: 3 });
      await setting(me, 'mute', groupCid(pub2), true);
      expect(ok<SyncData>(await syncRaw(me)).unread).toEqual({ total: 3, total_unmuted: 2 });
      const badge = ok<UnreadData>(await unreadRaw(me));
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
      const me = await issueUser(t);
      const f = await issueUser(t);
      await seed.friends(me.id, f.id);
      await send(f, friendCid(me), 'first');
      const second = await send(f, friendCid(me), 'secret second');
      ok(await t.http.post('/app/sdk/messages/recall').set(...bearer(f.token)).send({ conversation_id: friendCid(me), mid: second.message.mid }));
      const item = ok<SyncData>(await syncRaw(me)).conversations.items[0];
      expect(item.last_seq).toBe('2');
      expect(item.unread).toBe(1);
      expect(JSON.stringify(item)).not.toContain('secret second');
      if (item.last_message && item.last_message.mid === second.message.mid) expect(item.last_message).toMatchObject({ status: 'recalled', content: null });
      const third = await send(f, friendCid(me), 'secret third');
      ok(await t.http.post('/app/sdk/messages/delete').set(...bearer(f.token)).send({ conversation_id: friendCid(me), mid: third.message.mid }));
      const item2 = ok<SyncData>(await syncRaw(me)).conversations.items[0];
      expect(JSON.stringify(item2)).not.toContain('secret third');
      expect(item2.unread).toBe(1);
      const peerItem = ok<SyncData>(await syncRaw(f)).conversations.items[0];
      expect(JSON.stringify(peerItem)).not.toContain('secret');
    });

    it('the conversation in a pin/mute/hide reply is the same item sync lists', async () => {
      const me = await issueUser(t);
      const f = await issueUser(t);
      await seed.friends(me.id, f.id);
      await send(f, friendCid(me), 'hi');
      const pinned = await setting(me, 'pin', friendCid(f), true);
      const listed = ok<SyncData>(await syncRaw(me)).conversations.items[0];
      expect(pinned.conversation).toEqual(listed);
      const muted = await setting(me, 'mute', friendCid(f), true);
      expect(muted.conversation).toEqual({ ...listed, muted: true });
    });

    it('an event_id of sync-visible changes refers to the right recipients (group message, all members)', async () => {
      const owner = await issueUser(t);
      const x = await issueUser(t);
      const pub = randomGroupId();
      await seed.group(pub, owner.id, [x.id]);
      const s = await send(x, groupCid(pub), 'hey');
      await expectEvent(s.event_id, [owner, x]);
      const pin = await setting(owner, 'pin', groupCid(pub), true);
      await expectEvent(pin.event_id, [owner], [x]);
    });
  });
});
