// Black-box tests of the messaging core (send, recall, delete, read, message windows, search,
// unread and the outbox), written from the service specification (2.1, 2.2, 4, 4.6, 4.7, 6, 7, 8)
// and the documented API contract. Everything under test goes through HTTP; the Seed helper is
// used only to create friendships and groups (their endpoints are built elsewhere), and SQL only
// to set up block/mute/admin state and to read the outbox.
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { isDeliveredTo } from '../helpers/outbox';
import { Seed } from '../helpers/seed';
import { IssuedUser, TestApp, bearer, issueUser, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';

type Body = Record<string, unknown>;

interface Msg {
  mid: string;
  conversation_id: string;
  conversation_seq: string;
  sender_id: string;
  client_message_id: string;
  type: string;
  content: Body | null;
  status: string;
  created_at: number;
  updated_at: number;
}

interface Window {
  conversation_id: string;
  outcome: string;
  messages: Msg[];
  has_more_before: boolean;
  has_more_after: boolean;
  last_seq: string;
  updated_at: number;
  deletion_revision: number | string;
  read_seq: string;
  unread: number;
}

interface SyncItem {
  conversation_id: string;
  unread: number;
  muted: boolean;
  read_seq: string;
  last_seq: string;
  updated_at: number;
  deletion_revision: number | string;
  is_member: boolean;
  hidden: boolean;
  last_message: Msg | null;
}

interface UnreadEntry {
  conversation_id: string;
  unread: number;
  muted: boolean;
}

const friendCid = (peer: IssuedUser): string => `friend_${Buffer.from(peer.userId).toString('base64url')}`;
const groupCid = (publicId: string): string => `group_${publicId}`;
const cmid = (): string => `c-${randomBytes(8).toString('hex')}`;
const seqs = (messages: Msg[]): number[] => messages.map((m) => Number(m.conversation_seq));
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A success: HTTP 200, code 0, msg ok; returns data. The whole body shows on mismatch. */
function ok<T = Body>(response: Response): T {
  expect({ status: response.status, code: response.body?.code, body: response.body }).toMatchObject({ status: 200, code: 0 });
  expect(response.body.msg).toBe('ok');
  return response.body.data as T;
}

/** A business failure: HTTP 200, the code, data null. */
function fail(response: Response, code: number): void {
  const body = response.body ?? {};
  const data = body.data === null ? null : `non-null data: ${JSON.stringify(body.data).slice(0, 300)}`;
  expect({ status: response.status, code: body.code, msg: body.msg, data }).toEqual({ status: 200, code, msg: expect.any(String), data: null });
}

describe('Messaging core (black box)', () => {
  let t: TestApp;
  let seed: Seed;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    seed = new Seed(t);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  // ---------- HTTP wrappers ----------
  const sendRaw = (u: IssuedUser, body: Body) => t.http.post('/app/sdk/messages/send').set(...bearer(u.token)).send(body);
  const recallRaw = (u: IssuedUser, conversationId: string, mid: string) =>
    t.http.post('/app/sdk/messages/recall').set(...bearer(u.token)).send({ conversation_id: conversationId, mid });
  const deleteRaw = (u: IssuedUser, conversationId: string, mid: string) =>
    t.http.post('/app/sdk/messages/delete').set(...bearer(u.token)).send({ conversation_id: conversationId, mid });
  const readRaw = (u: IssuedUser, conversationId: string, readSeq: unknown) =>
    t.http.post('/app/sdk/messages/read').set(...bearer(u.token)).send({ conversation_id: conversationId, read_seq: readSeq });
  const messagesRaw = (u: IssuedUser, query: Record<string, string>) => t.http.get('/app/sdk/messages').set(...bearer(u.token)).query(query);
  const searchRaw = (u: IssuedUser, query: Record<string, string>) => t.http.get('/app/sdk/messages/search').set(...bearer(u.token)).query(query);
  const syncRaw = (u: IssuedUser, body: Body = {}) => t.http.post('/app/sdk/sync').set(...bearer(u.token)).send(body);
  const unreadRaw = (u: IssuedUser) => t.http.get('/app/sdk/unread').set(...bearer(u.token));

  async function send(u: IssuedUser, conversationId: string, text: string, clientMessageId = cmid()): Promise<{ message: Msg; event_id: string }> {
    return ok(await sendRaw(u, { conversation_id: conversationId, client_message_id: clientMessageId, type: 'text', content: { text } }));
  }
  async function sendMany(u: IssuedUser, conversationId: string, count: number, prefix = 'msg'): Promise<Msg[]> {
    const out: Msg[] = [];
    for (let i = 1; i <= count; i += 1) out.push((await send(u, conversationId, `${prefix} ${i}`)).message);
    return out;
  }
  async function recall(u: IssuedUser, conversationId: string, mid: string): Promise<{ message: Msg; event_id: string | null }> {
    return ok(await recallRaw(u, conversationId, mid));
  }
  async function remove(u: IssuedUser, conversationId: string, mid: string): Promise<{ message: Msg; event_id: string | null }> {
    return ok(await deleteRaw(u, conversationId, mid));
  }
  async function read(u: IssuedUser, conversationId: string, readSeq: string): Promise<{ conversation_id: string; read_seq: string; unread: number; event_id: string | null }> {
    return ok(await readRaw(u, conversationId, readSeq));
  }
  async function windowOf(u: IssuedUser, conversationId: string, query: Record<string, string>): Promise<Window> {
    return ok<Window>(await messagesRaw(u, { conversation_id: conversationId, ...query }));
  }
  /** A calibration read with deliberately stale values: always a reset with the latest window. */
  async function latest(u: IssuedUser, conversationId: string): Promise<Window> {
    return windowOf(u, conversationId, { known_last_seq: '0', known_updated_at: '0', known_deletion_revision: '0' });
  }
  const trioOf = (w: Window): Record<string, string> => ({
    known_last_seq: String(w.last_seq),
    known_updated_at: String(w.updated_at),
    known_deletion_revision: String(w.deletion_revision),
  });

  async function syncAll(u: IssuedUser): Promise<{ items: SyncItem[]; unread: { total: number; total_unmuted: number } }> {
    const first = ok<{ conversations: { items: SyncItem[]; next_cursor: string | null; has_more: boolean }; unread: { total: number; total_unmuted: number } }>(await syncRaw(u));
    const items = [...first.conversations.items];
    let page = first.conversations;
    for (let guard = 0; page.has_more && guard < 20; guard += 1) {
      page = ok<typeof first>(await syncRaw(u, { cursor: page.next_cursor })).conversations;
      items.push(...page.items);
    }
    return { items, unread: first.unread };
  }

  /**
   * Checks a user's unread through sync (every item, aggregate) and through /unread.
   * `expected` lists every conversation with unread > 0 (others must be 0); `muted` lists muted ones.
   */
  async function expectUnread(u: IssuedUser, expected: Record<string, number>, muted: string[] = []): Promise<void> {
    const want = Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0));
    const total = Object.values(want).reduce((a, b) => a + b, 0);
    const totalUnmuted = Object.entries(want)
      .filter(([id]) => !muted.includes(id))
      .reduce((a, [, n]) => a + n, 0);
    const { items, unread } = await syncAll(u);
    const seen: Record<string, number> = {};
    for (const item of items) if (item.unread !== 0) seen[item.conversation_id] = item.unread;
    expect({ user: u.userId, via: 'sync items', unread: seen }).toEqual({ user: u.userId, via: 'sync items', unread: want });
    expect({ user: u.userId, via: 'sync aggregate', unread }).toEqual({ user: u.userId, via: 'sync aggregate', unread: { total, total_unmuted: totalUnmuted } });
    const badge = ok<{ total: number; total_unmuted: number; conversations: UnreadEntry[]; has_more: boolean }>(await unreadRaw(u));
    expect({ user: u.userId, via: '/unread totals', total: badge.total, total_unmuted: badge.total_unmuted }).toEqual({
      user: u.userId,
      via: '/unread totals',
      total,
      total_unmuted: totalUnmuted,
    });
    const listed: Record<string, number> = {};
    for (const entry of badge.conversations) if (entry.unread !== 0) listed[entry.conversation_id] = entry.unread;
    if (!badge.has_more) expect({ user: u.userId, via: '/unread conversations', unread: listed }).toEqual({ user: u.userId, via: '/unread conversations', unread: want });
  }

  /** The reply's event_id is stored in the outbox and delivered to (at least) these recipients, and never to the excluded ones. */
  async function expectEvent(eventId: string | null | undefined, recipients: IssuedUser[], excluded: IssuedUser[] = []): Promise<void> {
    expect(typeof eventId).toBe('string');
    const rows: { id: string | number }[] = await db.query('SELECT id FROM outbox_events WHERE event_id = ?', [eventId]);
    expect({ eventId, rows: rows.length }).toEqual({ eventId, rows: 1 });
    for (const r of recipients) expect({ recipient: r.id, delivered: await isDeliveredTo(t, rows[0].id, r.id) }).toEqual({ recipient: r.id, delivered: true });
    for (const e of excluded) expect({ excluded: e.id, delivered: await isDeliveredTo(t, rows[0].id, e.id) }).toEqual({ excluded: e.id, delivered: false });
  }

  /** How many outbox deliveries these users have (other test files may write events concurrently). */
  async function eventCount(users: IssuedUser[]): Promise<number> {
    const rows: { n: number | string }[] = await db.query(`SELECT COUNT(*) AS n FROM outbox_recipients WHERE user_id IN (${users.map(() => '?').join(', ')})`, users.map((u) => u.id));
    return Number(rows[0].n);
  }

  async function setRole(groupInternalId: string, u: IssuedUser, role: 'admin' | 'member' | 'owner'): Promise<void> {
    await db.query('UPDATE group_members SET role = ? WHERE group_id = ? AND user_id = ?', [role, groupInternalId, u.id]);
  }
  async function setMutedUntil(groupInternalId: string, u: IssuedUser, until: number): Promise<void> {
    await db.query('UPDATE group_members SET muted_until = ? WHERE group_id = ? AND user_id = ?', [until, groupInternalId, u.id]);
  }

  async function pair(): Promise<{ a: IssuedUser; b: IssuedUser }> {
    const a = await issueUser(t);
    const b = await issueUser(t);
    await seed.friends(a.id, b.id);
    return { a, b };
  }

  // =====================================================================================
  describe('one-to-one flow with three users (send, read, recall, delete; unread after every step)', () => {
    it('keeps sequences, tombstones, unread (sync and /unread) and the outbox consistent', async () => {
      const a = await issueUser(t);
      const b = await issueUser(t);
      const c = await issueUser(t);
      await seed.friends(a.id, b.id);
      await seed.friends(a.id, c.id);
      const aToB = friendCid(b);
      const bToA = friendCid(a);
      const aToC = friendCid(c);
      const cToA = friendCid(a);
      await expectUnread(a, {});
      await expectUnread(b, {});
      await expectUnread(c, {});

      // 1. A -> B
      const key1 = cmid();
      const before = t.clock.now();
      const s1 = await send(a, aToB, 'hello B', key1);
      expect(s1.message).toEqual({
        mid: expect.stringMatching(/^[1-9][0-9]*$/),
        conversation_id: aToB,
        conversation_seq: '1',
        sender_id: a.userId,
        client_message_id: key1,
        type: 'text',
        content: { text: 'hello B' },
        status: 'normal',
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
      });
      expect(Number.isInteger(s1.message.created_at)).toBe(true);
      expect(s1.message.created_at).toBeGreaterThanOrEqual(before);
      expect(s1.message.created_at).toBeLessThanOrEqual(t.clock.now());
      await expectEvent(s1.event_id, [a, b], [c]);
      await expectUnread(a, {});
      await expectUnread(b, { [bToA]: 1 });
      await expectUnread(c, {});

      // B sees the message under its own id of the conversation.
      const bWin = await latest(b, bToA);
      expect(bWin.conversation_id).toBe(bToA);
      expect(bWin.messages).toHaveLength(1);
      expect(bWin.messages[0]).toMatchObject({ mid: s1.message.mid, conversation_id: bToA, conversation_seq: '1', sender_id: a.userId, content: { text: 'hello B' } });
      expect(bWin).toMatchObject({ last_seq: '1', unread: 1 });

      // 2. A -> C
      const s2 = await send(a, aToC, 'hello C');
      expect(s2.message.conversation_seq).toBe('1');
      await expectEvent(s2.event_id, [a, c], [b]);
      await expectUnread(a, {});
      await expectUnread(b, { [bToA]: 1 });
      await expectUnread(c, { [cToA]: 1 });

      // 3. B -> A (seq 2 of A-B)
      const s3 = await send(b, bToA, 'hi A');
      expect(s3.message).toMatchObject({ conversation_id: bToA, conversation_seq: '2', sender_id: b.userId });
      await expectUnread(a, { [aToB]: 1 });
      await expectUnread(b, { [bToA]: 1 });
      await expectUnread(c, { [cToA]: 1 });

      // 4. A -> B (seq 3)
      const s4 = await send(a, aToB, 'again');
      expect(s4.message.conversation_seq).toBe('3');
      await expectUnread(a, { [aToB]: 1 });
      await expectUnread(b, { [bToA]: 2 });
      await expectUnread(c, { [cToA]: 1 });

      // 5. B reads everything
      const r5 = await read(b, bToA, '3');
      expect(r5).toMatchObject({ conversation_id: bToA, read_seq: '3', unread: 0 });
      await expectEvent(r5.event_id, [b]);
      await expectUnread(a, { [aToB]: 1 });
      await expectUnread(b, {});
      await expectUnread(c, { [cToA]: 1 });

      // 6. A lower read_seq is a no-op answering the current one
      const r6 = await read(b, bToA, '1');
      expect(r6).toMatchObject({ conversation_id: bToA, read_seq: '3', unread: 0 });
      await expectUnread(b, {});

      // 7. never past last_seq
      fail(await readRaw(b, bToA, '4'), 1004);
      await expectUnread(b, {});

      // 8. A -> B twice (seq 4, 5)
      const s8a = await send(a, aToB, 'four');
      const s8b = await send(a, aToB, 'five');
      expect([s8a.message.conversation_seq, s8b.message.conversation_seq]).toEqual(['4', '5']);
      await expectUnread(a, { [aToB]: 1 });
      await expectUnread(b, { [bToA]: 2 });
      await expectUnread(c, { [cToA]: 1 });

      // 9. A recalls seq 4 (within the window)
      const w9 = await latest(b, bToA);
      const rc = await recall(a, aToB, s8a.message.mid);
      expect(rc.message).toMatchObject({ mid: s8a.message.mid, conversation_id: aToB, conversation_seq: '4', status: 'recalled', content: null });
      await expectEvent(rc.event_id, [a, b], [c]);
      const w9b = await latest(b, bToA);
      expect(w9b.updated_at).toBeGreaterThan(w9.updated_at);
      expect(String(w9b.deletion_revision)).toBe(String(w9.deletion_revision));
      expect(w9b.last_seq).toBe('5');
      expect(w9b.messages.find((m) => m.mid === s8a.message.mid)).toMatchObject({ conversation_seq: '4', status: 'recalled', content: null, conversation_id: bToA });
      await expectUnread(a, { [aToB]: 1 });
      await expectUnread(b, { [bToA]: 1 });
      await expectUnread(c, { [cToA]: 1 });

      // 10. repeating the recall succeeds with event_id null
      const rc2 = await recall(a, aToB, s8a.message.mid);
      expect(rc2.event_id).toBeNull();
      expect(rc2.message).toMatchObject({ mid: s8a.message.mid, status: 'recalled', content: null });
      await expectUnread(b, { [bToA]: 1 });

      // 11. B may neither recall nor delete A's message in a one-to-one conversation
      fail(await recallRaw(b, bToA, s8b.message.mid), 1208);
      fail(await deleteRaw(b, bToA, s8b.message.mid), 1208);
      await expectUnread(b, { [bToA]: 1 });

      // 12. A deletes seq 5: a tombstone, deletion_revision and updated_at rise, B's unread drops
      const w12 = await latest(a, aToB);
      const del = await remove(a, aToB, s8b.message.mid);
      expect(del.message).toMatchObject({ mid: s8b.message.mid, conversation_seq: '5', status: 'deleted', content: null });
      await expectEvent(del.event_id, [a, b], [c]);
      const w12b = await latest(a, aToB);
      expect(w12b.updated_at).toBeGreaterThan(w12.updated_at);
      expect(Number(w12b.deletion_revision)).toBeGreaterThan(Number(w12.deletion_revision));
      expect(seqs(w12b.messages)).toEqual([1, 2, 3, 4, 5]);
      expect(w12b.messages[4]).toMatchObject({ mid: s8b.message.mid, status: 'deleted', content: null });
      await expectUnread(a, { [aToB]: 1 });
      await expectUnread(b, {});
      await expectUnread(c, { [cToA]: 1 });

      // 13. A reads B's message; C reads A's
      await read(a, aToB, '5');
      await read(c, cToA, '1');
      await expectUnread(a, {});
      await expectUnread(b, {});
      await expectUnread(c, {});

      // 14. After the recall window A can no longer recall, but may still delete.
      const late = await send(a, aToC, 'old soon');
      await expectUnread(c, { [cToA]: 1 });
      t.clock.advance(121_000);
      fail(await recallRaw(a, aToC, late.message.mid), 1208);
      await expectUnread(c, { [cToA]: 1 });
      const lateDel = await remove(a, aToC, late.message.mid);
      expect(lateDel.message).toMatchObject({ status: 'deleted', content: null, conversation_seq: '2' });
      await expectUnread(a, {});
      await expectUnread(b, {});
      await expectUnread(c, {});

      // 15. B reads up to seq 5 (its tombstone end) — still allowed, no change
      const r15 = await read(b, bToA, '5');
      expect(r15).toMatchObject({ read_seq: '5', unread: 0 });
      await expectUnread(b, {});
    });

    it('lets the sender recall just inside the window (119 s) but not just after it (121 s)', async () => {
      const { a, b } = await pair();
      const m1 = await send(a, friendCid(b), 'one');
      const m2 = await send(a, friendCid(b), 'two');
      t.clock.advance(119_000);
      expect((await recall(a, friendCid(b), m1.message.mid)).message.status).toBe('recalled');
      t.clock.advance(2_000);
      fail(await recallRaw(a, friendCid(b), m2.message.mid), 1208);
      await expectUnread(b, { [friendCid(a)]: 1 });
    });

    it('refuses recall/delete of an unknown mid or a mid of another conversation with 1207', async () => {
      const { a, b } = await pair();
      const c = await issueUser(t);
      await seed.friends(a.id, c.id);
      const inAb = await send(a, friendCid(b), 'in ab');
      const inAc = await send(a, friendCid(c), 'in ac');
      fail(await recallRaw(a, friendCid(b), inAc.message.mid), 1207);
      fail(await deleteRaw(a, friendCid(b), inAc.message.mid), 1207);
      fail(await recallRaw(a, friendCid(b), '999999999999'), 1207);
      fail(await deleteRaw(a, friendCid(b), '999999999999'), 1207);
      // Neither message changed.
      expect((await latest(a, friendCid(b))).messages[0]).toMatchObject({ mid: inAb.message.mid, status: 'normal' });
      expect((await latest(a, friendCid(c))).messages[0]).toMatchObject({ mid: inAc.message.mid, status: 'normal' });
      await expectUnread(b, { [friendCid(a)]: 1 });
      await expectUnread(c, { [friendCid(a)]: 1 });
    });

    it('refuses a malformed mid with 1004', async () => {
      const { a, b } = await pair();
      for (const mid of ['abc', '-1', '1.5', '']) {
        fail(await recallRaw(a, friendCid(b), mid), 1004);
        fail(await deleteRaw(a, friendCid(b), mid), 1004);
      }
    });

    it('deleting an already recalled message keeps the tombstone and raises deletion_revision', async () => {
      const { a, b } = await pair();
      const m = await send(a, friendCid(b), 'x');
      await recall(a, friendCid(b), m.message.mid);
      const w0 = await latest(b, friendCid(a));
      const d = await remove(a, friendCid(b), m.message.mid);
      expect(d.message).toMatchObject({ mid: m.message.mid, conversation_seq: '1', content: null });
      const w1 = await latest(b, friendCid(a));
      expect(Number(w1.deletion_revision)).toBeGreaterThan(Number(w0.deletion_revision));
      expect(w1.updated_at).toBeGreaterThan(w0.updated_at);
      expect(w1.messages).toHaveLength(1);
      expect(w1.messages[0]).toMatchObject({ mid: m.message.mid, status: 'deleted', content: null });
      await expectUnread(b, {});
    });

    it('refuses sending between strangers (no friendship, no conversation) with 1201 or 1203', async () => {
      const a = await issueUser(t);
      const b = await issueUser(t);
      const response = await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content: { text: 'hi' } });
      expect({ code: response.body.code, data: response.body.data }).toEqual({ code: [1201, 1203].includes(response.body.code) ? response.body.code : '1201 or 1203', data: null });
      await expectUnread(b, {});
    });

    it('refuses sending to a former friend (conversation exists, friendship removed) with 1203', async () => {
      const { a, b } = await pair();
      await send(a, friendCid(b), 'while friends');
      await db.query('DELETE FROM friendships WHERE (user_id = ? AND friend_id = ?) OR (user_id = ? AND friend_id = ?)', [a.id, b.id, b.id, a.id]);
      fail(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content: { text: 'after unfriend' } }), 1203);
      fail(await sendRaw(b, { conversation_id: friendCid(a), client_message_id: cmid(), type: 'text', content: { text: 'after unfriend' } }), 1203);
      await expectUnread(b, { [friendCid(a)]: 1 });
    });

    it('refuses sending from a blocked user to the blocker with 1203 and writes no event', async () => {
      const { a: c, b: d } = await pair();
      await send(d, friendCid(c), 'before the block');
      await db.query('INSERT INTO blocks (user_id, blocked_user_id, created_at) VALUES (?, ?, ?)', [c.id, d.id, t.clock.now()]);
      const eventsBefore = await eventCount([c, d]);
      fail(await sendRaw(d, { conversation_id: friendCid(c), client_message_id: cmid(), type: 'text', content: { text: 'after the block' } }), 1203);
      expect(await eventCount([c, d])).toBe(eventsBefore);
      expect((await latest(c, friendCid(d))).last_seq).toBe('1');
      await expectUnread(c, { [friendCid(d)]: 1 });
      await expectUnread(d, {});
    });

    it('refuses sending from the blocker to the blocked user with 1203', async () => {
      const { a: c, b: d } = await pair();
      await db.query('INSERT INTO blocks (user_id, blocked_user_id, created_at) VALUES (?, ?, ?)', [c.id, d.id, t.clock.now()]);
      fail(await sendRaw(c, { conversation_id: friendCid(d), client_message_id: cmid(), type: 'text', content: { text: 'I blocked you' } }), 1203);
      await expectUnread(d, {});
    });

    it('answers 1201 for a one-to-one conversation with an unknown user and 1004 for malformed ids', async () => {
      const a = await issueUser(t);
      const ghost = friendCid({ userId: randomUserId('ghost'), id: '0', token: '' });
      fail(await sendRaw(a, { conversation_id: ghost, client_message_id: cmid(), type: 'text', content: { text: 'hi' } }), 1201);
      fail(await messagesRaw(a, { conversation_id: ghost, before_seq: '10' }), 1201);
      fail(await readRaw(a, ghost, '0'), 1201);
      for (const bad of ['nonsense', 'friend_', 'group_', 'friend_!!!', 'group_has space', `group_${'x'.repeat(33)}`, 'chat_abc']) {
        fail(await sendRaw(a, { conversation_id: bad, client_message_id: cmid(), type: 'text', content: { text: 'hi' } }), 1004);
        fail(await messagesRaw(a, { conversation_id: bad, before_seq: '10' }), 1004);
      }
      fail(await sendRaw(a, { conversation_id: groupCid(randomGroupId()), client_message_id: cmid(), type: 'text', content: { text: 'hi' } }), 1201);
    });

    it('a user cannot address a conversation with himself', async () => {
      const a = await issueUser(t);
      const response = await sendRaw(a, { conversation_id: friendCid(a), client_message_id: cmid(), type: 'text', content: { text: 'me' } });
      expect(response.body.code).not.toBe(0);
      expect(response.body.data).toBeNull();
    });
    it('keeps the content version strictly increasing even when the clock stands still or goes back', async () => {
      const { a, b } = await pair();
      const ms = await sendMany(a, friendCid(b), 4, 'v');
      const base = t.clock.now();
      t.clock.set(base);
      try {
        const versions: number[] = [(await latest(b, friendCid(a))).updated_at];
        const revisions: number[] = [Number((await latest(b, friendCid(a))).deletion_revision)];
        await recall(a, friendCid(b), ms[0].mid);
        versions.push((await latest(b, friendCid(a))).updated_at);
        await recall(a, friendCid(b), ms[1].mid);
        versions.push((await latest(b, friendCid(a))).updated_at);
        await remove(a, friendCid(b), ms[2].mid);
        versions.push((await latest(b, friendCid(a))).updated_at);
        revisions.push(Number((await latest(b, friendCid(a))).deletion_revision));
        t.clock.set(base - 60_000);
        await remove(a, friendCid(b), ms[3].mid);
        versions.push((await latest(b, friendCid(a))).updated_at);
        revisions.push(Number((await latest(b, friendCid(a))).deletion_revision));
        expect({ versions, increasing: versions.every((v, i) => i === 0 || v > versions[i - 1]) }).toEqual({ versions, increasing: true });
        expect({ revisions, increasing: revisions.every((v, i) => i === 0 || v > revisions[i - 1]) }).toEqual({ revisions, increasing: true });
        // each step is visible to a client holding the previous trio
        const items = (await syncAll(b)).items.filter((i) => i.conversation_id === friendCid(a));
        expect(items[0].updated_at).toBe(versions[versions.length - 1]);
      } finally {
        t.clock.set(base + 1);
      }
    });

    it('a recalled or deleted message reports a raised updated_at', async () => {
      const { a, b } = await pair();
      const m = await send(a, friendCid(b), 'x');
      const m2 = await send(a, friendCid(b), 'y');
      t.clock.advance(5_000);
      const r = await recall(a, friendCid(b), m.message.mid);
      expect(r.message.updated_at).toBeGreaterThan(m.message.updated_at);
      expect(r.message.created_at).toBe(m.message.created_at);
      const d = await remove(a, friendCid(b), m2.message.mid);
      expect(d.message.updated_at).toBeGreaterThan(m2.message.updated_at);
      expect(d.message.created_at).toBe(m2.message.created_at);
    });

    it('a repeated recall writes no new event, and no-op reads point at no phantom event', async () => {
      const { a, b } = await pair();
      const m = await send(a, friendCid(b), 'x');
      await send(a, friendCid(b), 'y');
      await recall(a, friendCid(b), m.message.mid);
      const count = (): Promise<number> => eventCount([a, b]);
      const before = await count();
      const again = await recall(a, friendCid(b), m.message.mid);
      expect(again.event_id).toBeNull();
      expect(await count()).toBe(before);
      const r = await read(b, friendCid(a), '2');
      await expectEvent(r.event_id, [b]);
      const noop = await read(b, friendCid(a), '1');
      expect(noop.read_seq).toBe('2');
      if (noop.event_id !== null) await expectEvent(noop.event_id, [b]);
      // Refused operations write nothing.
      const before2 = await count();
      fail(await readRaw(b, friendCid(a), '3'), 1004);
      fail(await recallRaw(b, friendCid(a), '999999999'), 1207);
      expect(await count()).toBe(before2);
    });

    it('only someone allowed to recall gets the idempotent "already recalled" success; the peer gets 1208', async () => {
      const { a, b } = await pair();
      const m = await send(a, friendCid(b), 'x');
      await recall(a, friendCid(b), m.message.mid);
      fail(await recallRaw(b, friendCid(a), m.message.mid), 1208);
    });

    it('a repeated delete by someone who may not delete is refused with 1208, not answered as success', async () => {
      const { a, b } = await pair();
      const m = await send(a, friendCid(b), 'x');
      await remove(a, friendCid(b), m.message.mid);
      fail(await deleteRaw(b, friendCid(a), m.message.mid), 1208);
    });

    it('in a group, a plain member repeating a recall done by an admin is refused with 1208', async () => {
      const owner = await issueUser(t);
      const m1 = await issueUser(t);
      const m2 = await issueUser(t);
      const pub = randomGroupId();
      await seed.group(pub, owner.id, [m1.id, m2.id]);
      const m = await send(m1, groupCid(pub), 'x');
      await recall(owner, groupCid(pub), m.message.mid);
      fail(await recallRaw(m2, groupCid(pub), m.message.mid), 1208);
    });

    it('concurrent reads leave read_seq at the highest value', async () => {
      const { a, b } = await pair();
      await sendMany(a, friendCid(b), 12, 'r');
      const values = ['3', '12', '9', '10', '2', '11', '1', '7'];
      await Promise.all(values.map((v) => readRaw(b, friendCid(a), v)));
      const w = await windowOf(b, friendCid(a), { after_seq: '0' });
      expect(w).toMatchObject({ read_seq: '12', unread: 0 });
      const after9 = await read(b, friendCid(a), '9');
      expect(after9.read_seq).toBe('12');
      await expectUnread(b, {});
    });

    it('compares read_seq numerically (9 after 10 is a no-op, 10 after 9 moves)', async () => {
      const { a, b } = await pair();
      await sendMany(a, friendCid(b), 11, 'n');
      expect((await read(b, friendCid(a), '9')).read_seq).toBe('9');
      expect(await read(b, friendCid(a), '10')).toMatchObject({ read_seq: '10', unread: 1 });
      expect(await read(b, friendCid(a), '9')).toMatchObject({ read_seq: '10', unread: 1 });
      await expectUnread(b, { [friendCid(a)]: 1 });
    });

  });

  // =====================================================================================
  describe('group flow (owner, admin, members; unread after every step)', () => {
    it('send, read, recall and delete with owner/admin rights, unread and outbox', async () => {
      const owner = await issueUser(t);
      const admin = await issueUser(t);
      const m1 = await issueUser(t);
      const m2 = await issueUser(t);
      const outsider = await issueUser(t);
      const pub = randomGroupId();
      const g = await seed.group(pub, owner.id, [admin.id, m1.id, m2.id]);
      await setRole(g.groupId, admin, 'admin');
      const cid = groupCid(pub);
      const everyone = [owner, admin, m1, m2];
      const check = async (expected: [IssuedUser, number][]) => {
        for (const [u, n] of expected) await expectUnread(u, { [cid]: n });
        await expectUnread(outsider, {});
      };
      await check([[owner, 0], [admin, 0], [m1, 0], [m2, 0]]);

      // 1. m1 sends
      const s1 = await send(m1, cid, 'from m1');
      expect(s1.message).toMatchObject({ conversation_id: cid, conversation_seq: '1', sender_id: m1.userId, status: 'normal' });
      await expectEvent(s1.event_id, everyone, [outsider]);
      await check([[owner, 1], [admin, 1], [m1, 0], [m2, 1]]);

      // 2. m2 sends
      const s2 = await send(m2, cid, 'from m2');
      expect(s2.message.conversation_seq).toBe('2');
      await check([[owner, 2], [admin, 2], [m1, 1], [m2, 1]]);

      // 3. owner sends
      const s3 = await send(owner, cid, 'from owner');
      expect(s3.message.conversation_seq).toBe('3');
      await check([[owner, 2], [admin, 3], [m1, 2], [m2, 2]]);

      // 4. m2 reads to 2
      const r4 = await read(m2, cid, '2');
      expect(r4).toMatchObject({ conversation_id: cid, read_seq: '2', unread: 1 });
      await check([[owner, 2], [admin, 3], [m1, 2], [m2, 1]]);

      // 5. a plain member cannot recall or delete another member's message
      fail(await recallRaw(m2, cid, s1.message.mid), 1208);
      fail(await deleteRaw(m2, cid, s1.message.mid), 1208);
      fail(await recallRaw(m1, cid, s3.message.mid), 1208);
      await check([[owner, 2], [admin, 3], [m1, 2], [m2, 1]]);

      // 6. the admin recalls m1's message (seq 1)
      const rc = await recall(admin, cid, s1.message.mid);
      expect(rc.message).toMatchObject({ mid: s1.message.mid, conversation_seq: '1', status: 'recalled', content: null, conversation_id: cid });
      await expectEvent(rc.event_id, everyone, [outsider]);
      await check([[owner, 1], [admin, 2], [m1, 2], [m2, 1]]);

      // 7. the owner deletes m2's message (seq 2)
      const del = await remove(owner, cid, s2.message.mid);
      expect(del.message).toMatchObject({ mid: s2.message.mid, conversation_seq: '2', status: 'deleted', content: null });
      await expectEvent(del.event_id, everyone, [outsider]);
      await check([[owner, 0], [admin, 1], [m1, 1], [m2, 1]]);

      // 8. the admin deletes the owner's message (seq 3)
      await remove(admin, cid, s3.message.mid);
      await check([[owner, 0], [admin, 0], [m1, 0], [m2, 0]]);

      // 9. m1 sends two more; the admin reads all
      const s9a = await send(m1, cid, 'm1 again');
      const s9b = await send(m1, cid, 'm1 once more');
      expect([s9a.message.conversation_seq, s9b.message.conversation_seq]).toEqual(['4', '5']);
      await check([[owner, 2], [admin, 2], [m1, 0], [m2, 2]]);
      const r9 = await read(admin, cid, '5');
      expect(r9).toMatchObject({ read_seq: '5', unread: 0 });
      await check([[owner, 2], [admin, 0], [m1, 0], [m2, 2]]);

      // 10. the sender recalls after the window: refused; the owner still may
      t.clock.advance(121_000);
      fail(await recallRaw(m1, cid, s9a.message.mid), 1208);
      await check([[owner, 2], [admin, 0], [m1, 0], [m2, 2]]);
      const rcOwner = await recall(owner, cid, s9a.message.mid);
      expect(rcOwner.message).toMatchObject({ status: 'recalled', content: null });
      await check([[owner, 1], [admin, 0], [m1, 0], [m2, 1]]);

      // 11. the sender deletes his own message any time
      await remove(m1, cid, s9b.message.mid);
      await check([[owner, 0], [admin, 0], [m1, 0], [m2, 0]]);

      // 12. window of everybody: 5 messages, all tombstones, continuous
      const w = await latest(m2, cid);
      expect(seqs(w.messages)).toEqual([1, 2, 3, 4, 5]);
      expect(w.messages.map((m) => m.status)).toEqual(['recalled', 'deleted', 'deleted', 'recalled', 'deleted']);
      expect(w.messages.every((m) => m.content === null)).toBe(true);
      expect(w.unread).toBe(0);

      // 13. an outsider can neither read, send, recall nor mark read
      fail(await messagesRaw(outsider, { conversation_id: cid, before_seq: '5' }), 1201);
      fail(await sendRaw(outsider, { conversation_id: cid, client_message_id: cmid(), type: 'text', content: { text: 'x' } }), 1201);
      fail(await readRaw(outsider, cid, '1'), 1201);
      fail(await recallRaw(outsider, cid, s9a.message.mid), 1201);
      fail(await deleteRaw(outsider, cid, s9a.message.mid), 1201);
    });

    it('a muted member cannot send (1203) until muted_until has passed', async () => {
      const owner = await issueUser(t);
      const member = await issueUser(t);
      const pub = randomGroupId();
      const g = await seed.group(pub, owner.id, [member.id]);
      await setMutedUntil(g.groupId, member, t.clock.now() + 3_600_000);
      fail(await sendRaw(member, { conversation_id: groupCid(pub), client_message_id: cmid(), type: 'text', content: { text: 'muted' } }), 1203);
      await expectUnread(owner, {});
      await setMutedUntil(g.groupId, member, t.clock.now() - 1000);
      const s = await send(member, groupCid(pub), 'free again');
      expect(s.message.conversation_seq).toBe('1');
      await expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it('a removed member cannot send (1203), sees only messages up to the leave point and is not an event recipient', async () => {
      const owner = await issueUser(t);
      const stay = await issueUser(t);
      const gone = await issueUser(t);
      const pub = randomGroupId();
      const cid = groupCid(pub);
      const g = await seed.group(pub, owner.id, [stay.id, gone.id]);
      const before = await sendMany(owner, cid, 3, 'before');
      await expectUnread(gone, { [cid]: 3 });
      await read(gone, cid, '1');
      await expectUnread(gone, { [cid]: 2 });
      await seed.leaveGroup(g.groupId, g.conversationId, gone.id, 'removed');
      const after = await send(owner, cid, 'after leaving secret');
      await expectEvent(after.event_id, [owner, stay], [gone]);
      await send(stay, cid, 'after leaving 2');
      fail(await sendRaw(gone, { conversation_id: cid, client_message_id: cmid(), type: 'text', content: { text: 'let me in' } }), 1203);

      // The window is capped at the leave point.
      const w = await latest(gone, cid);
      expect(w.last_seq).toBe('3');
      expect(seqs(w.messages)).toEqual([1, 2, 3]);
      expect(w.has_more_after).toBe(false);
      const afterWin = await windowOf(gone, cid, { after_seq: '3' });
      expect(afterWin.messages).toEqual([]);
      expect(afterWin.has_more_after).toBe(false);
      expect(afterWin.last_seq).toBe('3');
      const page = await windowOf(gone, cid, { before_seq: '5' });
      expect(seqs(page.messages)).toEqual([1, 2, 3]);
      const around = messagesRaw(gone, { conversation_id: cid, around_mid: after.message.mid });
      const aroundReply = await around;
      expect(aroundReply.body.code).not.toBe(0);
      // A calibration with the member's own values stays unchanged even though the group moved on.
      const same = await windowOf(gone, cid, trioOf(w));
      expect(same.outcome).toBe('unchanged');
      expect(same.messages).toEqual([]);

      // Unread counts only what was visible; reading past the cap is refused.
      await expectUnread(gone, { [cid]: 2 });
      fail(await readRaw(gone, cid, '4'), 1004);
      const r = await read(gone, cid, '3');
      expect(r).toMatchObject({ read_seq: '3', unread: 0 });
      await expectUnread(gone, {});
      await expectUnread(stay, { [cid]: 4 });

      // Sync marks the conversation as no longer a member, capped at the leave point.
      const item = (await syncAll(gone)).items.find((i) => i.conversation_id === cid);
      if (item) {
        expect(item.is_member).toBe(false);
        expect(item.last_seq).toBe('3');
        expect(item.last_message?.mid).toBe(before[2].mid);
      }
      // Search never shows what was said after the leave point.
      const found = ok<{ items: Msg[] }>(await searchRaw(gone, { conversation_id: cid, keyword: 'after leaving' }));
      expect(found.items).toEqual([]);
      const foundBefore = ok<{ items: Msg[] }>(await searchRaw(gone, { conversation_id: cid, keyword: 'before' }));
      expect(foundBefore.items.map((m) => m.mid)).toEqual(before.map((m) => m.mid).reverse());
    });

    it('a member who joined later sees only later messages and counts only them as unread', async () => {
      const owner = await issueUser(t);
      const late = await issueUser(t);
      const pub = randomGroupId();
      const cid = groupCid(pub);
      const g = await seed.group(pub, owner.id, []);
      await sendMany(owner, cid, 4, 'early secret');
      t.clock.advance(1000);
      await seed.joinGroup(g.groupId, g.conversationId, late.id);
      await expectUnread(late, {});
      const later = await sendMany(owner, cid, 2, 'later');
      await expectUnread(late, { [cid]: 2 });
      const w = await latest(late, cid);
      expect(seqs(w.messages)).toEqual([5, 6]);
      expect(w.has_more_before).toBe(false);
      expect(w.last_seq).toBe('6');
      const older = await windowOf(late, cid, { before_seq: '5' });
      expect(older.messages).toEqual([]);
      expect(older.has_more_before).toBe(false);
      const fromZero = await windowOf(late, cid, { after_seq: '0' });
      expect(seqs(fromZero.messages)).toEqual([5, 6]);
      const search = ok<{ items: Msg[] }>(await searchRaw(late, { conversation_id: cid, keyword: 'early secret' }));
      expect(search.items).toEqual([]);
      const laterSearch = ok<{ items: Msg[] }>(await searchRaw(late, { conversation_id: cid, keyword: 'later' }));
      expect(laterSearch.items.map((m) => m.mid)).toEqual(later.map((m) => m.mid).reverse());
      const r = await read(late, cid, '6');
      expect(r).toMatchObject({ read_seq: '6', unread: 0 });
      await expectUnread(late, {});
    });

    it('a disabled group refuses sending with 1218', async () => {
      const owner = await issueUser(t);
      const member = await issueUser(t);
      const pub = randomGroupId();
      const g = await seed.group(pub, owner.id, [member.id]);
      await send(member, groupCid(pub), 'before disable');
      await seed.disableGroup(g.groupId);
      fail(await sendRaw(member, { conversation_id: groupCid(pub), client_message_id: cmid(), type: 'text', content: { text: 'x' } }), 1218);
      fail(await sendRaw(owner, { conversation_id: groupCid(pub), client_message_id: cmid(), type: 'text', content: { text: 'x' } }), 1218);
      await expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it('the owner and an admin may recall any member message without a time limit; a member may not recall an admin one', async () => {
      const owner = await issueUser(t);
      const admin = await issueUser(t);
      const member = await issueUser(t);
      const pub = randomGroupId();
      const cid = groupCid(pub);
      const g = await seed.group(pub, owner.id, [admin.id, member.id]);
      await setRole(g.groupId, admin, 'admin');
      const a1 = await send(member, cid, 'one');
      const a2 = await send(member, cid, 'two');
      const byAdmin = await send(admin, cid, 'admin says');
      t.clock.advance(3_600_000);
      expect((await recall(admin, cid, a1.message.mid)).message.status).toBe('recalled');
      expect((await recall(owner, cid, a2.message.mid)).message.status).toBe('recalled');
      fail(await recallRaw(member, cid, byAdmin.message.mid), 1208);
      fail(await deleteRaw(member, cid, byAdmin.message.mid), 1208);
      await expectUnread(owner, { [cid]: 1 });
      await expectUnread(member, { [cid]: 1 });
    });

    it('an admin of one group has no rights in another group where he is a plain member', async () => {
      const ownerX = await issueUser(t);
      const ownerY = await issueUser(t);
      const boss = await issueUser(t);
      const member = await issueUser(t);
      const pubX = randomGroupId();
      const pubY = randomGroupId();
      const gx = await seed.group(pubX, ownerX.id, [boss.id, member.id]);
      await seed.group(pubY, ownerY.id, [boss.id, member.id]);
      await setRole(gx.groupId, boss, 'admin');
      const inY = await send(member, groupCid(pubY), 'in Y');
      fail(await recallRaw(boss, groupCid(pubY), inY.message.mid), 1208);
      fail(await deleteRaw(boss, groupCid(pubY), inY.message.mid), 1208);
      // The owner of group Y is only a member in nothing else: he may not act in group X either.
      const inX = await send(member, groupCid(pubX), 'in X');
      fail(await recallRaw(ownerY, groupCid(pubX), inX.message.mid), 1201);
      expect((await latest(member, groupCid(pubY))).messages[0]).toMatchObject({ status: 'normal' });
      await expectUnread(boss, { [groupCid(pubX)]: 1, [groupCid(pubY)]: 1 });
    });

    it('a removed admin can no longer recall or delete other members\' messages', async () => {
      const owner = await issueUser(t);
      const admin = await issueUser(t);
      const member = await issueUser(t);
      const pub = randomGroupId();
      const g = await seed.group(pub, owner.id, [admin.id, member.id]);
      await setRole(g.groupId, admin, 'admin');
      const m = await send(member, groupCid(pub), 'keep me');
      await seed.leaveGroup(g.groupId, g.conversationId, admin.id, 'removed');
      const r1 = await recallRaw(admin, groupCid(pub), m.message.mid);
      const r2 = await deleteRaw(admin, groupCid(pub), m.message.mid);
      expect([r1.body.code, r2.body.code].every((code: number) => code === 1201 || code === 1208)).toBe(true);
      expect((await latest(owner, groupCid(pub))).messages[0]).toMatchObject({ mid: m.message.mid, status: 'normal' });
      await expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it('a former member\'s versions move only with changes inside his window, the same in sync and messages; rejoining gives the group\'s', async () => {
      const owner = await issueUser(t);
      const gone = await issueUser(t);
      const pub = randomGroupId();
      const cid = groupCid(pub);
      const g = await seed.group(pub, owner.id, [gone.id]);
      const seen = await sendMany(owner, cid, 3, 'seen');
      await seed.leaveGroup(g.groupId, g.conversationId, gone.id, 'left');
      const later = await sendMany(owner, cid, 3, 'later');
      const versions = async (): Promise<{ window: Window; item: SyncItem | undefined }> => ({
        window: await latest(gone, cid),
        item: (await syncAll(gone)).items.find((i) => i.conversation_id === cid),
      });
      const agree = ({ window, item }: { window: Window; item: SyncItem | undefined }) => {
        expect(item).toMatchObject({ last_seq: window.last_seq, updated_at: window.updated_at, deletion_revision: window.deletion_revision, is_member: false });
      };

      const atLeave = await versions();
      agree(atLeave);
      expect(atLeave.window.last_seq).toBe('3');
      // The group's later recall and delete: nothing changes for him.
      await recall(owner, cid, later[0].mid);
      await remove(owner, cid, later[1].mid);
      const untouched = await versions();
      expect(untouched.window).toMatchObject({ updated_at: atLeave.window.updated_at, deletion_revision: atLeave.window.deletion_revision });
      agree(untouched);
      expect((await windowOf(gone, cid, trioOf(atLeave.window))).outcome).toBe('unchanged');
      const groupNow = await latest(owner, cid);
      expect(groupNow.deletion_revision).not.toBe(atLeave.window.deletion_revision);

      // A recall inside his window moves his content version; a delete also his deletion revision.
      t.clock.advance(1000);
      await recall(owner, cid, seen[2].mid);
      const recalled = await versions();
      expect(Number(recalled.window.updated_at)).toBeGreaterThan(Number(atLeave.window.updated_at));
      expect(recalled.window.deletion_revision).toBe(atLeave.window.deletion_revision);
      agree(recalled);
      const reset = await windowOf(gone, cid, trioOf(atLeave.window));
      expect(reset.outcome).toBe('reset');
      expect(reset.messages.find((m) => m.mid === seen[2].mid)).toMatchObject({ status: 'recalled', content: null });
      await remove(owner, cid, seen[0].mid);
      const deleted = await versions();
      expect(Number(deleted.window.updated_at)).toBeGreaterThan(Number(recalled.window.updated_at));
      expect(BigInt(deleted.window.deletion_revision)).toBeGreaterThan(BigInt(recalled.window.deletion_revision));
      agree(deleted);

      // Back in the group, he follows the group's versions again.
      ok(await t.http.post('/app/sdk/groups/members/add').set(...bearer(owner.token)).send({ group_id: pub, user_ids: [gone.userId] }));
      const rejoined = await versions();
      const group = await latest(owner, cid);
      expect(rejoined.window).toMatchObject({ updated_at: group.updated_at, deletion_revision: group.deletion_revision, last_seq: group.last_seq });
      expect(rejoined.item).toMatchObject({ updated_at: group.updated_at, deletion_revision: group.deletion_revision, is_member: true });
    });

    it('a removed member cannot recall or delete even his own message (1208), and nothing changes', async () => {
      const owner = await issueUser(t);
      const member = await issueUser(t);
      const pub = randomGroupId();
      const g = await seed.group(pub, owner.id, [member.id]);
      const mine = await send(member, groupCid(pub), 'said before leaving');
      await seed.leaveGroup(g.groupId, g.conversationId, member.id, 'removed');
      const before = (await latest(owner, groupCid(pub))).messages[0];
      for (const response of [await recallRaw(member, groupCid(pub), mine.message.mid), await deleteRaw(member, groupCid(pub), mine.message.mid)]) {
        expect(response.body).toMatchObject({ code: 1208, data: null });
        expect(response.body.msg).toMatch(/^mid: .*no longer a member/);
      }
      expect((await latest(owner, groupCid(pub))).messages[0]).toEqual(before);
      expect((await latest(member, groupCid(pub))).messages[0]).toMatchObject({ mid: mine.message.mid, status: 'normal' });
      await expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it('a late member cannot open a window around an earlier message', async () => {
      const owner = await issueUser(t);
      const late = await issueUser(t);
      const pub = randomGroupId();
      const g = await seed.group(pub, owner.id, []);
      const early = await send(owner, groupCid(pub), 'early');
      t.clock.advance(1000);
      await seed.joinGroup(g.groupId, g.conversationId, late.id);
      await send(owner, groupCid(pub), 'late');
      const response = await messagesRaw(late, { conversation_id: groupCid(pub), around_mid: early.message.mid });
      expect(response.body.code).not.toBe(0);
      expect(response.body.data).toBeNull();
      // nor recall/delete it as if it were visible
      const search = ok<{ items: Msg[] }>(await searchRaw(late, { conversation_id: groupCid(pub), keyword: 'early' }));
      expect(search.items).toEqual([]);
    });

    it('a member removed and then re-added does not see what was said while away', async () => {
      const owner = await issueUser(t);
      const back = await issueUser(t);
      const pub = randomGroupId();
      const cid = groupCid(pub);
      const g = await seed.group(pub, owner.id, [back.id]);
      await send(owner, cid, 'first');
      t.clock.advance(1000);
      await seed.leaveGroup(g.groupId, g.conversationId, back.id, 'removed');
      t.clock.advance(1000);
      await send(owner, cid, 'while away secret');
      t.clock.advance(1000);
      ok(await t.http.post('/app/sdk/groups/members/add').set(...bearer(owner.token)).send({ group_id: pub, user_ids: [back.userId] }));
      await send(owner, cid, 'after return');
      const w = await latest(back, cid);
      const texts = w.messages.map((m) => (m.content as { text: string } | null)?.text);
      expect(texts).toContain('after return');
      expect(texts).not.toContain('while away secret');
      const found = ok<{ items: Msg[] }>(await searchRaw(back, { conversation_id: cid, keyword: 'secret' }));
      expect(found.items).toEqual([]);
    });

    it('tombstones after a member left do not change his unread; tombstones before it do', async () => {
      const owner = await issueUser(t);
      const gone = await issueUser(t);
      const stay = await issueUser(t);
      const pub = randomGroupId();
      const cid = groupCid(pub);
      const g = await seed.group(pub, owner.id, [gone.id, stay.id]);
      const pre = await sendMany(owner, cid, 3, 'pre');
      await read(gone, cid, '1');
      await expectUnread(gone, { [cid]: 2 });
      await seed.leaveGroup(g.groupId, g.conversationId, gone.id, 'left');
      const post = await sendMany(owner, cid, 2, 'post');
      await expectUnread(gone, { [cid]: 2 });
      await recall(owner, cid, post[0].mid);
      await expectUnread(gone, { [cid]: 2 });
      await remove(owner, cid, post[1].mid);
      await expectUnread(gone, { [cid]: 2 });
      await expectUnread(stay, { [cid]: 3 });
      await remove(owner, cid, pre[2].mid);
      await expectUnread(gone, { [cid]: 1 });
      await expectUnread(stay, { [cid]: 2 });
      const w = await latest(gone, cid);
      expect(w).toMatchObject({ last_seq: '3', unread: 1 });
    });

    it('tombstones of messages before a member joined do not change his unread', async () => {
      const owner = await issueUser(t);
      const late = await issueUser(t);
      const pub = randomGroupId();
      const cid = groupCid(pub);
      const g = await seed.group(pub, owner.id, []);
      const early = await sendMany(owner, cid, 3, 'early');
      t.clock.advance(1000);
      await seed.joinGroup(g.groupId, g.conversationId, late.id);
      await sendMany(owner, cid, 2, 'later');
      await expectUnread(late, { [cid]: 2 });
      await recall(owner, cid, early[2].mid);
      await remove(owner, cid, early[1].mid);
      await expectUnread(late, { [cid]: 2 });
      expect((await latest(late, cid)).unread).toBe(2);
    });

    it('a client_message_id refused for a muted member is free again once he may send', async () => {
      const owner = await issueUser(t);
      const member = await issueUser(t);
      const pub = randomGroupId();
      const g = await seed.group(pub, owner.id, [member.id]);
      const key = cmid();
      await setMutedUntil(g.groupId, member, t.clock.now() + 3_600_000);
      fail(await sendRaw(member, { conversation_id: groupCid(pub), client_message_id: key, type: 'text', content: { text: 'k' } }), 1203);
      await setMutedUntil(g.groupId, member, 0);
      const s = await send(member, groupCid(pub), 'k', key);
      expect(s.message).toMatchObject({ client_message_id: key, conversation_seq: '1' });
    });
  });

  // =====================================================================================
  describe('keyword moderation', () => {
    let k: TestApp;
    beforeAll(async () => {
      k = await startTestApp({ BLOCKED_KEYWORDS: 'badword' });
    });
    afterAll(() => k.close());

    it('refuses a text containing a configured keyword with 1203 and stores nothing', async () => {
      const a = await issueUser(k);
      const b = await issueUser(k);
      await new Seed(k).friends(a.id, b.id);
      const sendK = (text: string) =>
        k.http.post('/app/sdk/messages/send').set(...bearer(a.token)).send({ conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content: { text } });
      fail(await sendK('this has a badword inside'), 1203);
      fail(await sendK('this has a BadWord inside'), 1203);
      const okReply = ok<{ message: Msg }>(await sendK('clean text'));
      expect(okReply.message.conversation_seq).toBe('1');
    });
  });

  // =====================================================================================
  describe('send validation and idempotency', () => {
    let a: IssuedUser;
    let b: IssuedUser;
    let c: IssuedUser;
    beforeAll(async () => {
      ({ a, b } = await pair());
      c = await issueUser(t);
      await seed.friends(a.id, c.id);
    });

    it('a retry with the same client_message_id and content returns the original message and event_id', async () => {
      const key = cmid();
      const first = await send(a, friendCid(b), 'idempotent', key);
      const again = await send(a, friendCid(b), 'idempotent', key);
      expect(again).toEqual(first);
      const w = await latest(a, friendCid(b));
      expect(w.messages.filter((m) => m.client_message_id === key)).toHaveLength(1);
      const rows: unknown[] = await db.query('SELECT id FROM outbox_events WHERE event_id = ?', [first.event_id]);
      expect(rows).toHaveLength(1);
      // the next message still takes the next sequence
      const next = await send(a, friendCid(b), 'next');
      expect(Number(next.message.conversation_seq)).toBe(Number(first.message.conversation_seq) + 1);
    });

    it('the same key with other content, another type or another conversation is refused with 1004', async () => {
      const key = cmid();
      const first = await send(a, friendCid(b), 'original', key);
      fail(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: key, type: 'text', content: { text: 'changed' } }), 1004);
      fail(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: key, type: 'custom', content: { data: { text: 'original' } } }), 1004);
      fail(await sendRaw(a, { conversation_id: friendCid(c), client_message_id: key, type: 'text', content: { text: 'original' } }), 1004);
      const w = await latest(a, friendCid(b));
      expect(w.last_seq).toBe(first.message.conversation_seq);
      expect((await latest(a, friendCid(c))).messages.filter((m) => m.client_message_id === key)).toHaveLength(0);
    });

    it('the key is per sender: another sender may use the same key', async () => {
      const key = cmid();
      const fromA = await send(a, friendCid(b), 'same key', key);
      const fromB = await send(b, friendCid(a), 'same key', key);
      expect(fromB.message.mid).not.toBe(fromA.message.mid);
      expect(Number(fromB.message.conversation_seq)).toBe(Number(fromA.message.conversation_seq) + 1);
      expect(fromB.event_id).not.toBe(fromA.event_id);
    });

    it('a retry after the original was recalled still does not create a second message', async () => {
      const key = cmid();
      const first = await send(a, friendCid(b), 'to be recalled', key);
      await recall(a, friendCid(b), first.message.mid);
      const again = await sendRaw(a, { conversation_id: friendCid(b), client_message_id: key, type: 'text', content: { text: 'to be recalled' } });
      if (again.body.code === 0) expect(again.body.data.message.mid).toBe(first.message.mid);
      const w = await latest(a, friendCid(b));
      expect(w.last_seq).toBe(first.message.conversation_seq);
    });

    it.each<[string, unknown]>([
      ['empty', ''],
      ['65 chars', 'k'.repeat(65)],
      ['a space', 'a b'],
      ['a slash', 'a/b'],
      ['non-ASCII', 'ключ'],
      ['a number', 12345],
      ['missing', undefined],
    ])('refuses a client_message_id that is %s with 1004', async (_label, value) => {
      const body: Body = { conversation_id: friendCid(b), type: 'text', content: { text: 'x' } };
      if (value !== undefined) body.client_message_id = value;
      fail(await sendRaw(a, body), 1004);
    });

    it('accepts a 64-char client_message_id using every allowed character class', async () => {
      const key = `Az09._:-${'q'.repeat(56)}`;
      expect(key).toHaveLength(64);
      const s = await send(a, friendCid(b), 'long key', key);
      expect(s.message.client_message_id).toBe(key);
    });

    it.each<[string, unknown]>([
      ['missing text', {}],
      ['empty text', { text: '' }],
      ['blank text', { text: '   \n\t ' }],
      ['5001 chars', { text: 'x'.repeat(5001) }],
      ['a number', { text: 5 }],
      ['null content', null],
      ['a string content', 'hello'],
      ['an array content', ['hello']],
    ])('refuses text content with %s (1004)', async (_label, content) => {
      fail(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content }), 1004);
    });

    it('accepts 5000-char text and drops unknown content fields', async () => {
      const s = await send(a, friendCid(b), 'y'.repeat(5000));
      expect((s.message.content as { text: string }).text).toHaveLength(5000);
      const extra = ok<{ message: Msg }>(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content: { text: 'hi', extra: 'drop me', html: '<b>' } }));
      expect(extra.message.content).toEqual({ text: 'hi' });
      const w = await latest(b, friendCid(a));
      expect(w.messages.find((m) => m.mid === extra.message.mid)?.content).toEqual({ text: 'hi' });
    });

    it('accepts custom content and refuses invalid custom content with 1004', async () => {
      const okCustom = ok<{ message: Msg }>(
        await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'custom', content: { data: { kind: 'card', n: 1 }, description: 'd'.repeat(200), junk: 1 } }),
      );
      expect(okCustom.message).toMatchObject({ type: 'custom', content: { data: { kind: 'card', n: 1 }, description: 'd'.repeat(200) } });
      expect(okCustom.message.content).not.toHaveProperty('junk');
      const noDescription = ok<{ message: Msg }>(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'custom', content: { data: {} } }));
      expect(noDescription.message.content).toMatchObject({ data: {} });
      // data whose JSON is exactly 8192 chars is accepted; 8193 is refused
      const pad = (n: number) => ({ p: 'z'.repeat(n - JSON.stringify({ p: '' }).length) });
      expect(JSON.stringify(pad(8192))).toHaveLength(8192);
      ok(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'custom', content: { data: pad(8192) } }));
      for (const content of [{ data: pad(8193) }, { data: [1, 2] }, { data: 'str' }, {}, { data: {}, description: 'd'.repeat(201) }, { data: {}, description: 5 }]) {
        fail(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'custom', content }), 1004);
      }
    });

    it('refuses an unknown type with 1004', async () => {
      for (const type of ['video', 'TEXT', '', 5]) {
        fail(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type, content: { text: 'x' } }), 1004);
      }
    });

    it('refuses a missing or non-string conversation_id with 1004', async () => {
      fail(await sendRaw(a, { client_message_id: cmid(), type: 'text', content: { text: 'x' } }), 1004);
      fail(await sendRaw(a, { conversation_id: 5, client_message_id: cmid(), type: 'text', content: { text: 'x' } }), 1004);
    });

    it('counts characters, not bytes: 5000 CJK characters, 200-char non-ASCII description, 8192-char non-ASCII data', async () => {
      const cjk = '字'.repeat(5000);
      const s1 = await send(a, friendCid(b), cjk);
      expect((s1.message.content as { text: string }).text).toBe(cjk);
      expect(((await latest(b, friendCid(a))).messages.find((m) => m.mid === s1.message.mid)?.content as { text: string }).text).toBe(cjk);
      const emoji = await send(a, friendCid(b), 'hi 😀 👍🏽');
      expect(emoji.message.content).toEqual({ text: 'hi 😀 👍🏽' });
      const description = 'é'.repeat(200);
      const data = { p: 'ü'.repeat(8192 - JSON.stringify({ p: '' }).length) };
      expect(JSON.stringify(data)).toHaveLength(8192);
      const custom = ok<{ message: Msg }>(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'custom', content: { data, description } }));
      expect(custom.message.content).toEqual({ data, description });
      fail(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content: { text: '字'.repeat(5001) } }), 1004);
    });

    it('refuses text made only of Unicode spaces (blank) with 1004', async () => {
      for (const text of ['\u3000\u3000', '\u00a0', ' \u2003 ']) {
        fail(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content: { text } }), 1004);
      }
    });

    it('a retry whose only difference is an unknown (dropped) field is the same message', async () => {
      const key = cmid();
      const first = await send(a, friendCid(b), 'same after drop', key);
      const again = ok<{ message: Msg; event_id: string }>(
        await sendRaw(a, { conversation_id: friendCid(b), client_message_id: key, type: 'text', content: { text: 'same after drop', extra: true } }),
      );
      expect(again).toEqual(first);
    });

    it('a retry of custom content with the same data in another key order is the same message', async () => {
      const key = cmid();
      const first = ok<{ message: Msg; event_id: string }>(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: key, type: 'custom', content: { data: { x: 1, y: 2 } } }));
      const again = ok<{ message: Msg; event_id: string }>(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: key, type: 'custom', content: { data: { y: 2, x: 1 } } }));
      expect(again.message.mid).toBe(first.message.mid);
      expect(again.event_id).toBe(first.event_id);
    });

    it('an idempotent retry is answered even after the clock passed the recall window, and the message keeps its seq', async () => {
      const key = cmid();
      const first = await send(a, friendCid(b), 'old retry', key);
      t.clock.advance(600_000);
      const again = await send(a, friendCid(b), 'old retry', key);
      expect(again.message.mid).toBe(first.message.mid);
      expect(again.message.conversation_seq).toBe(first.message.conversation_seq);
      expect(again.event_id).toBe(first.event_id);
    });
  });

  // =====================================================================================
  describe('GET /app/sdk/messages: modes, windows and has_more flags', () => {
    let a: IssuedUser;
    let b: IssuedUser;
    let all: Msg[];
    let cid: string;
    beforeAll(async () => {
      ({ a, b } = await pair());
      cid = friendCid(b);
      all = await sendMany(a, cid, 120, 'line');
    });

    it('a calibration with stale values resets to the latest 50 (71..120)', async () => {
      const w = await latest(b, friendCid(a));
      expect(w.outcome).toBe('reset');
      expect(seqs(w.messages)).toEqual(range(71, 120));
      expect(w).toMatchObject({ conversation_id: friendCid(a), has_more_before: true, has_more_after: false, last_seq: '120', read_seq: '0', unread: 120 });
      expect(w.messages[0]).toMatchObject({ mid: all[70].mid, conversation_id: friendCid(a), content: { text: 'line 71' } });
    });

    it('a calibration with the current trio is unchanged and carries no messages', async () => {
      const w = await latest(b, friendCid(a));
      const same = await windowOf(b, friendCid(a), trioOf(w));
      expect(same).toMatchObject({ outcome: 'unchanged', messages: [], last_seq: '120', conversation_id: friendCid(a) });
      expect(same.updated_at).toBe(w.updated_at);
      expect(String(same.deletion_revision)).toBe(String(w.deletion_revision));
    });

    it('any one stale value of the trio gives a reset', async () => {
      const w = await latest(b, friendCid(a));
      const trio = trioOf(w);
      for (const stale of [
        { ...trio, known_last_seq: '119' },
        { ...trio, known_updated_at: String(w.updated_at - 1) },
        { ...trio, known_deletion_revision: String(Number(w.deletion_revision) + 1) },
        { ...trio, known_last_seq: '121' },
      ]) {
        const r = await windowOf(b, friendCid(a), stale);
        expect({ stale, outcome: r.outcome, seqs: seqs(r.messages) }).toEqual({ stale, outcome: 'reset', seqs: range(71, 120) });
      }
    });

    it('before_seq pages older: 71 gives 21..70, 21 gives 1..20 with has_more_before false, 1 gives nothing', async () => {
      const p1 = await windowOf(b, friendCid(a), { before_seq: '71' });
      expect(p1.outcome).toBe('page');
      expect(seqs(p1.messages)).toEqual(range(21, 70));
      expect(p1).toMatchObject({ has_more_before: true, has_more_after: true, last_seq: '120' });
      const p2 = await windowOf(b, friendCid(a), { before_seq: '21' });
      expect(p2.outcome).toBe('page');
      expect(seqs(p2.messages)).toEqual(range(1, 20));
      expect(p2).toMatchObject({ has_more_before: false, has_more_after: true });
      const p3 = await windowOf(b, friendCid(a), { before_seq: '1' });
      expect(p3.messages).toEqual([]);
      expect(p3.has_more_before).toBe(false);
      const p4 = await windowOf(b, friendCid(a), { before_seq: '51' });
      expect(seqs(p4.messages)).toEqual(range(1, 50));
      expect(p4.has_more_before).toBe(false);
      const p5 = await windowOf(b, friendCid(a), { before_seq: '52' });
      expect(seqs(p5.messages)).toEqual(range(2, 51));
      expect(p5.has_more_before).toBe(true);
    });

    it('after_seq pages newer with correct edges', async () => {
      const p0 = await windowOf(b, friendCid(a), { after_seq: '0' });
      expect(seqs(p0.messages)).toEqual(range(1, 50));
      expect(p0).toMatchObject({ has_more_before: false, has_more_after: true });
      const p1 = await windowOf(b, friendCid(a), { after_seq: '20' });
      expect(seqs(p1.messages)).toEqual(range(21, 70));
      expect(p1).toMatchObject({ has_more_before: true, has_more_after: true });
      const p2 = await windowOf(b, friendCid(a), { after_seq: '70' });
      expect(seqs(p2.messages)).toEqual(range(71, 120));
      expect(p2).toMatchObject({ has_more_before: true, has_more_after: false });
      const p3 = await windowOf(b, friendCid(a), { after_seq: '69' });
      expect(seqs(p3.messages)).toEqual(range(70, 119));
      expect(p3.has_more_after).toBe(true);
      const p4 = await windowOf(b, friendCid(a), { after_seq: '120' });
      expect(p4.messages).toEqual([]);
      expect(p4.has_more_after).toBe(false);
      expect(p4.has_more_before).toBe(true);
    });

    it('around_mid returns a continuous window containing the message with consistent flags', async () => {
      for (const index of [0, 59, 119]) {
        const target = all[index];
        const w = await windowOf(b, friendCid(a), { around_mid: target.mid });
        const s = seqs(w.messages);
        expect(s).toContain(index + 1);
        expect(s).toEqual(range(s[0], s[s.length - 1]));
        expect(s.length).toBeLessThanOrEqual(50);
        expect({ index, has_more_before: w.has_more_before, has_more_after: w.has_more_after }).toEqual({ index, has_more_before: s[0] > 1, has_more_after: s[s.length - 1] < 120 });
        expect(w.last_seq).toBe('120');
      }
    });

    it('around_mid of an unknown message or of another conversation is refused with 1207', async () => {
      const c = await issueUser(t);
      await seed.friends(a.id, c.id);
      const elsewhere = await send(a, friendCid(c), 'elsewhere');
      fail(await messagesRaw(b, { conversation_id: friendCid(a), around_mid: elsewhere.message.mid }), 1207);
      fail(await messagesRaw(b, { conversation_id: friendCid(a), around_mid: '999999999999' }), 1207);
    });

    it('windows include tombstones and keep their seq', async () => {
      const { a: x, b: y } = await pair();
      const ms = await sendMany(x, friendCid(y), 5, 't');
      await recall(x, friendCid(y), ms[1].mid);
      await remove(x, friendCid(y), ms[3].mid);
      for (const w of [await latest(y, friendCid(x)), await windowOf(y, friendCid(x), { after_seq: '0' }), await windowOf(y, friendCid(x), { before_seq: '6' }), await windowOf(y, friendCid(x), { around_mid: ms[1].mid })]) {
        expect(seqs(w.messages)).toEqual([1, 2, 3, 4, 5]);
        expect(w.messages.map((m) => m.status)).toEqual(['normal', 'recalled', 'normal', 'deleted', 'normal']);
        expect(w.messages[1].content).toBeNull();
        expect(w.messages[3].content).toBeNull();
      }
      expect((await latest(y, friendCid(x))).unread).toBe(3);
    });

    it('a conversation of exactly 50 messages resets with has_more_before false, 51 with true', async () => {
      const { a: x, b: y } = await pair();
      await sendMany(x, friendCid(y), 50, 'f');
      const w50 = await latest(y, friendCid(x));
      expect(seqs(w50.messages)).toEqual(range(1, 50));
      expect(w50.has_more_before).toBe(false);
      await send(x, friendCid(y), 'f 51');
      const w51 = await latest(y, friendCid(x));
      expect(seqs(w51.messages)).toEqual(range(2, 51));
      expect(w51.has_more_before).toBe(true);
    });

    it('an empty conversation resets to an empty window', async () => {
      const { a: x, b: y } = await pair();
      const w = await latest(x, friendCid(y));
      expect(w).toMatchObject({ messages: [], has_more_before: false, has_more_after: false, last_seq: '0', read_seq: '0', unread: 0 });
      const same = await windowOf(x, friendCid(y), trioOf(w));
      expect(same.outcome).toBe('unchanged');
    });

    it('before_seq beyond last_seq gives the latest 50; after_seq beyond it gives nothing', async () => {
      const p = await windowOf(b, friendCid(a), { before_seq: '1000' });
      expect(seqs(p.messages)).toEqual(range(71, 120));
      expect(p).toMatchObject({ has_more_before: true, has_more_after: false });
      const q = await windowOf(b, friendCid(a), { after_seq: '1000' });
      expect(q.messages).toEqual([]);
      expect(q.has_more_after).toBe(false);
    });

    it('answers a 64-bit-overflowing around_mid as a parameter error or an absent message, never a fault', async () => {
      const response = await messagesRaw(b, { conversation_id: friendCid(a), around_mid: '99999999999999999999' });
      expect({ status: response.status, code: [1004, 1207].includes(response.body.code) ? 'ok' : response.body.code }).toEqual({ status: 200, code: 'ok' });
    });

    const trio = { known_last_seq: '120', known_updated_at: '1', known_deletion_revision: '0' };
    it.each<[string, Record<string, string>]>([
      ['no mode', {}],
      ['only known_last_seq', { known_last_seq: '120' }],
      ['only known_updated_at', { known_updated_at: '1' }],
      ['only known_deletion_revision', { known_deletion_revision: '0' }],
      ['known_last_seq + known_updated_at', { known_last_seq: '120', known_updated_at: '1' }],
      ['known_last_seq + known_deletion_revision', { known_last_seq: '120', known_deletion_revision: '0' }],
      ['known_updated_at + known_deletion_revision', { known_updated_at: '1', known_deletion_revision: '0' }],
      ['trio + before_seq', { ...trio, before_seq: '50' }],
      ['trio + after_seq', { ...trio, after_seq: '50' }],
      ['trio + around_mid', { ...trio, around_mid: '1' }],
      ['before_seq + after_seq', { before_seq: '50', after_seq: '10' }],
      ['before_seq + around_mid', { before_seq: '50', around_mid: '1' }],
      ['after_seq + around_mid', { after_seq: '50', around_mid: '1' }],
      ['all modes', { ...trio, before_seq: '50', after_seq: '10', around_mid: '1' }],
      ['partial trio + before_seq', { known_last_seq: '120', before_seq: '50' }],
      ['partial trio + after_seq', { known_updated_at: '1', after_seq: '50' }],
      ['partial trio + around_mid', { known_deletion_revision: '0', around_mid: '1' }],
      ['before_seq not decimal', { before_seq: 'abc' }],
      ['before_seq negative', { before_seq: '-1' }],
      ['after_seq not decimal', { after_seq: '1e3' }],
      ['around_mid not decimal', { around_mid: 'x' }],
      ['known_last_seq not decimal', { ...trio, known_last_seq: 'abc' }],
      ['known_updated_at not an integer', { ...trio, known_updated_at: '1.5' }],
      ['empty before_seq', { before_seq: '' }],
      ['before_seq beyond 64 bits', { before_seq: '99999999999999999999' }],
      ['after_seq beyond 64 bits', { after_seq: '99999999999999999999' }],
      ['known_last_seq beyond 64 bits', { ...trio, known_last_seq: '99999999999999999999' }],
    ])('refuses %s with 1004', async (_label, query) => {
      fail(await messagesRaw(b, { conversation_id: friendCid(a), ...query }), 1004);
    });

    it('refuses a missing conversation_id with 1004', async () => {
      fail(await messagesRaw(b, { before_seq: '10' }), 1004);
    });

    it('reports read_seq and unread in windows and moves them with reads', async () => {
      const r = await read(b, friendCid(a), '100');
      expect(r).toMatchObject({ read_seq: '100', unread: 20 });
      const w = await windowOf(b, friendCid(a), { before_seq: '10' });
      expect(w).toMatchObject({ read_seq: '100', unread: 20 });
      await expectUnread(b, { [friendCid(a)]: 20 });
      const back = await read(b, friendCid(a), '50');
      expect(back).toMatchObject({ read_seq: '100', unread: 20 });
      await expectUnread(b, { [friendCid(a)]: 20 });
    });

    it('refuses malformed read_seq values with 1004', async () => {
      for (const value of ['abc', '-1', '1.5', '', 5, null, undefined, '121', '99999999999999999999']) {
        fail(await readRaw(b, friendCid(a), value), 1004);
      }
    });
  });

  // =====================================================================================
  describe('GET /app/sdk/messages/search', () => {
    let a: IssuedUser;
    let b: IssuedUser;
    let c: IssuedUser;
    let matches: Msg[];
    beforeAll(async () => {
      ({ a, b } = await pair());
      c = await issueUser(t);
      await seed.friends(a.id, c.id);
      matches = [];
      for (let i = 1; i <= 45; i += 1) {
        const variant = ['Apple pie', 'green APPLE', 'applesauce', 'an aPpLe a day'][i % 4];
        matches.push((await send(i % 2 ? a : b, friendCid(i % 2 ? b : a), `${variant} #${i}`)).message);
        if (i % 5 === 0) await send(a, friendCid(b), 'nothing to see');
      }
      // tombstones are excluded
      await recall(a, friendCid(b), matches[0].mid);
      await remove(b, friendCid(a), matches[1].mid);
      await send(a, friendCid(c), 'apple in another conversation');
    });
    const live = (): Msg[] => matches.slice(2);

    async function collect(u: IssuedUser, cid: string, keyword: string, mode: 'cursor' | 'before_mid'): Promise<{ pages: Msg[][] }> {
      const pages: Msg[][] = [];
      let query: Record<string, string> = { conversation_id: cid, keyword };
      for (let guard = 0; guard < 30; guard += 1) {
        const page = ok<{ items: Msg[]; next_cursor: string | null; has_more: boolean; next_before_mid: string | null }>(await searchRaw(u, query));
        pages.push(page.items);
        if (!page.has_more) {
          expect(page.next_cursor).toBeNull();
          break;
        }
        expect(page.items.length).toBeGreaterThan(0);
        if (mode === 'cursor') {
          expect(typeof page.next_cursor).toBe('string');
          query = { conversation_id: cid, keyword, cursor: page.next_cursor as string };
        } else {
          expect(page.next_before_mid).toBe(page.items[page.items.length - 1].mid);
          query = { conversation_id: cid, keyword, before_mid: page.next_before_mid as string };
        }
      }
      return { pages };
    }

    it('pages through every live match newest first, case-insensitively, with no tombstones (cursor)', async () => {
      const { pages } = await collect(b, friendCid(a), 'apple', 'cursor');
      const items = pages.flat();
      expect(pages.length).toBeGreaterThan(1);
      expect(items.map((m) => m.mid)).toEqual(
        live()
          .map((m) => m.mid)
          .reverse(),
      );
      expect(items.every((m) => m.conversation_id === friendCid(a) && m.status === 'normal' && m.content !== null)).toBe(true);
    });

    it('pages the same way by before_mid', async () => {
      const { pages } = await collect(a, friendCid(b), 'APPLE', 'before_mid');
      const items = pages.flat();
      expect(items.map((m) => m.mid)).toEqual(
        live()
          .map((m) => m.mid)
          .reverse(),
      );
      expect(items.every((m) => m.conversation_id === friendCid(b))).toBe(true);
    });

    it('finds nothing for a keyword that only matches a tombstone or another conversation', async () => {
      const r = ok<{ items: Msg[]; has_more: boolean; next_cursor: string | null }>(await searchRaw(a, { conversation_id: friendCid(b), keyword: 'another conversation' }));
      expect(r).toMatchObject({ items: [], has_more: false, next_cursor: null });
      const r2 = ok<{ items: Msg[] }>(await searchRaw(a, { conversation_id: friendCid(b), keyword: '#1 ' }));
      expect(r2.items).toEqual([]);
    });

    it('treats LIKE wildcards in the keyword literally', async () => {
      const r = ok<{ items: Msg[] }>(await searchRaw(a, { conversation_id: friendCid(b), keyword: '%' }));
      expect(r.items).toEqual([]);
      const r2 = ok<{ items: Msg[] }>(await searchRaw(a, { conversation_id: friendCid(b), keyword: 'a_ple' }));
      expect(r2.items).toEqual([]);
    });

    it('refuses reusing a cursor with another keyword, conversation, account or endpoint (1004)', async () => {
      const first = ok<{ next_cursor: string; has_more: boolean }>(await searchRaw(b, { conversation_id: friendCid(a), keyword: 'apple' }));
      expect(first.has_more).toBe(true);
      const cursor = first.next_cursor;
      fail(await searchRaw(b, { conversation_id: friendCid(a), keyword: 'pie', cursor }), 1004);
      fail(await searchRaw(a, { conversation_id: friendCid(b), keyword: 'apple', cursor }), 1004);
      fail(await searchRaw(a, { conversation_id: friendCid(c), keyword: 'apple', cursor }), 1004);
      fail(await syncRaw(b, { cursor }), 1004);
      const tampered = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA');
      fail(await searchRaw(b, { conversation_id: friendCid(a), keyword: 'apple', cursor: tampered }), 1004);
      fail(await searchRaw(b, { conversation_id: friendCid(a), keyword: 'apple', cursor: 'garbage' }), 1004);
      // the same request with the cursor unchanged still works
      ok(await searchRaw(b, { conversation_id: friendCid(a), keyword: 'apple', cursor }));
    });

    it('refuses page/offset/limit and a missing or blank keyword with 1004', async () => {
      for (const extra of [{ page: '2' }, { offset: '10' }, { limit: '5' }] as Array<Record<string, string>>) {
        fail(await searchRaw(a, { conversation_id: friendCid(b), keyword: 'apple', ...extra }), 1004);
      }
      fail(await searchRaw(a, { conversation_id: friendCid(b) }), 1004);
      fail(await searchRaw(a, { conversation_id: friendCid(b), keyword: '' }), 1004);
      fail(await searchRaw(a, { keyword: 'apple' }), 1004);
    });

    it('is case-insensitive beyond ASCII', async () => {
      const { a: x, b: y } = await pair();
      const m = await send(x, friendCid(y), 'Grüße aus MÜNCHEN, ΣΟΦΙΑ');
      for (const keyword of ['münchen', 'MÜNCHEN', 'grÜße', 'σοφια']) {
        const r = ok<{ items: Msg[] }>(await searchRaw(y, { conversation_id: friendCid(x), keyword }));
        expect({ keyword, mids: r.items.map((i) => i.mid) }).toEqual({ keyword, mids: [m.message.mid] });
      }
    });

    it('does not let the last page of one keyword leak into search results as tombstones after a recall', async () => {
      const { a: x, b: y } = await pair();
      const m1 = await send(x, friendCid(y), 'banana one');
      const m2 = await send(x, friendCid(y), 'banana two');
      await recall(x, friendCid(y), m2.message.mid);
      const r = ok<{ items: Msg[]; has_more: boolean; next_cursor: string | null; next_before_mid: string | null }>(await searchRaw(y, { conversation_id: friendCid(x), keyword: 'banana' }));
      expect(r.items.map((i) => i.mid)).toEqual([m1.message.mid]);
      expect(r).toMatchObject({ has_more: false, next_cursor: null });
    });

    it('a search cursor does not repeat results when new matches arrive between pages', async () => {
      const page1 = ok<{ items: Msg[]; next_cursor: string; has_more: boolean }>(await searchRaw(b, { conversation_id: friendCid(a), keyword: 'apple' }));
      expect(page1.has_more).toBe(true);
      for (let i = 0; i < 3; i += 1) await send(a, friendCid(b), `fresh apple ${i}`);
      const page2 = ok<{ items: Msg[] }>(await searchRaw(b, { conversation_id: friendCid(a), keyword: 'apple', cursor: page1.next_cursor }));
      const first = page1.items.map((m) => m.mid);
      expect(page2.items.map((m) => m.mid).filter((mid) => first.includes(mid))).toEqual([]);
      expect(page2.items[0].mid).toBe(live()[live().length - 1 - page1.items.length].mid);
    });

    it('refuses search by an outsider with 1201', async () => {
      const outsider = await issueUser(t);
      const pub = randomGroupId();
      const owner = await issueUser(t);
      await seed.group(pub, owner.id, []);
      await send(owner, groupCid(pub), 'apple in group');
      fail(await searchRaw(outsider, { conversation_id: groupCid(pub), keyword: 'apple' }), 1201);
    });
  });

  // =====================================================================================
  describe('HTTP conventions on the messaging endpoints', () => {
    it('every reply carries Cache-Control: no-store, success or failure', async () => {
      const { a, b } = await pair();
      const s = await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content: { text: 'cc' } });
      const mid: string = s.body.data.message.mid;
      const replies = [
        s,
        await sendRaw(a, { conversation_id: 'bad', client_message_id: cmid(), type: 'text', content: { text: 'cc' } }),
        await readRaw(b, friendCid(a), '1'),
        await messagesRaw(b, { conversation_id: friendCid(a), after_seq: '0' }),
        await messagesRaw(b, { conversation_id: friendCid(a) }),
        await searchRaw(b, { conversation_id: friendCid(a), keyword: 'cc' }),
        await recallRaw(a, friendCid(b), mid),
        await deleteRaw(a, friendCid(b), mid),
        await syncRaw(a),
        await unreadRaw(a),
      ];
      expect(replies.map((r) => r.headers['cache-control'])).toEqual(replies.map(() => 'no-store'));
    });

    it('refuses a missing token with 1101 and a bad token with 1102 on every messaging endpoint', async () => {
      const calls = [
        () => t.http.post('/app/sdk/messages/send').send({}),
        () => t.http.post('/app/sdk/messages/recall').send({}),
        () => t.http.post('/app/sdk/messages/delete').send({}),
        () => t.http.post('/app/sdk/messages/read').send({}),
        () => t.http.get('/app/sdk/messages').query({ conversation_id: 'x' }),
        () => t.http.get('/app/sdk/messages/search').query({ conversation_id: 'x', keyword: 'y' }),
        () => t.http.post('/app/sdk/sync').send({}),
        () => t.http.get('/app/sdk/unread'),
        () => t.http.post('/app/sdk/conversations/pin').send({}),
      ];
      for (const call of calls) {
        fail(await call(), 1101);
        fail(await call().set('Authorization', 'Bearer not-a-jwt'), 1102);
      }
    });

    it('answers repeated query parameters and non-string body fields with 1004, never a fault', async () => {
      const { a, b } = await pair();
      await send(a, friendCid(b), 'dup');
      const dup = (query: string) => t.http.get(`/app/sdk/messages?${query}`).set(...bearer(b.token));
      const cid = encodeURIComponent(friendCid(a));
      fail(await dup(`conversation_id=${cid}&before_seq=5&before_seq=6`), 1004);
      fail(await dup(`conversation_id=${cid}&conversation_id=${cid}&before_seq=5`), 1004);
      fail(await t.http.get(`/app/sdk/messages/search?conversation_id=${cid}&keyword=a&keyword=b`).set(...bearer(b.token)), 1004);
      fail(await sendRaw(a, { conversation_id: [friendCid(b)], client_message_id: cmid(), type: 'text', content: { text: 'x' } }), 1004);
      fail(await recallRaw(a, friendCid(b), 1 as unknown as string), 1004);
      fail(await t.http.post('/app/sdk/messages/read').set(...bearer(b.token)).send({ conversation_id: { id: 1 }, read_seq: '1' }), 1004);
    });
  });

  // =====================================================================================
  describe('configured recall window', () => {
    let k: TestApp;
    beforeAll(async () => {
      k = await startTestApp({ RECALL_WINDOW_SECONDS: '10' });
    });
    afterAll(() => k.close());

    it('RECALL_WINDOW_SECONDS=10 allows a recall at 9 s and refuses one at 11 s', async () => {
      const a = await issueUser(k);
      const b = await issueUser(k);
      await new Seed(k).friends(a.id, b.id);
      const post = async (text: string) =>
        ok<{ message: Msg }>(await k.http.post('/app/sdk/messages/send').set(...bearer(a.token)).send({ conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content: { text } })).message;
      const m1 = await post('one');
      const m2 = await post('two');
      k.clock.advance(9_000);
      ok(await k.http.post('/app/sdk/messages/recall').set(...bearer(a.token)).send({ conversation_id: friendCid(b), mid: m1.mid }));
      k.clock.advance(2_000);
      fail(await k.http.post('/app/sdk/messages/recall').set(...bearer(a.token)).send({ conversation_id: friendCid(b), mid: m2.mid }), 1208);
    });
  });

  // =====================================================================================
  describe('capabilities closed', () => {
    let k: TestApp;
    beforeAll(async () => {
      k = await startTestApp({ CAPABILITIES_CLOSED: 'search' });
    });
    afterAll(() => k.close());

    it('search answers 1202 and sync reports search:false', async () => {
      const a = await issueUser(k);
      const b = await issueUser(k);
      await new Seed(k).friends(a.id, b.id);
      ok(await k.http.post('/app/sdk/messages/send').set(...bearer(a.token)).send({ conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content: { text: 'apple' } }));
      fail(await k.http.get('/app/sdk/messages/search').set(...bearer(a.token)).query({ conversation_id: friendCid(b), keyword: 'apple' }), 1202);
      const s = ok<{ capabilities: Record<string, boolean> }>(await k.http.post('/app/sdk/sync').set(...bearer(a.token)).send({}));
      expect(s.capabilities).toEqual({ friends: true, groups: true, calls: expect.any(Boolean), search: false, media: expect.any(Boolean) });
    });
  });

  // =====================================================================================
  describe('sequences', () => {
    it('concurrent retries of one client_message_id create exactly one message', async () => {
      const { a, b } = await pair();
      const key = cmid();
      const replies = await Promise.all(range(1, 5).map(() => sendRaw(a, { conversation_id: friendCid(b), client_message_id: key, type: 'text', content: { text: 'race' } })));
      const ok0 = replies.filter((r) => r.body.code === 0).map((r) => r.body.data);
      expect(ok0.length).toBeGreaterThan(0);
      expect(new Set(ok0.map((d) => d.message.mid)).size).toBe(1);
      expect(new Set(ok0.map((d) => d.event_id)).size).toBe(1);
      expect((await latest(b, friendCid(a))).last_seq).toBe('1');
      await expectUnread(b, { [friendCid(a)]: 1 });
    });

    // Kept last in the file: if the service stalls under concurrency, later tests are not affected.
    it('30 concurrent sends from several users get 1..30 with no gap or duplicate, promptly', async () => {
      const owner = await issueUser(t);
      const x = await issueUser(t);
      const y = await issueUser(t);
      const pub = randomGroupId();
      await seed.group(pub, owner.id, [x.id, y.id]);
      const cid = groupCid(pub);
      const senders = [owner, x, y];
      const started = Date.now();
      const replies = await Promise.all(
        range(1, 30).map((i) => sendRaw(senders[i % 3], { conversation_id: cid, client_message_id: cmid(), type: 'text', content: { text: `c${i}` } })),
      );
      const elapsed = Date.now() - started;
      const got = replies.map((r) => ok<{ message: Msg }>(r).message);
      expect(seqs(got).sort((p, q) => p - q)).toEqual(range(1, 30));
      expect(new Set(got.map((m) => m.mid)).size).toBe(30);
      const w = await latest(owner, cid);
      expect(seqs(w.messages)).toEqual(range(1, 30));
      expect(w.last_seq).toBe('30');
      await expectUnread(x, { [cid]: 20 });
      // 30 small inserts must not take anywhere near a lock-wait timeout
      expect({ elapsedMs: elapsed, under15s: elapsed < 15_000 }).toEqual({ elapsedMs: elapsed, under15s: true });
    }, 300_000);
  });
});
