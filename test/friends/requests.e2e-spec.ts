// Friends, friend requests and blocks: the life cycle, blocks, validation, idempotency and
// convergence, races, paging and operator settings. SQL reads what no endpoint shows (the
// outbox, friendship, conversation and request rows); Seed writes the one state no endpoint
// can (two requests pending both ways).
// Black-box tests of friends and friend requests, written from the issue (Friends, Directory
// lists, outbox), the spec (2.1, 2.2, 4, 6, 7) and the documented choices (docs/api.md). Everything
// under test goes through HTTP; SQL is used only to read the outbox and, in one test, to create a
// friendship behind the service's back (docs/api.md: 1206 convergence on accept).
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { TestApp, bearer, hostAuth, randomUserId, startTestApp } from '../helpers/test-app';
import {
  AcceptReply,
  ApiClient,
  Body,
  EventReply,
  Friend,
  FriendRequest,
  FriendRequestReply,
  IssuedUser,
  Page,
  Query,
  RejectReply,
  friendCid,
} from '../helpers/api-client';
import { expectFail, expectOk, recipientIds, storedEvent, expectEventType } from '../helpers/assertions';
import { isDeliveredTo } from '../helpers/outbox';

const DEFAULT_AVATAR = 'http://im.test/static/default-avatar.svg';
const rid = (): string => `fr-${randomBytes(6).toString('hex')}`;

const userObject = (user: IssuedUser) => ({
  id: user.id,
  user_id: user.userId,
  username: '',
  nickname: expect.any(String),
  avatar: DEFAULT_AVATAR,
  signature: '',
  profile_updated_at: expect.any(Number),
});

