// Black-box tests of friends and friend requests, written from the issue (Friends, Directory
// lists, outbox), the spec (2.1, 2.2, 4, 6, 7) and the README's documented choices. Everything
// under test goes through HTTP; SQL is used only to read the outbox and, in one test, to create a
// friendship behind the service's back (the README's 1206 convergence on accept).
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { isDeliveredTo } from '../helpers/outbox';
import { Seed } from '../helpers/seed';
import { IssuedUser, TestApp, bearer, hostAuth, issueUser, randomUserId, startTestApp } from '../helpers/test-app';

type Body = Record<string, unknown>;

interface UserObj {
  id: string;
  user_id: string;
  username: string;
  nickname: string;
  avatar: string;
  signature: string;
  profile_updated_at: number;
}
interface FriendRequest {
  id: string;
  request_id: string;
  from: UserObj;
  to: UserObj;
  message: string;
  status: string;
  created_at: number;
  updated_at: number;
}
interface Friend {
  user: UserObj;
  conversation_id: string;
  since: number;
}
interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

const friendCid = (peer: IssuedUser): string => `friend_${Buffer.from(peer.userId).toString('base64url')}`;
const rid = (): string => `fr-${randomBytes(6).toString('hex')}`;

function ok<T = Body>(response: Response): T {
  expect({ status: response.status, code: response.body?.code, body: response.body }).toMatchObject({ status: 200, code: 0 });
  expect(response.body.msg).toBe('ok');
  expect(response.headers['cache-control']).toBe('no-store');
  return response.body.data as T;
}

function fail(response: Response, code: number, field?: string): void {
  const body = response.body ?? {};
  expect({ status: response.status, code: body.code, data: body.data }).toEqual({ status: 200, code, data: null });
  expect(typeof body.msg).toBe('string');
  if (field) expect(body.msg).toContain(field);
}

