import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { TransactionRunner } from '../src/database/transaction-runner';
import { FriendsRepository } from '../src/friends/friends.repository';
import { IssuedUser, TestApp, bearer, hostAuth, issueUser, randomUserId, startTestApp } from './helpers/test-app';

type Body = Record<string, unknown>;

const DEFAULT_AVATAR = 'http://im.test/static/default-avatar.svg';
const friendConversation = (userId: string): string => `friend_${Buffer.from(userId).toString('base64url')}`;
const rid = (): string => `fr-${randomBytes(6).toString('hex')}`;

function expectFailure(response: Response, code: number, field?: string): void {
  expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { code, msg: expect.any(String), data: null } });
  if (field) expect(response.body.msg).toContain(field);
}

/** The data of a successful reply. */
function ok(response: Response) {
  expect({ status: response.status, code: response.body.code, msg: response.body.msg }).toEqual({ status: 200, code: 0, msg: 'ok' });
  return response.body.data;
}

const userObject = (user: IssuedUser) => ({
  id: user.id,
  user_id: user.userId,
  username: '',
  nickname: expect.any(String),
  avatar: DEFAULT_AVATAR,
  signature: '',
  profile_updated_at: expect.any(Number),
});

/** Requests the friends endpoints as one user. */
function client(t: TestApp) {
  return {
    post: (user: IssuedUser, path: string, body: Body) => t.http.post(`/app/sdk/friends${path}`).set(...bearer(user.token)).send(body),
    get: (user: IssuedUser, path: string, query: Record<string, string> = {}) => t.http.get(`/app/sdk/friends${path}`).query(query).set(...bearer(user.token)),
  };
}