describe('Friends, friend requests and blocks', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  /** A friend request with a fresh request_id unless `over` gives one. */
  const send = (from: IssuedUser, to: IssuedUser, over: Body = {}) =>
    api.raw.friendRequest(from, { user_id: to.userId, request_id: rid(), ...over });
  const incoming = (user: IssuedUser, query: Query = {}) =>
    api.raw.friendRequests(user, { direction: 'incoming', ...query });
  const outgoing = (user: IssuedUser, query: Query = {}) =>
    api.raw.friendRequests(user, { direction: 'outgoing', ...query });
  const requestPage = async (response: Response | Promise<Response>): Promise<Page<FriendRequest>> =>
    expectOk<Page<FriendRequest>>(await response);

  async function friendshipRows(a: IssuedUser, b: IssuedUser): Promise<number> {
    const rows: Array<{ n: number | string }> = await db.query(
      'SELECT COUNT(*) AS n FROM friendships WHERE (user_id = ? AND friend_id = ?) OR (user_id = ? AND friend_id = ?)',
      [a.id, b.id, b.id, a.id],
    );
    return Number(rows[0].n);
  }

  async function directConversations(a: IssuedUser, b: IssuedUser): Promise<Array<{ id: string; members: number }>> {
    const key = BigInt(a.id) < BigInt(b.id) ? `${a.id}:${b.id}` : `${b.id}:${a.id}`;
    const rows: Array<{ id: string | number }> = await db.query('SELECT id FROM conversations WHERE direct_key = ?', [
      key,
    ]);
    const result = [];
    for (const row of rows) {
      const members: Array<{ n: number | string }> = await db.query(
        'SELECT COUNT(*) AS n FROM conversation_members WHERE conversation_id = ?',
        [row.id],
      );
      result.push({ id: String(row.id), members: Number(members[0].n) });
    }
    return result;
  }

  describe('the life cycle with three users', () => {
    it('requests, lists both directions, accepts, lists friends, deletes and adds again', async () => {
      const [alice, bob, carol] = await api.users(3);

      const sent = expectOk<FriendRequestReply>(await send(alice, bob, { message: 'Hi Bob 👋' }));
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
      const created = await storedEvent(t, sent.event_id);
      expect(created.type).toBe('friend.request_created');
      expect(recipientIds(created)).toEqual([alice.id, bob.id].sort());
      expect(created.payload).toEqual({ request: sent.request });

      const bobIncoming = await requestPage(incoming(bob));
      expect(bobIncoming).toEqual({ items: [sent.request], next_cursor: null, has_more: false });
      expect((await requestPage(outgoing(alice))).items).toEqual([sent.request]);
      expect((await requestPage(incoming(alice))).items).toEqual([]);
      expect((await requestPage(outgoing(bob))).items).toEqual([]);
      expect((await requestPage(incoming(carol))).items).toEqual([]);
      expect((await requestPage(incoming(bob, { status: 'pending' }))).items).toEqual([sent.request]);
      expect((await requestPage(incoming(bob, { status: 'accepted' }))).items).toEqual([]);

      // Only the addressee can settle a request.
      expectFail(await api.raw.acceptRequest(carol, sent.request.id), 1205, 'id');
      expectFail(await api.raw.acceptRequest(alice, sent.request.id), 1205, 'id');
      expectFail(await api.raw.rejectRequest(carol, sent.request.id), 1205, 'id');

      const accepted = expectOk<AcceptReply>(await api.raw.acceptRequest(bob, sent.request.id));
      expect(accepted).toEqual({
        friend: { user: userObject(alice), conversation_id: friendCid(alice), since: expect.any(Number) },
        event_id: expect.any(String),
      });
      const added = await storedEvent(t, accepted.event_id);
      expect(added.type).toBe('friend.added');
      expect(added.payload).toEqual({
        user_ids: [bob.userId, alice.userId],
        request_ids: [sent.request.id],
        since: accepted.friend.since,
      });
      // Each side sees the conversation under the other's ID.
      expect(added.recipients.get(bob.id)).toEqual({ friend: accepted.friend });
      expect(added.recipients.get(alice.id)).toEqual({
        friend: { user: userObject(bob), conversation_id: friendCid(bob), since: accepted.friend.since },
      });
      expect(added.recipients.size).toBe(2);

      expect(await friendshipRows(alice, bob)).toBe(2);
      const conversations = await directConversations(alice, bob);
      expect(conversations).toEqual([{ id: expect.any(String), members: 2 }]);

      expect(await api.friends(alice)).toEqual({
        items: [{ user: userObject(bob), conversation_id: friendCid(bob), since: accepted.friend.since }],
        next_cursor: null,
        has_more: false,
      });
      expect((await api.friends(bob)).items).toEqual([accepted.friend]);
      expect((await api.friends(carol)).items).toEqual([]);
      expect((await requestPage(outgoing(alice))).items).toEqual([
        { ...sent.request, status: 'accepted', updated_at: expect.any(Number) },
      ]);

      // Settled: a second accept converges on the friendship, reject and new requests do too.
      expectFail(await api.raw.acceptRequest(bob, sent.request.id), 1206);
      expectFail(await api.raw.rejectRequest(bob, sent.request.id), 1205, 'id');
      expectFail(await send(alice, bob), 1206, 'user_id');
      expectFail(await send(bob, alice), 1206, 'user_id');

      const removed = expectOk<EventReply>(await api.raw.unfriend(alice, bob.userId));
      expect(removed).toEqual({ event_id: expect.any(String) });
      const deleted = await storedEvent(t, removed.event_id);
      expect(deleted.type).toBe('friend.deleted');
      expect(deleted.recipients.get(alice.id)).toEqual({ user_id: bob.userId, conversation_id: friendCid(bob) });
      expect(deleted.recipients.get(bob.id)).toEqual({ user_id: alice.userId, conversation_id: friendCid(alice) });
      expect(await friendshipRows(alice, bob)).toBe(0);
      expect((await api.friends(alice)).items).toEqual([]);
      expect((await api.friends(bob)).items).toEqual([]);
      expect(await directConversations(alice, bob)).toEqual(conversations); // history stays
      expectFail(await api.raw.unfriend(alice, bob.userId), 1204, 'user_id');
      expectFail(await api.raw.unfriend(bob, alice.userId), 1204, 'user_id');

      // Friends again: the same conversation is reused.
      await api.befriend(bob, alice);
      expect(await friendshipRows(alice, bob)).toBe(2);
      expect(await directConversations(alice, bob)).toEqual(conversations);
    });

    it('rejects a request: 1205 for anyone else and once settled; the sender may ask again', async () => {
      const [alice, bob, carol] = await api.users(3);
      const sent = expectOk<FriendRequestReply>(await send(carol, alice)).request;
      expectFail(await api.raw.rejectRequest(bob, sent.id), 1205, 'id');
      expectFail(await api.raw.rejectRequest(carol, sent.id), 1205, 'id');

      const rejected = expectOk<RejectReply>(await api.raw.rejectRequest(alice, sent.id));
      expect(rejected).toEqual({
        request: { ...sent, status: 'rejected', updated_at: expect.any(Number) },
        event_id: expect.any(String),
      });
      const event = await storedEvent(t, rejected.event_id);
      expect(event.type).toBe('friend.request_rejected');
      expect(recipientIds(event)).toEqual([alice.id, carol.id].sort());

      expectFail(await api.raw.rejectRequest(alice, sent.id), 1205, 'id');
      expectFail(await api.raw.acceptRequest(alice, sent.id), 1205, 'id');
      expect(await friendshipRows(alice, carol)).toBe(0);
      expect((await requestPage(incoming(alice, { status: 'rejected' }))).items).toEqual([rejected.request]);

      const again = expectOk<FriendRequestReply>(await send(carol, alice)).request;
      expect(again.id).not.toBe(sent.id);
      expect(again.status).toBe('pending');
      expect((await requestPage(incoming(alice))).items.map((r) => r.id)).toEqual([again.id, sent.id]);
    });

    it('answers 1205 for requests that do not exist, whatever the ID', async () => {
      const alice = await api.user();
      for (const id of ['1', '9223372036854775807']) {
        expectFail(await api.raw.acceptRequest(alice, id), 1205, 'id');
        expectFail(await api.raw.rejectRequest(alice, id), 1205, 'id');
      }
    });
  });

  describe('validation', () => {
    it('refuses a bad friend request naming the field', async () => {
      const [alice, bob] = await api.users(2);
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
      for (const [body, field] of cases) expectFail(await api.raw.friendRequest(alice, body), 1004, field);
      expect(
        expectOk<FriendRequestReply>(
          await api.raw.friendRequest(alice, {
            user_id: bob.userId,
            request_id: 'a.b_c:d-1',
            message: '😀'.repeat(255),
          }),
        ).request.message,
      ).toBe('😀'.repeat(255));
    });

    it('answers 1204 for an unknown or disabled target', async () => {
      const [alice, bob] = await api.users(2);
      expectFail(await api.raw.friendRequest(alice, { user_id: randomUserId(), request_id: rid() }), 1204, 'user_id');
      expectOk(await api.raw.userStatus(bob.userId, true));
      expectFail(await send(alice, bob), 1204, 'user_id');
    });

    it('refuses bad request IDs, directions, statuses and page/offset/limit', async () => {
      const alice = await api.user();
      for (const id of [42, '', '0', '01', '-1', '1.5', 'abc', '99999999999999999999', '9223372036854775808', null]) {
        expectFail(await api.raw.acceptRequest(alice, id), 1004, 'id');
        expectFail(await api.raw.rejectRequest(alice, id), 1004, 'id');
      }
      expectFail(await api.raw.friendRequests(alice, {}), 1004, 'direction');
      expectFail(await api.raw.friendRequests(alice, { direction: 'sideways' }), 1004, 'direction');
      expectFail(await api.raw.friendRequests(alice, { direction: 'incoming', status: 'maybe' }), 1004, 'status');
      expectFail(
        await t.http.get('/app/sdk/friends/requests?direction=incoming&direction=outgoing').set(...bearer(alice.token)),
        1004,
        'direction',
      );
      for (const param of ['page', 'offset', 'limit']) {
        expectFail(await api.raw.friends(alice, { [param]: '1' }), 1004, param);
        expectFail(await api.raw.blocks(alice, { [param]: '1' }), 1004, param);
        expectFail(await incoming(alice, { [param]: '10' }), 1004, param);
      }
      for (const call of [api.raw.unfriend, api.raw.block, api.raw.unblock]) {
        expectFail(await call(alice, undefined), 1004, 'user_id'); // {} on the wire
        expectFail(await call(alice, ['x']), 1004, 'user_id');
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
        expectFail(await bare, 1101);
        const bad = method === 'get' ? t.http.get(url) : t.http.post(url).send({});
        expectFail(await bad.set(...hostAuth()), 1102);
      }
    });
  });
});