describe('Friends (black box)', () => {
  let t: TestApp;
  let db: DataSource;
  let seed: Seed;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    seed = new Seed(t);
  });
  afterAll(() => t.close());

  const users = (n: number): Promise<IssuedUser[]> => Promise.all(Array.from({ length: n }, () => issueUser(t)));
  const sendRaw = (u: IssuedUser, body: Body) => t.http.post('/app/sdk/friends/requests').set(...bearer(u.token)).send(body);
  const acceptRaw = (u: IssuedUser, id: unknown) => t.http.post('/app/sdk/friends/requests/accept').set(...bearer(u.token)).send({ id });
  const rejectRaw = (u: IssuedUser, id: unknown) => t.http.post('/app/sdk/friends/requests/reject').set(...bearer(u.token)).send({ id });
  const listReqRaw = (u: IssuedUser, query: Record<string, string>) => t.http.get('/app/sdk/friends/requests').set(...bearer(u.token)).query(query);
  const friendsRaw = (u: IssuedUser, query: Record<string, string> = {}) => t.http.get('/app/sdk/friends').set(...bearer(u.token)).query(query);
  const deleteRaw = (u: IssuedUser, userId: unknown) => t.http.post('/app/sdk/friends/delete').set(...bearer(u.token)).send({ user_id: userId });
  const blockRaw = (u: IssuedUser, userId: unknown) => t.http.post('/app/sdk/friends/block').set(...bearer(u.token)).send({ user_id: userId });
  const unblockRaw = (u: IssuedUser, userId: unknown) => t.http.post('/app/sdk/friends/unblock').set(...bearer(u.token)).send({ user_id: userId });
  const blocksRaw = (u: IssuedUser, query: Record<string, string> = {}) => t.http.get('/app/sdk/friends/blocks').set(...bearer(u.token)).query(query);
  const profileRaw = (u: IssuedUser, userId: string) => t.http.get('/app/sdk/users/profile').set(...bearer(u.token)).query({ user_id: userId });
  const sendMsgRaw = (u: IssuedUser, conversationId: string, text: string) =>
    t.http
      .post('/app/sdk/messages/send')
      .set(...bearer(u.token))
      .send({ conversation_id: conversationId, client_message_id: `c-${randomBytes(6).toString('hex')}`, type: 'text', content: { text } });

  async function request(from: IssuedUser, to: IssuedUser, message?: string): Promise<{ request: FriendRequest; friend: Friend | null; event_id: string | null }> {
    const body: Body = { user_id: to.userId, request_id: rid() };
    if (message !== undefined) body.message = message;
    return ok(await sendRaw(from, body));
  }
  const incoming = async (u: IssuedUser, status?: string): Promise<FriendRequest[]> =>
    ok<Page<FriendRequest>>(await listReqRaw(u, status ? { direction: 'incoming', status } : { direction: 'incoming' })).items;
  const outgoing = async (u: IssuedUser, status?: string): Promise<FriendRequest[]> =>
    ok<Page<FriendRequest>>(await listReqRaw(u, status ? { direction: 'outgoing', status } : { direction: 'outgoing' })).items;
  const friendsOf = async (u: IssuedUser): Promise<Friend[]> => ok<Page<Friend>>(await friendsRaw(u)).items;
  const friendIds = async (u: IssuedUser): Promise<string[]> => (await friendsOf(u)).map((f) => f.user.user_id).sort();
  async function befriend(a: IssuedUser, b: IssuedUser): Promise<void> {
    const { request: r } = await request(a, b);
    ok(await acceptRaw(b, r.id));
  }
  /** The outbox row of an event_id from a reply: exactly one, of this type. */
  async function expectEvent(eventId: unknown, type: string): Promise<void> {
    expect(typeof eventId).toBe('string');
    const rows: { type: string }[] = await db.query('SELECT type FROM outbox_events WHERE event_id = ?', [eventId]);
    expect(rows.map((r) => r.type)).toEqual([type]);
  }

  describe('sending a request', () => {
    it('stores the request, shows it in both lists and writes friend.request_created', async () => {
      const [a, b] = await users(2);
      const requestId = rid();
      const data = ok<{ request: FriendRequest; friend: Friend | null; event_id: string }>(await sendRaw(a, { user_id: b.userId, request_id: requestId, message: 'Hi, it is A 👋' }));
      expect(data.friend).toBeNull();
      expect(data.request).toMatchObject({ request_id: requestId, message: 'Hi, it is A 👋', status: 'pending' });
      expect(data.request.from.user_id).toBe(a.userId);
      expect(data.request.to.user_id).toBe(b.userId);
      expect(data.request.id).toMatch(/^[1-9][0-9]*$/);
      await expectEvent(data.event_id, 'friend.request_created');

      const inB = await incoming(b);
      expect(inB.map((r) => r.id)).toEqual([data.request.id]);
      expect(inB[0]).toMatchObject({ status: 'pending', message: 'Hi, it is A 👋' });
      expect((await outgoing(a)).map((r) => r.id)).toEqual([data.request.id]);
      expect(await outgoing(b)).toEqual([]);
      expect(await incoming(a)).toEqual([]);
      expect(await incoming(b, 'pending')).toHaveLength(1);
      expect(await incoming(b, 'accepted')).toHaveLength(0);
    });

    it('lists requests newest first', async () => {
      const [target] = await users(1);
      const senders = await users(4);
      const ids: string[] = [];
      for (const sender of senders) {
        ids.push((await request(sender, target)).request.id);
        t.clock.advance(5);
      }
      expect((await incoming(target)).map((r) => r.id)).toEqual([...ids].reverse());
    });

    it('a message that is absent or null is ""', async () => {
      const [a, b, c] = await users(3);
      expect((await request(a, b)).request.message).toBe('');
      expect(ok<{ request: FriendRequest }>(await sendRaw(a, { user_id: c.userId, request_id: rid(), message: null })).request.message).toBe('');
    });

    it('a retry with the same request_id and content answers the stored request with event_id null; other content is 1004', async () => {
      const [a, b, c] = await users(3);
      const requestId = rid();
      const first = ok<{ request: FriendRequest; event_id: string }>(await sendRaw(a, { user_id: b.userId, request_id: requestId, message: 'hello' }));
      const retry = ok<{ request: FriendRequest; event_id: string | null }>(await sendRaw(a, { user_id: b.userId, request_id: requestId, message: 'hello' }));
      expect(retry.request.id).toBe(first.request.id);
      expect(retry.request.created_at).toBe(first.request.created_at);
      expect(retry.event_id).toBeNull();
      fail(await sendRaw(a, { user_id: b.userId, request_id: requestId, message: 'other' }), 1004, 'request_id');
      fail(await sendRaw(a, { user_id: c.userId, request_id: requestId, message: 'hello' }), 1004, 'request_id');
      expect(await incoming(b)).toHaveLength(1);
      expect(await incoming(c)).toEqual([]);
    });

    it('concurrent retries of one request_id store one request', async () => {
      const [a, b] = await users(2);
      const body = { user_id: b.userId, request_id: rid(), message: 'once' };
      const replies = await Promise.all(Array.from({ length: 6 }, () => sendRaw(a, body)));
      const data = replies.map((r) => ok<{ request: FriendRequest; event_id: string | null }>(r));
      expect(new Set(data.map((d) => d.request.id)).size).toBe(1);
      expect(data.filter((d) => d.event_id !== null)).toHaveLength(1);
      expect(await incoming(b)).toHaveLength(1);
    });

    it('a second request with a new key while one is pending answers the pending request', async () => {
      const [a, b] = await users(2);
      const first = await request(a, b, 'one');
      const second = ok<{ request: FriendRequest; event_id: string | null }>(await sendRaw(a, { user_id: b.userId, request_id: rid(), message: 'two' }));
      expect(second.request.id).toBe(first.request.id);
      expect(second.event_id).toBeNull();
      expect(await incoming(b)).toHaveLength(1);
    });

    it.each([
      ['user_id missing', { request_id: 'r1' }, 'user_id'],
      ['user_id a number', { user_id: 12345, request_id: 'r1' }, 'user_id'],
      ['user_id empty', { user_id: '', request_id: 'r1' }, 'user_id'],
      ['user_id 65 chars', { user_id: 'u'.repeat(65), request_id: 'r1' }, 'user_id'],
      ['user_id with edge space', { user_id: ' u_x', request_id: 'r1' }, 'user_id'],
      ['request_id missing', { user_id: 'TARGET' }, 'request_id'],
      ['request_id empty', { user_id: 'TARGET', request_id: '' }, 'request_id'],
      ['request_id 65 chars', { user_id: 'TARGET', request_id: 'r'.repeat(65) }, 'request_id'],
      ['request_id with a space', { user_id: 'TARGET', request_id: 'r 1' }, 'request_id'],
      ['request_id a number', { user_id: 'TARGET', request_id: 7 }, 'request_id'],
      ['request_id an object', { user_id: 'TARGET', request_id: { a: 1 } }, 'request_id'],
      ['message 256 chars', { user_id: 'TARGET', request_id: 'r1', message: 'm'.repeat(256) }, 'message'],
      ['message with a control char', { user_id: 'TARGET', request_id: 'r1', message: 'a\u0007b' }, 'message'],
      ['message an array', { user_id: 'TARGET', request_id: 'r1', message: ['x'] }, 'message'],
    ])('refuses %s with 1004 naming the field, and stores nothing', async (_label, raw, field) => {
      const [a, b] = await users(2);
      const body = JSON.parse(JSON.stringify(raw).replace('TARGET', b.userId)) as Body;
      fail(await sendRaw(a, body), 1004, field);
      expect(await outgoing(a)).toEqual([]);
      expect(await incoming(b)).toEqual([]);
    });

    it('accepts a 255-character message of emoji (code points) and a 64-character request_id', async () => {
      const [a, b] = await users(2);
      const data = ok<{ request: FriendRequest }>(await sendRaw(a, { user_id: b.userId, request_id: `a.b_c:d-${'x'.repeat(56)}`, message: '😀'.repeat(255) }));
      expect(data.request.message).toBe('😀'.repeat(255));
    });

    it('unknown or disabled target is 1204; yourself is 1004; nothing is stored', async () => {
      const [a, b] = await users(2);
      fail(await sendRaw(a, { user_id: randomUserId('nobody'), request_id: rid() }), 1204);
      ok(await t.http.post('/app/sdk/users/status').set(...hostAuth()).send({ user_id: b.userId, disabled: true }));
      fail(await sendRaw(a, { user_id: b.userId, request_id: rid() }), 1204);
      fail(await sendRaw(a, { user_id: a.userId, request_id: rid() }), 1004, 'user_id');
      expect(await outgoing(a)).toEqual([]);
    });

    it('when the target already asked me, my request makes us friends at once (both requests accepted)', async () => {
      const [a, b] = await users(2);
      const fromB = await request(b, a, 'b asks');
      const mine = ok<{ request: FriendRequest; friend: Friend | null; event_id: string }>(await sendRaw(a, { user_id: b.userId, request_id: rid() }));
      expect(mine.friend).not.toBeNull();
      expect(mine.friend!.user.user_id).toBe(b.userId);
      expect(mine.friend!.conversation_id).toBe(friendCid(b));
      expect(typeof mine.event_id).toBe('string');
      expect(await friendIds(a)).toEqual([b.userId]);
      expect(await friendIds(b)).toEqual([a.userId]);
      expect((await outgoing(b)).find((r) => r.id === fromB.request.id)?.status).toBe('accepted');
      expect(await incoming(a, 'pending')).toEqual([]);
      expect(await incoming(b, 'pending')).toEqual([]);
    });

    it('a request to a friend is 1206', async () => {
      const [a, b] = await users(2);
      await befriend(a, b);
      fail(await sendRaw(a, { user_id: b.userId, request_id: rid() }), 1206);
      fail(await sendRaw(b, { user_id: a.userId, request_id: rid() }), 1206);
      expect(await incoming(b, 'pending')).toEqual([]);
    });

    it('requests A→B and B→A at once converge on one friendship without 500s', async () => {
      for (let round = 0; round < 8; round += 1) {
        const [a, b] = await users(2);
        const [ra, rb] = await Promise.all([sendRaw(a, { user_id: b.userId, request_id: rid() }), sendRaw(b, { user_id: a.userId, request_id: rid() })]);
        for (const r of [ra, rb]) {
          expect(r.status).toBe(200);
          expect([0, 1206]).toContain(r.body.code);
        }
        const state = {
          friendsOfA: await friendIds(a),
          friendsOfB: await friendIds(b),
          // Nothing is left pending between the two.
          pendingToA: (await incoming(a, 'pending')).length,
          pendingToB: (await incoming(b, 'pending')).length,
        };
        expect({ round, state, replies: [ra.body, rb.body].map((x) => ({ code: x.code, friend: x.data?.friend ? 'set' : null, status: x.data?.request?.status })) }).toMatchObject({
          state: { friendsOfA: [b.userId], friendsOfB: [a.userId], pendingToA: 0, pendingToB: 0 },
        });
        const conv = ok<{ messages: unknown[] }>(await t.http.get('/app/sdk/messages').set(...bearer(a.token)).query({ conversation_id: friendCid(b), before_seq: '1' }));
        expect(conv.messages).toEqual([]);
      }
    });
  });

    it('several requests A→B with different keys at once leave one pending request', async () => {
      for (let round = 0; round < 3; round += 1) {
        const [a, b] = await users(2);
        const replies = await Promise.all(Array.from({ length: 4 }, () => sendRaw(a, { user_id: b.userId, request_id: rid() })));
        const data = replies.map((r) => ok<{ request: FriendRequest; event_id: string | null }>(r));
        expect(new Set(data.map((d) => d.request.id)).size).toBe(1);
        expect((await incoming(b, 'pending')).length).toBe(1);
      }
    });

    it('a retry of an accepted request_id still answers the stored request (retry is checked first)', async () => {
      const [a, b] = await users(2);
      const requestId = rid();
      const first = ok<{ request: FriendRequest }>(await sendRaw(a, { user_id: b.userId, request_id: requestId, message: 'm' }));
      ok(await acceptRaw(b, first.request.id));
      const retry = ok<{ request: FriendRequest; event_id: string | null }>(await sendRaw(a, { user_id: b.userId, request_id: requestId, message: 'm' }));
      expect(retry.request.id).toBe(first.request.id);
      expect(retry.request.status).toBe('accepted');
      expect(retry.event_id).toBeNull();
    });

    it('a message absent on the retry of a request sent with "" is the same content', async () => {
      const [a, b] = await users(2);
      const requestId = rid();
      const first = ok<{ request: FriendRequest }>(await sendRaw(a, { user_id: b.userId, request_id: requestId, message: '' }));
      const retry = ok<{ request: FriendRequest; event_id: string | null }>(await sendRaw(a, { user_id: b.userId, request_id: requestId }));
      expect(retry.request.id).toBe(first.request.id);
      expect(retry.event_id).toBeNull();
    });

    it('the created event reaches the receiver and not a stranger', async () => {
      const [a, b, c] = await users(3);
      const { event_id: eventId } = await request(a, b);
      const rows: { id: string | number }[] = await db.query('SELECT id FROM outbox_events WHERE event_id = ?', [eventId]);
      expect(await isDeliveredTo(t, rows[0].id, b.id)).toBe(true);
      expect(await isDeliveredTo(t, rows[0].id, c.id)).toBe(false);
    });

  describe('accepting and rejecting', () => {
    it('accept makes both friends, creates the one-to-one conversation and writes an event', async () => {
      const [a, b] = await users(2);
      const { request: r } = await request(a, b, 'hi');
      const data = ok<{ friend: Friend; event_id: string }>(await acceptRaw(b, r.id));
      expect(data.friend.user.user_id).toBe(a.userId);
      expect(data.friend.conversation_id).toBe(friendCid(a));
      expect(typeof data.friend.since).toBe('number');
      expect(typeof data.event_id).toBe('string');
      const rows: { type: string }[] = await db.query('SELECT type FROM outbox_events WHERE event_id = ?', [data.event_id]);
      expect(rows).toHaveLength(1);
      expect(['friend.request_accepted', 'friend.added']).toContain(rows[0].type);

      const fa = await friendsOf(a);
      const fb = await friendsOf(b);
      expect(fa.map((f) => [f.user.user_id, f.conversation_id])).toEqual([[b.userId, friendCid(b)]]);
      expect(fb.map((f) => [f.user.user_id, f.conversation_id])).toEqual([[a.userId, friendCid(a)]]);
      expect((await outgoing(a))[0].status).toBe('accepted');
      expect((await incoming(b, 'accepted')).map((x) => x.id)).toEqual([r.id]);
      expect(await incoming(b, 'pending')).toEqual([]);
      // The shared conversation works both ways.
      const sent = ok<{ message: { conversation_id: string } }>(await sendMsgRaw(a, friendCid(b), 'hello friend'));
      expect(sent.message.conversation_id).toBe(friendCid(b));
      const sync = ok<{ conversations: Page<{ conversation_id: string; unread: number }> }>(await t.http.post('/app/sdk/sync').set(...bearer(b.token)).send({}));
      expect(sync.conversations.items.find((c) => c.conversation_id === friendCid(a))?.unread).toBe(1);
    });

    it('accept by the sender, by a stranger, of an unknown ID, or a second time is refused (1205) and changes nothing', async () => {
      const [a, b, c] = await users(3);
      const { request: r } = await request(a, b);
      fail(await acceptRaw(a, r.id), 1205);
      fail(await acceptRaw(c, r.id), 1205);
      fail(await rejectRaw(a, r.id), 1205);
      fail(await rejectRaw(c, r.id), 1205);
      fail(await acceptRaw(b, '999999999999999'), 1205);
      expect(await friendIds(a)).toEqual([]);
      expect((await incoming(b, 'pending')).map((x) => x.id)).toEqual([r.id]);
      ok(await acceptRaw(b, r.id));
      // No longer pending: 1205 (README) or 1206 (already friends, converging) — never a success with a new event.
      const again = await acceptRaw(b, r.id);
      expect(again.status).toBe(200);
      expect([1205, 1206]).toContain(again.body.code);
      fail(await rejectRaw(b, r.id), 1205);
      expect(await friendIds(b)).toEqual([a.userId]);
    });

    it.each([
      ['missing', undefined],
      ['a number', 12],
      ['not decimal', 'abc'],
      ['zero', '0'],
      ['20 digits', '12345678901234567890'],
      ['negative', '-1'],
    ])('accept/reject with id %s is 1004 naming id', async (_label, id) => {
      const [a, b] = await users(2);
      const { request: r } = await request(a, b);
      fail(await acceptRaw(b, id), 1004, 'id');
      fail(await rejectRaw(b, id), 1004, 'id');
      expect((await incoming(b, 'pending')).map((x) => x.id)).toEqual([r.id]);
    });

    it('reject marks it rejected with an event; it can no longer be accepted; a new request may follow', async () => {
      const [a, b] = await users(2);
      const { request: r } = await request(a, b);
      const data = ok<{ request: FriendRequest; event_id: string }>(await rejectRaw(b, r.id));
      expect(data.request).toMatchObject({ id: r.id, status: 'rejected' });
      await expectEvent(data.event_id, 'friend.request_rejected');
      fail(await acceptRaw(b, r.id), 1205);
      fail(await rejectRaw(b, r.id), 1205);
      expect(await friendIds(a)).toEqual([]);
      expect((await outgoing(a, 'rejected')).map((x) => x.id)).toEqual([r.id]);
      expect(await incoming(b, 'pending')).toEqual([]);
      const next = await request(a, b, 'again');
      expect(next.request.id).not.toBe(r.id);
      expect(next.request.status).toBe('pending');
    });

    it('accepting when already friends is 1206 and marks the request accepted (converging)', async () => {
      const [a, b] = await users(2);
      const { request: r } = await request(a, b);
      await seed.friends(a.id, b.id); // the friendship appeared by another path
      fail(await acceptRaw(b, r.id), 1206);
      expect((await incoming(b)).find((x) => x.id === r.id)?.status).toBe('accepted');
      expect(await friendIds(b)).toEqual([a.userId]);
    });

    it('two accepts at once converge on one friendship; the loser gets 1205 or 1206, never 500', async () => {
      for (let round = 0; round < 4; round += 1) {
        const [a, b] = await users(2);
        const { request: r } = await request(a, b);
        const replies = await Promise.all([acceptRaw(b, r.id), acceptRaw(b, r.id), acceptRaw(b, r.id)]);
        const codes = replies.map((x) => x.body.code as number);
        for (const x of replies) expect(x.status).toBe(200);
        expect(codes.filter((c) => c === 0)).toHaveLength(1);
        for (const c of codes.filter((c) => c !== 0)) expect([1205, 1206]).toContain(c);
        expect(await friendIds(a)).toEqual([b.userId]);
        expect(await friendIds(b)).toEqual([a.userId]);
      }
    });

    it('accept and reject at once: exactly one wins and the state matches it', async () => {
      for (let round = 0; round < 3; round += 1) {
        const [a, b] = await users(2);
        const { request: r } = await request(a, b);
        const [acc, rej] = await Promise.all([acceptRaw(b, r.id), rejectRaw(b, r.id)]);
        expect([acc.status, rej.status]).toEqual([200, 200]);
        const wins = [acc.body.code, rej.body.code].filter((c) => c === 0).length;
        expect(wins).toBe(1);
        const status = (await incoming(b)).find((x) => x.id === r.id)?.status;
        if (acc.body.code === 0) {
          expect(status).toBe('accepted');
          expect(await friendIds(b)).toEqual([a.userId]);
        } else {
          expect(status).toBe('rejected');
          expect(await friendIds(b)).toEqual([]);
        }
      }
    });
  });

  describe('friends list and delete', () => {
    it('delete removes the friendship both ways, writes friend.deleted, keeps history and forbids sending (1203)', async () => {
      const [a, b] = await users(2);
      await befriend(a, b);
      const sent = ok<{ message: { mid: string } }>(await sendMsgRaw(a, friendCid(b), 'before delete'));
      const data = ok<{ event_id: string }>(await deleteRaw(a, b.userId));
      await expectEvent(data.event_id, 'friend.deleted');
      expect(await friendIds(a)).toEqual([]);
      expect(await friendIds(b)).toEqual([]);
      fail(await sendMsgRaw(a, friendCid(b), 'after'), 1203);
      fail(await sendMsgRaw(b, friendCid(a), 'after'), 1203);
      const window = ok<{ messages: { mid: string }[] }>(await t.http.get('/app/sdk/messages').set(...bearer(b.token)).query({ conversation_id: friendCid(a), after_seq: '0' }));
      expect(window.messages.map((m) => m.mid)).toEqual([sent.message.mid]);
      // They may become friends again, and the same conversation continues.
      await befriend(b, a);
      expect(await friendIds(a)).toEqual([b.userId]);
      ok(await sendMsgRaw(a, friendCid(b), 'again'));
    });

    it('lists friends most recent friendship first, each with the conversation ID as I see it', async () => {
      const [me] = await users(1);
      const others = await users(3);
      for (const o of others) {
        await befriend(o, me);
        t.clock.advance(5);
      }
      const list = await friendsOf(me);
      expect(list.map((f) => f.user.user_id)).toEqual(others.map((o) => o.userId).reverse());
      expect(list.map((f) => f.conversation_id)).toEqual(others.map((o) => friendCid(o)).reverse());
      const since = list.map((f) => f.since);
      expect([...since].sort((x, y) => y - x)).toEqual(since);
    });

    it('delete of a non-friend changes nothing and is not a success with an event; bad user_id is 1004', async () => {
      const [a, b] = await users(2);
      const r = await deleteRaw(a, b.userId);
      expect(r.status).toBe(200);
      if (r.body.code === 0) expect(r.body.data.event_id).toBeNull();
      fail(await deleteRaw(a, 42), 1004, 'user_id');
      fail(await deleteRaw(a, undefined), 1004, 'user_id');
      fail(await deleteRaw(a, ''), 1004, 'user_id');
    });
  });

  describe('block and unblock', () => {
    it('blocking forbids requests both ways (1211), messages both ways (1203), hides my profile (1204) and keeps the friendship', async () => {
      const [a, b] = await users(2);
      await befriend(a, b);
      const data = ok<{ blocked: boolean; event_id: string }>(await blockRaw(a, b.userId));
      expect(data.blocked).toBe(true);
      await expectEvent(data.event_id, 'friend.blocked');
      const again = ok<{ blocked: boolean; event_id: string | null }>(await blockRaw(a, b.userId));
      expect(again).toEqual({ blocked: true, event_id: null });

      const blocks = ok<Page<{ user: UserObj; since: number }>>(await blocksRaw(a));
      expect(blocks.items.map((x) => x.user.user_id)).toEqual([b.userId]);
      expect(ok<Page<unknown>>(await blocksRaw(b)).items).toEqual([]);
      expect(await friendIds(a)).toEqual([b.userId]);

      fail(await sendMsgRaw(a, friendCid(b), 'x'), 1203);
      fail(await sendMsgRaw(b, friendCid(a), 'x'), 1203);
      fail(await profileRaw(b, a.userId), 1204);
      ok(await profileRaw(a, b.userId));

      const un = ok<{ blocked: boolean; event_id: string }>(await unblockRaw(a, b.userId));
      expect(un.blocked).toBe(false);
      await expectEvent(un.event_id, 'friend.unblocked');
      expect(ok<{ blocked: boolean; event_id: string | null }>(await unblockRaw(a, b.userId))).toEqual({ blocked: false, event_id: null });
      ok(await sendMsgRaw(b, friendCid(a), 'back'));
      ok(await profileRaw(b, a.userId));
      expect(ok<Page<unknown>>(await blocksRaw(a)).items).toEqual([]);
    });

    it('a block either way refuses new requests with 1211 and stores none', async () => {
      const [a, b] = await users(2);
      ok(await blockRaw(a, b.userId));
      fail(await sendRaw(a, { user_id: b.userId, request_id: rid() }), 1211);
      fail(await sendRaw(b, { user_id: a.userId, request_id: rid() }), 1211);
      expect(await incoming(a)).toEqual([]);
      expect(await incoming(b)).toEqual([]);
      ok(await unblockRaw(a, b.userId));
      ok(await sendRaw(b, { user_id: a.userId, request_id: rid() }));
    });

    it('accepting a pending request across a block is 1211 and makes no friendship', async () => {
      const [a, b] = await users(2);
      const { request: r } = await request(a, b);
      ok(await blockRaw(b, a.userId));
      fail(await acceptRaw(b, r.id), 1211);
      expect(await friendIds(b)).toEqual([]);
      const [c, d] = await users(2);
      const { request: r2 } = await request(c, d);
      ok(await blockRaw(c, d.userId)); // the sender blocks after asking
      fail(await acceptRaw(d, r2.id), 1211);
      expect(await friendIds(d)).toEqual([]);
    });

    it('block of yourself is 1004, of an unknown user 1204, bad user_id 1004', async () => {
      const [a] = await users(1);
      fail(await blockRaw(a, a.userId), 1004, 'user_id');
      fail(await blockRaw(a, randomUserId('ghost')), 1204);
      fail(await blockRaw(a, ['x']), 1004, 'user_id');
      fail(await unblockRaw(a, 5), 1004, 'user_id');
      expect(ok<Page<unknown>>(await blocksRaw(a)).items).toEqual([]);
    });
  });

  describe('block extras', () => {
    it('unblock of someone not blocked answers blocked false with event_id null', async () => {
      const [a, b] = await users(2);
      expect(ok<{ blocked: boolean; event_id: string | null }>(await unblockRaw(a, b.userId))).toEqual({ blocked: false, event_id: null });
    });

    it('a blocked user cannot find the blocker by username (1204)', async () => {
      const uname = `un${randomBytes(5).toString('hex')}`;
      const a = await issueUser(t, { username: uname });
      const [b] = await users(1);
      ok(await t.http.get('/app/sdk/users/lookup').set(...bearer(b.token)).query({ username: uname }));
      ok(await blockRaw(a, b.userId));
      fail(await t.http.get('/app/sdk/users/lookup').set(...bearer(b.token)).query({ username: uname }), 1204);
    });

  });

  describe('directory lists', () => {
    it('incoming requests page by 50 with a signed cursor bound to account, endpoint and filters', async () => {
      const [target, other] = await users(2);
      const senders = await users(53);
      for (let i = 0; i < senders.length; i += 10) await Promise.all(senders.slice(i, i + 10).map((s) => request(s, target)));

      const first = ok<Page<FriendRequest>>(await listReqRaw(target, { direction: 'incoming' }));
      expect(first.items).toHaveLength(50);
      expect(first.has_more).toBe(true);
      expect(typeof first.next_cursor).toBe('string');
      const second = ok<Page<FriendRequest>>(await listReqRaw(target, { direction: 'incoming', cursor: first.next_cursor! }));
      expect(second.items).toHaveLength(3);
      expect(second.has_more).toBe(false);
      expect(second.next_cursor).toBeNull();
      const all = [...first.items, ...second.items].map((r) => r.from.user_id);
      expect(new Set(all).size).toBe(53);
      expect(new Set(all)).toEqual(new Set(senders.map((s) => s.userId)));

      const cursor = first.next_cursor!;
      fail(await listReqRaw(other, { direction: 'incoming', cursor }), 1004, 'cursor');
      fail(await listReqRaw(target, { direction: 'outgoing', cursor }), 1004, 'cursor');
      fail(await listReqRaw(target, { direction: 'incoming', status: 'pending', cursor }), 1004, 'cursor');
      fail(await friendsRaw(target, { cursor }), 1004, 'cursor');
      fail(await blocksRaw(target, { cursor }), 1004, 'cursor');
      fail(await t.http.get('/app/sdk/groups').set(...bearer(target.token)).query({ cursor }), 1004, 'cursor');
      const [payload, sig] = cursor.split('.');
      const tampered = `${payload.slice(0, -2)}${payload.slice(-2) === 'AA' ? 'BB' : 'AA'}.${sig}`;
      fail(await listReqRaw(target, { direction: 'incoming', cursor: tampered }), 1004, 'cursor');
      fail(await listReqRaw(target, { direction: 'incoming', cursor: 'garbage' }), 1004, 'cursor');
      // The cursor of the filtered list works only with the same filter.
      const pending = ok<Page<FriendRequest>>(await listReqRaw(target, { direction: 'incoming', status: 'pending' }));
      expect(pending.has_more).toBe(true);
      ok(await listReqRaw(target, { direction: 'incoming', status: 'pending', cursor: pending.next_cursor! }));
      fail(await listReqRaw(target, { direction: 'incoming', cursor: pending.next_cursor! }), 1004, 'cursor');
    });

    it('friends list pages by 50; the cursor is refused elsewhere', async () => {
      const [me, other] = await users(2);
      const friends = await users(52);
      for (let i = 0; i < friends.length; i += 10) await Promise.all(friends.slice(i, i + 10).map((f) => befriend(f, me)));
      const first = ok<Page<Friend>>(await friendsRaw(me));
      expect(first.items).toHaveLength(50);
      expect(first.has_more).toBe(true);
      const second = ok<Page<Friend>>(await friendsRaw(me, { cursor: first.next_cursor! }));
      expect(second.items).toHaveLength(2);
      expect(second).toMatchObject({ has_more: false, next_cursor: null });
      expect(new Set([...first.items, ...second.items].map((f) => f.user.user_id))).toEqual(new Set(friends.map((f) => f.userId)));
      fail(await friendsRaw(other, { cursor: first.next_cursor! }), 1004, 'cursor');
      fail(await listReqRaw(me, { direction: 'outgoing', cursor: first.next_cursor! }), 1004, 'cursor');
    });

    it.each([
      ['/app/sdk/friends/requests', { direction: 'incoming' }],
      ['/app/sdk/friends', {}],
      ['/app/sdk/friends/blocks', {}],
    ])('%s refuses page, offset and limit with 1004 naming them', async (path, base) => {
      const [a] = await users(1);
      for (const field of ['page', 'offset', 'limit']) fail(await t.http.get(path).set(...bearer(a.token)).query({ ...base, [field]: '1' }), 1004, field);
    });

    it('the requests list needs a valid direction and status', async () => {
      const [a] = await users(1);
      fail(await listReqRaw(a, {}), 1004, 'direction');
      fail(await listReqRaw(a, { direction: 'both' }), 1004, 'direction');
      fail(await listReqRaw(a, { direction: 'incoming', status: 'done' }), 1004, 'status');
    });
  });

  describe('rate limit', () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await startTestApp({ RATE_LIMITS: 'send=1000/1s,friend_request=3/60s,report=1000/1s,client_error=1000/1s,media_upload=1000/1s' });
    });
    afterAll(() => limited.close());

    it('friend requests over the per-user limit answer 1005 and store nothing', async () => {
      const me = await issueUser(limited);
      const targets = await Promise.all(Array.from({ length: 5 }, () => issueUser(limited)));
      const codes: number[] = [];
      for (const target of targets) codes.push((await limited.http.post('/app/sdk/friends/requests').set(...bearer(me.token)).send({ user_id: target.userId, request_id: rid() })).body.code);
      expect(codes).toEqual([0, 0, 0, 1005, 1005]);
      const out = await limited.http.get('/app/sdk/friends/requests').set(...bearer(me.token)).query({ direction: 'outgoing' });
      expect(out.body.data.items).toHaveLength(3);
      // Another user is not limited by me.
      const other = await issueUser(limited);
      expect((await limited.http.post('/app/sdk/friends/requests').set(...bearer(other.token)).send({ user_id: targets[4].userId, request_id: rid() })).body.code).toBe(0);
    });
  });

  describe('capability closed', () => {
    let closed: TestApp;
    beforeAll(async () => {
      closed = await startTestApp({ CAPABILITIES_CLOSED: 'friends' });
    });
    afterAll(() => closed.close());

    it('every friends endpoint answers 1202', async () => {
      const [a, b] = await Promise.all([issueUser(closed), issueUser(closed)]);
      const h = bearer(a.token);
      fail(await closed.http.post('/app/sdk/friends/requests').set(...h).send({ user_id: b.userId, request_id: rid() }), 1202);
      fail(await closed.http.get('/app/sdk/friends/requests').set(...h).query({ direction: 'incoming' }), 1202);
      fail(await closed.http.post('/app/sdk/friends/requests/accept').set(...h).send({ id: '1' }), 1202);
      fail(await closed.http.post('/app/sdk/friends/requests/reject').set(...h).send({ id: '1' }), 1202);
      fail(await closed.http.get('/app/sdk/friends').set(...h), 1202);
      fail(await closed.http.post('/app/sdk/friends/delete').set(...h).send({ user_id: b.userId }), 1202);
      fail(await closed.http.post('/app/sdk/friends/block').set(...h).send({ user_id: b.userId }), 1202);
      fail(await closed.http.post('/app/sdk/friends/unblock').set(...h).send({ user_id: b.userId }), 1202);
      fail(await closed.http.get('/app/sdk/friends/blocks').set(...h), 1202);
      const sync = ok<{ capabilities: Record<string, boolean> }>(await closed.http.post('/app/sdk/sync').set(...h).send({}));
      expect(sync.capabilities.friends).toBe(false);
    });
  });
});