describe('Friends, friend requests and blocks', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    api = client(t);
  });
  afterAll(() => t.close());

  const send = (from: IssuedUser, to: IssuedUser, over: Body = {}) => api.post(from, '/requests', { user_id: to.userId, request_id: rid(), ...over });
  const accept = (user: IssuedUser, id: unknown) => api.post(user, '/requests/accept', { id });
  const reject = (user: IssuedUser, id: unknown) => api.post(user, '/requests/reject', { id });
  const incoming = (user: IssuedUser, query: Record<string, string> = {}) => api.get(user, '/requests', { direction: 'incoming', ...query });
  const outgoing = (user: IssuedUser, query: Record<string, string> = {}) => api.get(user, '/requests', { direction: 'outgoing', ...query });
  const friendsOf = (user: IssuedUser, query: Record<string, string> = {}) => api.get(user, '', query);
  const removeFriend = (user: IssuedUser, other: IssuedUser | string) => api.post(user, '/delete', { user_id: typeof other === 'string' ? other : other.userId });
  const block = (user: IssuedUser, other: IssuedUser) => api.post(user, '/block', { user_id: other.userId });
  const unblock = (user: IssuedUser, other: IssuedUser) => api.post(user, '/unblock', { user_id: other.userId });

  async function befriend(a: IssuedUser, b: IssuedUser): Promise<void> {
    const request = ok(await send(a, b)).request;
    ok(await accept(b, request.id));
  }

  /** The recipients of an outbox event, with their private payloads. */
  async function eventOf(eventId: string): Promise<{ type: string; payload: Body; recipients: Map<string, Body | null> }> {
    const rows: Array<{ type: string; payload: string; user_id: string | number; private_payload: string | null }> = await db.query(
      'SELECT e.type, e.payload, r.user_id, r.private_payload FROM outbox_events e JOIN outbox_recipients r ON r.event_row_id = e.id WHERE e.event_id = ?',
      [eventId],
    );
    expect(rows.length).toBeGreaterThan(0);
    return {
      type: rows[0].type,
      payload: JSON.parse(rows[0].payload) as Body,
      recipients: new Map(rows.map((row) => [String(row.user_id), row.private_payload ? (JSON.parse(row.private_payload) as Body) : null])),
    };
  }

  async function friendshipRows(a: IssuedUser, b: IssuedUser): Promise<number> {
    const rows: Array<{ n: number | string }> = await db.query(
      'SELECT COUNT(*) AS n FROM friendships WHERE (user_id = ? AND friend_id = ?) OR (user_id = ? AND friend_id = ?)',
      [a.id, b.id, b.id, a.id],
    );
    return Number(rows[0].n);
  }

  async function directConversations(a: IssuedUser, b: IssuedUser): Promise<Array<{ id: string; members: number }>> {
    const key = BigInt(a.id) < BigInt(b.id) ? `${a.id}:${b.id}` : `${b.id}:${a.id}`;
    const rows: Array<{ id: string | number }> = await db.query('SELECT id FROM conversations WHERE direct_key = ?', [key]);
    const result = [];
    for (const row of rows) {
      const members: Array<{ n: number | string }> = await db.query('SELECT COUNT(*) AS n FROM conversation_members WHERE conversation_id = ?', [row.id]);
      result.push({ id: String(row.id), members: Number(members[0].n) });
    }
    return result;
  }

  async function requestRows(from: IssuedUser, to: IssuedUser): Promise<Array<{ id: string; status: string; pending_key: string | null }>> {
    const rows: Array<{ id: string | number; status: string; pending_key: string | null }> = await db.query(
      'SELECT id, status, pending_key FROM friend_requests WHERE from_user_id = ? AND to_user_id = ? ORDER BY id',
      [from.id, to.id],
    );
    return rows.map((row) => ({ ...row, id: String(row.id) }));
  }

  /** A pending request written as a concurrent request would leave it (the HTTP path accepts crossing requests at once). */
  async function insertPending(from: IssuedUser, to: IssuedUser): Promise<string> {
    const repo = t.app.get(FriendsRepository);
    const request = await t.app
      .get(TransactionRunner)
      .run((manager) => repo.insertRequest(manager, { fromUserId: from.id, toUserId: to.id, requestId: rid(), message: '', status: 'pending', now: t.clock.now() }));
    return request.id;
  }

  describe('the life cycle with three users', () => {
    it('requests, lists both directions, accepts, lists friends, deletes and adds again', async () => {
      const [alice, bob, carol] = [await issueUser(t), await issueUser(t), await issueUser(t)];

      const sent = ok(await send(alice, bob, { message: 'Hi Bob 👋' }));
      expect(sent).toEqual({
        request: {
          id: expect.stringMatching(/^[1-9][0-9]*$/),
          request_id: expect.any(String),
          from: userObject(alice),
          to: userObject(bob),
          message: 'Hi Bob 👋',
          status: 'pending',
          created_at: expect.any(Number),
          updated_at: expect.any(Number),
        },
        friend: null,
        event_id: expect.any(String),
      });
      const created = await eventOf(sent.event_id);
      expect(created.type).toBe('friend.request_created');
      expect([...created.recipients.keys()].sort()).toEqual([alice.id, bob.id].sort());
      expect(created.payload).toEqual({ request: sent.request });

      const bobIncoming = ok(await incoming(bob));
      expect(bobIncoming).toEqual({ items: [sent.request], next_cursor: null, has_more: false });
      expect(ok(await outgoing(alice)).items).toEqual([sent.request]);
      expect(ok(await incoming(alice)).items).toEqual([]);
      expect(ok(await outgoing(bob)).items).toEqual([]);
      expect(ok(await incoming(carol)).items).toEqual([]);
      expect(ok(await incoming(bob, { status: 'pending' })).items).toEqual([sent.request]);
      expect(ok(await incoming(bob, { status: 'accepted' })).items).toEqual([]);

      // Only the addressee can settle a request.
      expectFailure(await accept(carol, sent.request.id), 1205, 'id');
      expectFailure(await accept(alice, sent.request.id), 1205, 'id');
      expectFailure(await reject(carol, sent.request.id), 1205, 'id');

      const accepted = ok(await accept(bob, sent.request.id));
      expect(accepted).toEqual({
        friend: { user: userObject(alice), conversation_id: friendConversation(alice.userId), since: expect.any(Number) },
        event_id: expect.any(String),
      });
      const added = await eventOf(accepted.event_id);
      expect(added.type).toBe('friend.added');
      expect(added.payload).toEqual({ user_ids: [bob.userId, alice.userId], request_ids: [sent.request.id], since: accepted.friend.since });
      // Each side sees the conversation under the other's ID.
      expect(added.recipients.get(bob.id)).toEqual({ friend: accepted.friend });
      expect(added.recipients.get(alice.id)).toEqual({ friend: { user: userObject(bob), conversation_id: friendConversation(bob.userId), since: accepted.friend.since } });
      expect(added.recipients.size).toBe(2);

      expect(await friendshipRows(alice, bob)).toBe(2);
      const conversations = await directConversations(alice, bob);
      expect(conversations).toEqual([{ id: expect.any(String), members: 2 }]);

      expect(ok(await friendsOf(alice))).toEqual({
        items: [{ user: userObject(bob), conversation_id: friendConversation(bob.userId), since: accepted.friend.since }],
        next_cursor: null,
        has_more: false,
      });
      expect(ok(await friendsOf(bob)).items).toEqual([accepted.friend]);
      expect(ok(await friendsOf(carol)).items).toEqual([]);
      expect(ok(await outgoing(alice)).items).toEqual([{ ...sent.request, status: 'accepted', updated_at: expect.any(Number) }]);

      // Settled: a second accept converges on the friendship, reject and new requests do too.
      expectFailure(await accept(bob, sent.request.id), 1206);
      expectFailure(await reject(bob, sent.request.id), 1205, 'id');
      expectFailure(await send(alice, bob), 1206, 'user_id');
      expectFailure(await send(bob, alice), 1206, 'user_id');

      const removed = ok(await removeFriend(alice, bob));
      expect(removed).toEqual({ event_id: expect.any(String) });
      const deleted = await eventOf(removed.event_id);
      expect(deleted.type).toBe('friend.deleted');
      expect(deleted.recipients.get(alice.id)).toEqual({ user_id: bob.userId, conversation_id: friendConversation(bob.userId) });
      expect(deleted.recipients.get(bob.id)).toEqual({ user_id: alice.userId, conversation_id: friendConversation(alice.userId) });
      expect(await friendshipRows(alice, bob)).toBe(0);
      expect(ok(await friendsOf(alice)).items).toEqual([]);
      expect(ok(await friendsOf(bob)).items).toEqual([]);
      expect(await directConversations(alice, bob)).toEqual(conversations); // history stays
      expectFailure(await removeFriend(alice, bob), 1204, 'user_id');
      expectFailure(await removeFriend(bob, alice), 1204, 'user_id');

      // Friends again: the same conversation is reused.
      await befriend(bob, alice);
      expect(await friendshipRows(alice, bob)).toBe(2);
      expect(await directConversations(alice, bob)).toEqual(conversations);
    });

    it('rejects a request: 1205 for anyone else and once settled; the sender may ask again', async () => {
      const [alice, bob, carol] = [await issueUser(t), await issueUser(t), await issueUser(t)];
      const sent = ok(await send(carol, alice)).request;
      expectFailure(await reject(bob, sent.id), 1205, 'id');
      expectFailure(await reject(carol, sent.id), 1205, 'id');

      const rejected = ok(await reject(alice, sent.id));
      expect(rejected).toEqual({ request: { ...sent, status: 'rejected', updated_at: expect.any(Number) }, event_id: expect.any(String) });
      const event = await eventOf(rejected.event_id);
      expect(event.type).toBe('friend.request_rejected');
      expect([...event.recipients.keys()].sort()).toEqual([alice.id, carol.id].sort());

      expectFailure(await reject(alice, sent.id), 1205, 'id');
      expectFailure(await accept(alice, sent.id), 1205, 'id');
      expect(await friendshipRows(alice, carol)).toBe(0);
      expect(ok(await incoming(alice, { status: 'rejected' })).items).toEqual([rejected.request]);

      const again = ok(await send(carol, alice)).request;
      expect(again.id).not.toBe(sent.id);
      expect(again.status).toBe('pending');
      expect(ok(await incoming(alice)).items.map((r: Body) => r.id)).toEqual([again.id, sent.id]);
    });

    it('answers 1205 for requests that do not exist, whatever the ID', async () => {
      const alice = await issueUser(t);
      for (const id of ['1', '9223372036854775807']) {
        expectFailure(await accept(alice, id), 1205, 'id');
        expectFailure(await reject(alice, id), 1205, 'id');
      }
    });
  });

  describe('blocks', () => {
    it('blocks and unblocks idempotently, refuses requests either way with 1211 and tells only the blocker', async () => {
      const [alice, dave] = [await issueUser(t), await issueUser(t)];
      const blocked = ok(await block(alice, dave));
      expect(blocked).toEqual({ blocked: true, event_id: expect.any(String) });
      const event = await eventOf(blocked.event_id);
      expect(event.type).toBe('friend.blocked');
      expect([...event.recipients.keys()]).toEqual([alice.id]);
      expect(ok(await block(alice, dave))).toEqual({ blocked: true, event_id: null });

      const list = ok(await api.get(alice, '/blocks'));
      expect(list).toEqual({ items: [{ user: userObject(dave), since: expect.any(Number) }], next_cursor: null, has_more: false });
      expect(ok(await api.get(dave, '/blocks')).items).toEqual([]);

      expectFailure(await send(dave, alice), 1211, 'user_id');
      expectFailure(await send(alice, dave), 1211, 'user_id');

      const unblocked = ok(await unblock(alice, dave));
      expect(unblocked).toEqual({ blocked: false, event_id: expect.any(String) });
      expect((await eventOf(unblocked.event_id)).type).toBe('friend.unblocked');
      expect(ok(await unblock(alice, dave))).toEqual({ blocked: false, event_id: null });
      expect(ok(await api.get(alice, '/blocks')).items).toEqual([]);
      expect(ok(await send(dave, alice)).request.status).toBe('pending');
    });

    it('keeps a friendship when blocking, and refuses accepting a request across a block', async () => {
      const [alice, bob, erin] = [await issueUser(t), await issueUser(t), await issueUser(t)];
      await befriend(alice, bob);
      ok(await block(alice, bob));
      expect(ok(await friendsOf(alice)).items.map((f: { user: { user_id: string } }) => f.user.user_id)).toEqual([bob.userId]);
      expect(await friendshipRows(alice, bob)).toBe(2);

      const pending = ok(await send(erin, alice)).request;
      ok(await block(erin, alice));
      expectFailure(await accept(alice, pending.id), 1211, 'id');
      ok(await unblock(erin, alice));
      ok(await accept(alice, pending.id));
    });

    it('refuses yourself (1004) and unknown users (1204)', async () => {
      const alice = await issueUser(t);
      expectFailure(await block(alice, alice), 1004, 'user_id');
      expectFailure(await unblock(alice, alice), 1004, 'user_id');
      for (const path of ['/block', '/unblock', '/delete']) expectFailure(await api.post(alice, path, { user_id: randomUserId() }), 1204, 'user_id');
      expectFailure(await removeFriend(alice, alice), 1004, 'user_id');
    });
  });

  describe('validation', () => {
    it('refuses a bad friend request naming the field', async () => {
      const [alice, bob] = [await issueUser(t), await issueUser(t)];
      const cases: Array<[Body, string]> = [
        [{ request_id: rid() }, 'user_id'],
        [{ user_id: 42, request_id: rid() }, 'user_id'],
        [{ user_id: ` ${bob.userId}`, request_id: rid() }, 'user_id'],
        [{ user_id: bob.userId }, 'request_id'],
        [{ user_id: bob.userId, request_id: '' }, 'request_id'],
        [{ user_id: bob.userId, request_id: 'has space' }, 'request_id'],
        [{ user_id: bob.userId, request_id: 'x'.repeat(65) }, 'request_id'],
        [{ user_id: bob.userId, request_id: 7 }, 'request_id'],
        [{ user_id: bob.userId, request_id: rid(), message: 'm'.repeat(256) }, 'message'],
        [{ user_id: bob.userId, request_id: rid(), message: 'line\nbreak' }, 'message'],
        [{ user_id: bob.userId, request_id: rid(), message: ['x'] }, 'message'],
        [{ user_id: alice.userId, request_id: rid() }, 'user_id'],
      ];
      for (const [body, field] of cases) expectFailure(await api.post(alice, '/requests', body), 1004, field);
      expect(ok(await api.post(alice, '/requests', { user_id: bob.userId, request_id: 'a.b_c:d-1', message: '😀'.repeat(255) })).request.message).toBe('😀'.repeat(255));
    });

    it('answers 1204 for an unknown or disabled target', async () => {
      const [alice, bob] = [await issueUser(t), await issueUser(t)];
      expectFailure(await api.post(alice, '/requests', { user_id: randomUserId(), request_id: rid() }), 1204, 'user_id');
      ok(await t.http.post('/app/sdk/users/status').set(...hostAuth()).send({ user_id: bob.userId, disabled: true }));
      expectFailure(await send(alice, bob), 1204, 'user_id');
    });

    it('refuses bad request IDs, directions, statuses and page/offset/limit', async () => {
      const alice = await issueUser(t);
      for (const id of [42, '', '0', '01', '-1', '1.5', 'abc', '99999999999999999999', '9223372036854775808', null]) {
        expectFailure(await accept(alice, id), 1004, 'id');
        expectFailure(await reject(alice, id), 1004, 'id');
      }
      expectFailure(await api.get(alice, '/requests'), 1004, 'direction');
      expectFailure(await api.get(alice, '/requests', { direction: 'sideways' }), 1004, 'direction');
      expectFailure(await api.get(alice, '/requests', { direction: 'incoming', status: 'maybe' }), 1004, 'status');
      expectFailure(await t.http.get('/app/sdk/friends/requests?direction=incoming&direction=outgoing').set(...bearer(alice.token)), 1004, 'direction');
      for (const param of ['page', 'offset', 'limit']) {
        expectFailure(await api.get(alice, '', { [param]: '1' }), 1004, param);
        expectFailure(await api.get(alice, '/blocks', { [param]: '1' }), 1004, param);
        expectFailure(await incoming(alice, { [param]: '10' }), 1004, param);
      }
      for (const path of ['/delete', '/block', '/unblock']) {
        expectFailure(await api.post(alice, path, {}), 1004, 'user_id');
        expectFailure(await api.post(alice, path, { user_id: ['x'] }), 1004, 'user_id');
      }
    });

    it('requires an IM token (1101 / 1102) on every endpoint', async () => {
      const routes: Array<[string, string]> = [
        ['post', '/requests'],
        ['get', '/requests?direction=incoming'],
        ['post', '/requests/accept'],
        ['post', '/requests/reject'],
        ['get', ''],
        ['post', '/delete'],
        ['post', '/block'],
        ['post', '/unblock'],
        ['get', '/blocks'],
      ];
      for (const [method, path] of routes) {
        const url = `/app/sdk/friends${path}`;
        const bare = method === 'get' ? t.http.get(url) : t.http.post(url).send({});
        expectFailure(await bare, 1101);
        const bad = method === 'get' ? t.http.get(url) : t.http.post(url).send({});
        expectFailure(await bad.set(...hostAuth()), 1102);
      }
    });
  });

  describe('idempotency and convergence', () => {
    it('answers a retry with the stored request and no new event; other content under the key is 1004', async () => {
      const [alice, bob, carol] = [await issueUser(t), await issueUser(t), await issueUser(t)];
      const key = rid();
      const first = ok(await send(alice, bob, { request_id: key, message: 'hello' }));
      const retry = ok(await send(alice, bob, { request_id: key, message: 'hello' }));
      expect(retry).toEqual({ request: first.request, friend: null, event_id: null });
      expectFailure(await send(alice, bob, { request_id: key, message: 'other' }), 1004, 'request_id');
      expectFailure(await send(alice, bob, { request_id: key }), 1004, 'request_id');
      expectFailure(await send(alice, carol, { request_id: key, message: 'hello' }), 1004, 'request_id');
      expectFailure(await send(alice, { ...carol, userId: randomUserId() }, { request_id: key, message: 'hello' }), 1004, 'request_id');
      // absent, null and "" are the same message
      const quiet = rid();
      const noMessage = ok(await send(alice, carol, { request_id: quiet }));
      expect(ok(await send(alice, carol, { request_id: quiet, message: null })).request).toEqual(noMessage.request);
      expect(ok(await send(alice, carol, { request_id: quiet, message: '' })).request).toEqual(noMessage.request);

      // Settled meanwhile: the retry shows the current state.
      ok(await accept(bob, first.request.id));
      const late = ok(await send(alice, bob, { request_id: key, message: 'hello' }));
      expect(late.request).toMatchObject({ id: first.request.id, status: 'accepted' });
      expect(late.friend).toEqual({ user: userObject(bob), conversation_id: friendConversation(bob.userId), since: expect.any(Number) });
      expect(late.event_id).toBeNull();
    });

    it('answers the request already pending to the same user instead of a second one', async () => {
      const [alice, bob] = [await issueUser(t), await issueUser(t)];
      const first = ok(await send(alice, bob, { message: 'first' }));
      const second = ok(await send(alice, bob, { message: 'second' }));
      expect(second).toEqual({ request: first.request, friend: null, event_id: null });
      expect(await requestRows(alice, bob)).toHaveLength(1);
    });

    it('makes users friends when both ask (mutual add), accepting both requests', async () => {
      const [alice, bob] = [await issueUser(t), await issueUser(t)];
      const bobs = ok(await send(bob, alice)).request;
      const key = rid();
      const alices = ok(await send(alice, bob, { request_id: key }));
      expect(alices).toEqual({
        request: expect.objectContaining({ request_id: key, status: 'accepted', from: userObject(alice), to: userObject(bob) }),
        friend: { user: userObject(bob), conversation_id: friendConversation(bob.userId), since: expect.any(Number) },
        event_id: expect.any(String),
      });
      const event = await eventOf(alices.event_id);
      expect(event.type).toBe('friend.added');
      expect(event.payload.request_ids).toEqual([bobs.id, alices.request.id]);
      expect(await requestRows(bob, alice)).toEqual([{ id: bobs.id, status: 'accepted', pending_key: null }]);
      expect(await friendshipRows(alice, bob)).toBe(2);
      expect(await directConversations(alice, bob)).toEqual([{ id: expect.any(String), members: 2 }]);
      expectFailure(await accept(alice, bobs.id), 1206);
      expect(ok(await send(alice, bob, { request_id: key }))).toEqual({ ...alices, event_id: null, friend: { ...alices.friend } });
    });

    it('accepting settles a request pending the other way too; a request left pending among friends converges with 1206', async () => {
      const [alice, bob, carol] = [await issueUser(t), await issueUser(t), await issueUser(t)];
      const ab = await insertPending(alice, bob);
      const ba = await insertPending(bob, alice);
      const accepted = ok(await accept(bob, ab));
      expect((await eventOf(accepted.event_id)).payload.request_ids).toEqual([ab, ba]);
      expect(await requestRows(bob, alice)).toEqual([{ id: ba, status: 'accepted', pending_key: null }]);
      expectFailure(await accept(alice, ba), 1206);

      await befriend(alice, carol);
      const stray = await insertPending(carol, alice);
      expectFailure(await accept(alice, stray), 1206);
      expect((await requestRows(carol, alice)).find((r) => r.id === stray)).toEqual({ id: stray, status: 'accepted', pending_key: null });
      const settled: Array<{ event_id: string }> = await db.query(
        "SELECT e.event_id FROM outbox_events e JOIN outbox_recipients r ON r.event_row_id = e.id WHERE e.type = 'friend.request_accepted' AND r.user_id = ?",
        [carol.id],
      );
      expect(settled).toHaveLength(1);
    });
  });

  describe('concurrency', () => {
    it('stores one request for ten parallel identical sends, and one pending request for ten different keys', async () => {
      const [alice, bob, carol] = [await issueUser(t), await issueUser(t), await issueUser(t)];
      const key = rid();
      const replies = await Promise.all(Array.from({ length: 10 }, () => send(alice, bob, { request_id: key, message: 'race' })));
      const data = replies.map(ok);
      expect(new Set(data.map((d) => d.request.id)).size).toBe(1);
      expect(data.filter((d) => d.event_id !== null)).toHaveLength(1);
      expect(await requestRows(alice, bob)).toHaveLength(1);

      const different = (await Promise.all(Array.from({ length: 10 }, () => send(alice, carol)))).map(ok);
      expect(new Set(different.map((d) => d.request.id)).size).toBe(1);
      expect(await requestRows(alice, carol)).toHaveLength(1);
    });

    it('makes one friendship and one conversation from ten parallel accepts', async () => {
      const [alice, bob] = [await issueUser(t), await issueUser(t)];
      const request = ok(await send(alice, bob)).request;
      const replies = await Promise.all(Array.from({ length: 10 }, () => accept(bob, request.id)));
      const codes = replies.map((r) => r.body.code).sort();
      expect(codes).toEqual([0, ...Array(9).fill(1206)]);
      expect(await friendshipRows(alice, bob)).toBe(2);
      expect(await directConversations(alice, bob)).toEqual([{ id: expect.any(String), members: 2 }]);
    });

    it('makes one friendship and one conversation when two users accept each other\'s requests at once', async () => {
      for (let round = 0; round < 3; round++) {
        const [alice, bob] = [await issueUser(t), await issueUser(t)];
        const ab = await insertPending(alice, bob);
        const ba = await insertPending(bob, alice);
        const replies = await Promise.all([accept(bob, ab), accept(alice, ba)]);
        expect(replies.map((r) => r.body.code).sort()).toEqual([0, 1206]);
        expect(await friendshipRows(alice, bob)).toBe(2);
        expect(await directConversations(alice, bob)).toEqual([{ id: expect.any(String), members: 2 }]);
        expect([...(await requestRows(alice, bob)), ...(await requestRows(bob, alice))].map((r) => r.status)).toEqual(['accepted', 'accepted']);
      }
    });

    it('converges when two users send each other requests at once', async () => {
      for (let round = 0; round < 3; round++) {
        const [alice, bob] = [await issueUser(t), await issueUser(t)];
        const replies = (await Promise.all([send(alice, bob), send(bob, alice)])).map(ok);
        // Either the second send saw the first (mutual add) or both are pending; accepting settles both.
        if (replies.every((d) => d.request.status === 'pending')) {
          const first = replies[0].request;
          ok(await accept(bob, first.id));
        } else {
          expect(replies.map((d) => d.friend === null).sort()).toEqual([false, true]);
        }
        expect(await friendshipRows(alice, bob)).toBe(2);
        expect(await directConversations(alice, bob)).toEqual([{ id: expect.any(String), members: 2 }]);
        expect([...(await requestRows(alice, bob)), ...(await requestRows(bob, alice))].map((r) => r.status)).toEqual(['accepted', 'accepted']);
      }
    });
  });

  describe('paging', () => {
    let hub: IssuedUser;
    let others: IssuedUser[];
    let requestIds: string[];

    beforeAll(async () => {
      hub = await issueUser(t);
      others = [];
      for (let i = 0; i < 51; i++) others.push(await issueUser(t));
      requestIds = [];
      for (const other of others) requestIds.push(ok(await send(other, hub)).request.id);
    });

    async function readAll(read: (cursor?: string) => Promise<Response>): Promise<{ pages: Array<{ items: Body[]; next_cursor: string | null; has_more: boolean }> }> {
      const pages = [];
      let cursor: string | undefined;
      do {
        const page = ok(await read(cursor));
        pages.push(page);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return { pages };
    }

    it('pages incoming requests newest first past one page, then friends and blocks', async () => {
      const requests = await readAll((cursor) => incoming(hub, cursor ? { cursor } : {}));
      expect(requests.pages.map((p) => [p.items.length, p.has_more, p.next_cursor === null])).toEqual([
        [50, true, false],
        [1, false, true],
      ]);
      expect(requests.pages.flatMap((p) => p.items.map((r) => r.id))).toEqual([...requestIds].reverse());

      for (const id of requestIds) ok(await accept(hub, id));
      const friends = await readAll((cursor) => friendsOf(hub, cursor ? { cursor } : {}));
      expect(friends.pages.map((p) => p.items.length)).toEqual([50, 1]);
      expect(friends.pages.flatMap((p) => p.items.map((f) => (f.user as { user_id: string }).user_id))).toEqual(others.map((o) => o.userId).reverse());

      for (const other of others) ok(await block(hub, other));
      const blocks = await readAll((cursor) => api.get(hub, '/blocks', cursor ? { cursor } : {}));
      expect(blocks.pages.map((p) => p.items.length)).toEqual([50, 1]);
      expect(blocks.pages.flatMap((p) => p.items.map((b) => (b.user as { user_id: string }).user_id))).toEqual(others.map((o) => o.userId).reverse());
    });

    it('refuses a cursor that is tampered with or reused across accounts, endpoints or filters (1004)', async () => {
      const cursor = ok(await incoming(hub)).next_cursor as string;
      expect(cursor).toEqual(expect.any(String));
      const [body, signature] = cursor.split('.');
      const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), k: { id: '999999' } })).toString('base64url');
      const flipped = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
      for (const bad of [`${forged}.${signature}`, flipped, 'garbage', `${cursor}.x`]) expectFailure(await incoming(hub, { cursor: bad }), 1004, 'cursor');
      expectFailure(await incoming(others[0], { cursor }), 1004, 'cursor');
      expectFailure(await outgoing(hub, { cursor }), 1004, 'cursor');
      expectFailure(await incoming(hub, { cursor, status: 'pending' }), 1004, 'cursor');
      expectFailure(await friendsOf(hub, { cursor }), 1004, 'cursor');
      expectFailure(await api.get(hub, '/blocks', { cursor }), 1004, 'cursor');
      expect(ok(await incoming(hub, { cursor })).items).toHaveLength(1);

      const friendsCursor = ok(await friendsOf(hub)).next_cursor as string;
      expectFailure(await api.get(hub, '/blocks', { cursor: friendsCursor }), 1004, 'cursor');
      expectFailure(await incoming(hub, { cursor: friendsCursor }), 1004, 'cursor');
      expect(ok(await friendsOf(hub, { cursor: friendsCursor })).items).toHaveLength(1);
    });
  });

  describe('operator settings', () => {
    it('answers 1202 on every friends endpoint when the capability is closed', async () => {
      const closed = await startTestApp({ CAPABILITIES_CLOSED: 'friends' });
      try {
        const [alice, bob] = [await issueUser(closed), await issueUser(closed)];
        const c = client(closed);
        const calls = [
          c.post(alice, '/requests', { user_id: bob.userId, request_id: rid() }),
          c.get(alice, '/requests', { direction: 'incoming' }),
          c.post(alice, '/requests/accept', { id: '1' }),
          c.post(alice, '/requests/reject', { id: '1' }),
          c.get(alice, ''),
          c.post(alice, '/delete', { user_id: bob.userId }),
          c.post(alice, '/block', { user_id: bob.userId }),
          c.post(alice, '/unblock', { user_id: bob.userId }),
          c.get(alice, '/blocks'),
        ];
        for (const response of await Promise.all(calls)) expectFailure(response, 1202);
        // Profiles are not part of the capability.
        expect((await closed.http.get('/app/sdk/users/me').set(...bearer(alice.token))).body.code).toBe(0);
      } finally {
        await closed.close();
      }
    });

    it('limits friend requests per user (1005) without limiting the other endpoints', async () => {
      const limited = await startTestApp({ RATE_LIMITS: 'friend_request=2/60s' });
      try {
        const [alice, bob, carol, dave] = [await issueUser(limited), await issueUser(limited), await issueUser(limited), await issueUser(limited)];
        const c = client(limited);
        const sendTo = (from: IssuedUser, to: IssuedUser) => c.post(from, '/requests', { user_id: to.userId, request_id: rid() });
        expect(ok(await sendTo(alice, bob)).request.status).toBe('pending');
        expect(ok(await sendTo(alice, carol)).request.status).toBe('pending');
        expectFailure(await sendTo(alice, dave), 1005);
        expect(ok(await sendTo(bob, dave)).request.status).toBe('pending');
        expect(ok(await c.get(alice, '/requests', { direction: 'outgoing' })).items).toHaveLength(2);
        limited.clock.advance(60_000);
        expect(ok(await sendTo(alice, dave)).request.status).toBe('pending');
      } finally {
        await limited.close();
      }
    });
  });
});