describe('Friends (black box)', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  const friendIds = async (u: IssuedUser): Promise<string[]> =>
    (await api.friends(u)).items.map((f) => f.user.user_id).sort();

  describe('sending a request', () => {
    it('stores the request, shows it in both lists and writes friend.request_created', async () => {
      const [a, b] = await api.users(2);
      const requestId = rid();
      const data = expectOk<{ request: FriendRequest; friend: Friend | null; event_id: string }>(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'Hi, it is A 👋' }),
      );
      expect(data.friend).toBeNull();
      expect(data.request).toMatchObject({ request_id: requestId, message: 'Hi, it is A 👋', status: 'pending' });
      expect(data.request.from.user_id).toBe(a.userId);
      expect(data.request.to.user_id).toBe(b.userId);
      expect(data.request.id).toMatch(/^[1-9][0-9]*$/);
      await expectEventType(t, data.event_id, 'friend.request_created');

      const inB = await api.friendRequests(b, 'incoming');
      expect(inB.map((r) => r.id)).toEqual([data.request.id]);
      expect(inB[0]).toMatchObject({ status: 'pending', message: 'Hi, it is A 👋' });
      expect((await api.friendRequests(a, 'outgoing')).map((r) => r.id)).toEqual([data.request.id]);
      expect(await api.friendRequests(b, 'outgoing')).toEqual([]);
      expect(await api.friendRequests(a, 'incoming')).toEqual([]);
      expect(await api.friendRequests(b, 'incoming', 'pending')).toHaveLength(1);
      expect(await api.friendRequests(b, 'incoming', 'accepted')).toHaveLength(0);
    });

    it('lists requests newest first', async () => {
      const [target] = await api.users(1);
      const senders = await api.users(4);
      const ids: string[] = [];
      for (const sender of senders) {
        ids.push((await api.friendRequest(sender, target)).request.id);
        t.clock.advance(5);
      }
      expect((await api.friendRequests(target, 'incoming')).map((r) => r.id)).toEqual([...ids].reverse());
    });

    it('a message that is absent or null is ""', async () => {
      const [a, b, c] = await api.users(3);
      expect((await api.friendRequest(a, b)).request.message).toBe('');
      expect(
        expectOk<{ request: FriendRequest }>(
          await api.raw.friendRequest(a, { user_id: c.userId, request_id: rid(), message: null }),
        ).request.message,
      ).toBe('');
    });

    it('a retry with the same request_id and content answers the stored request with event_id null; other content is 1004', async () => {
      const [a, b, c] = await api.users(3);
      const requestId = rid();
      const first = expectOk<{ request: FriendRequest; event_id: string }>(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'hello' }),
      );
      const retry = expectOk<{ request: FriendRequest; event_id: string | null }>(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'hello' }),
      );
      expect(retry.request.id).toBe(first.request.id);
      expect(retry.request.created_at).toBe(first.request.created_at);
      expect(retry.event_id).toBeNull();
      expectFail(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'other' }),
        1004,
        'request_id',
      );
      expectFail(
        await api.raw.friendRequest(a, { user_id: c.userId, request_id: requestId, message: 'hello' }),
        1004,
        'request_id',
      );
      expect(await api.friendRequests(b, 'incoming')).toHaveLength(1);
      expect(await api.friendRequests(c, 'incoming')).toEqual([]);
    });

    it('concurrent retries of one request_id store one request', async () => {
      const [a, b] = await api.users(2);
      const body = { user_id: b.userId, request_id: rid(), message: 'once' };
      const replies = await Promise.all(Array.from({ length: 6 }, () => api.raw.friendRequest(a, body)));
      const data = replies.map((r) => expectOk<{ request: FriendRequest; event_id: string | null }>(r));
      expect(new Set(data.map((d) => d.request.id)).size).toBe(1);
      expect(data.filter((d) => d.event_id !== null)).toHaveLength(1);
      expect(await api.friendRequests(b, 'incoming')).toHaveLength(1);
    });

    it('a second request with a new key while one is pending answers the pending request', async () => {
      const [a, b] = await api.users(2);
      const first = await api.friendRequest(a, b, { message: 'one' });
      const second = expectOk<{ request: FriendRequest; event_id: string | null }>(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: rid(), message: 'two' }),
      );
      expect(second.request.id).toBe(first.request.id);
      expect(second.event_id).toBeNull();
      expect(await api.friendRequests(b, 'incoming')).toHaveLength(1);
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
      const [a, b] = await api.users(2);
      const body = JSON.parse(JSON.stringify(raw).replace('TARGET', b.userId)) as Body;
      expectFail(await api.raw.friendRequest(a, body), 1004, field);
      expect(await api.friendRequests(a, 'outgoing')).toEqual([]);
      expect(await api.friendRequests(b, 'incoming')).toEqual([]);
    });

    it('accepts a 255-character message of emoji (code points) and a 64-character request_id', async () => {
      const [a, b] = await api.users(2);
      const data = expectOk<{ request: FriendRequest }>(
        await api.raw.friendRequest(a, {
          user_id: b.userId,
          request_id: `a.b_c:d-${'x'.repeat(56)}`,
          message: '😀'.repeat(255),
        }),
      );
      expect(data.request.message).toBe('😀'.repeat(255));
    });

    it('unknown or disabled target is 1204; yourself is 1004; nothing is stored', async () => {
      const [a, b] = await api.users(2);
      expectFail(await api.raw.friendRequest(a, { user_id: randomUserId('nobody'), request_id: rid() }), 1204);
      expectOk(await api.raw.userStatus(b.userId, true));
      expectFail(await api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() }), 1204);
      expectFail(await api.raw.friendRequest(a, { user_id: a.userId, request_id: rid() }), 1004, 'user_id');
      expect(await api.friendRequests(a, 'outgoing')).toEqual([]);
    });

    it('when the target already asked me, my request makes us friends at once (both requests accepted)', async () => {
      const [a, b] = await api.users(2);
      const fromB = await api.friendRequest(b, a, { message: 'b asks' });
      const mine = expectOk<{ request: FriendRequest; friend: Friend | null; event_id: string }>(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() }),
      );
      expect(mine.friend).not.toBeNull();
      expect(mine.friend!.user.user_id).toBe(b.userId);
      expect(mine.friend!.conversation_id).toBe(friendCid(b));
      expect(typeof mine.event_id).toBe('string');
      expect(await friendIds(a)).toEqual([b.userId]);
      expect(await friendIds(b)).toEqual([a.userId]);
      expect((await api.friendRequests(b, 'outgoing')).find((r) => r.id === fromB.request.id)?.status).toBe('accepted');
      expect(await api.friendRequests(a, 'incoming', 'pending')).toEqual([]);
      expect(await api.friendRequests(b, 'incoming', 'pending')).toEqual([]);
    });

    it('a request to a friend is 1206', async () => {
      const [a, b] = await api.users(2);
      await api.befriend(a, b);
      expectFail(await api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() }), 1206);
      expectFail(await api.raw.friendRequest(b, { user_id: a.userId, request_id: rid() }), 1206);
      expect(await api.friendRequests(b, 'incoming', 'pending')).toEqual([]);
    });

    it('requests A→B and B→A at once converge on one friendship without 500s', async () => {
      for (let round = 0; round < 8; round += 1) {
        const [a, b] = await api.users(2);
        const [ra, rb] = await Promise.all([
          api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() }),
          api.raw.friendRequest(b, { user_id: a.userId, request_id: rid() }),
        ]);
        for (const r of [ra, rb]) {
          expect(r.status).toBe(200);
          expect([0, 1206]).toContain(r.body.code);
        }
        const state = {
          friendsOfA: await friendIds(a),
          friendsOfB: await friendIds(b),
          // Nothing is left pending between the two.
          pendingToA: (await api.friendRequests(a, 'incoming', 'pending')).length,
          pendingToB: (await api.friendRequests(b, 'incoming', 'pending')).length,
        };
        expect({
          round,
          state,
          replies: [ra.body, rb.body].map((x) => ({
            code: x.code,
            friend: x.data?.friend ? 'set' : null,
            status: x.data?.request?.status,
          })),
        }).toMatchObject({
          state: { friendsOfA: [b.userId], friendsOfB: [a.userId], pendingToA: 0, pendingToB: 0 },
        });
        const conv = expectOk<{ messages: unknown[] }>(
          await api.raw.messages(a, { conversation_id: friendCid(b), before_seq: '1' }),
        );
        expect(conv.messages).toEqual([]);
      }
    });
  });

  it('several requests A→B with different keys at once leave one pending request', async () => {
    for (let round = 0; round < 3; round += 1) {
      const [a, b] = await api.users(2);
      const replies = await Promise.all(
        Array.from({ length: 4 }, () => api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() })),
      );
      const data = replies.map((r) => expectOk<{ request: FriendRequest; event_id: string | null }>(r));
      expect(new Set(data.map((d) => d.request.id)).size).toBe(1);
      expect((await api.friendRequests(b, 'incoming', 'pending')).length).toBe(1);
    }
  });

  it('a retry of an accepted request_id still answers the stored request (retry is checked first)', async () => {
    const [a, b] = await api.users(2);
    const requestId = rid();
    const first = expectOk<{ request: FriendRequest }>(
      await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'm' }),
    );
    expectOk(await api.raw.acceptRequest(b, first.request.id));
    const retry = expectOk<{ request: FriendRequest; event_id: string | null }>(
      await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'm' }),
    );
    expect(retry.request.id).toBe(first.request.id);
    expect(retry.request.status).toBe('accepted');
    expect(retry.event_id).toBeNull();
  });

  it('a message absent on the retry of a request sent with "" is the same content', async () => {
    const [a, b] = await api.users(2);
    const requestId = rid();
    const first = expectOk<{ request: FriendRequest }>(
      await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: '' }),
    );
    const retry = expectOk<{ request: FriendRequest; event_id: string | null }>(
      await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId }),
    );
    expect(retry.request.id).toBe(first.request.id);
    expect(retry.event_id).toBeNull();
  });

  it('the created event reaches the receiver and not a stranger', async () => {
    const [a, b, c] = await api.users(3);
    const { event_id: eventId } = await api.friendRequest(a, b);
    const rows: { id: string | number }[] = await db.query('SELECT id FROM outbox_events WHERE event_id = ?', [
      eventId,
    ]);
    expect(await isDeliveredTo(t, rows[0].id, b.id)).toBe(true);
    expect(await isDeliveredTo(t, rows[0].id, c.id)).toBe(false);
  });
});
