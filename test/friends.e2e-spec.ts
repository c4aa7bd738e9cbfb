// Friends, friend requests and blocks: the life cycle, blocks, validation, idempotency and
// convergence, races, paging and operator settings. SQL reads what no endpoint shows (the
// outbox, friendship, conversation and request rows); Seed writes the one state no endpoint
// can (two requests pending both ways).
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { TestApp, bearer, hostAuth, randomUserId, startTestApp } from './helpers/test-app';
import {
  AcceptReply,
  ApiClient,
  Block,
  BlockReply,
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
} from './helpers/api-client';
import { expectFail, expectOk, recipientIds, storedEvent } from './helpers/assertions';
import { Seed } from './helpers/factories';

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
  let seed: Seed;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    api = new ApiClient(t);
    seed = new Seed(t);
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

  async function requestRows(
    from: IssuedUser,
    to: IssuedUser,
  ): Promise<Array<{ id: string; status: string; pending_key: string | null }>> {
    const rows: Array<{ id: string | number; status: string; pending_key: string | null }> = await db.query(
      'SELECT id, status, pending_key FROM friend_requests WHERE from_user_id = ? AND to_user_id = ? ORDER BY id',
      [from.id, to.id],
    );
    return rows.map((row) => ({ ...row, id: String(row.id) }));
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

  describe('blocks', () => {
    it('blocks and unblocks idempotently, refuses requests either way with 1211 and tells only the blocker', async () => {
      const [alice, dave] = await api.users(2);
      const blocked = expectOk<BlockReply>(await api.raw.block(alice, dave.userId));
      expect(blocked).toEqual({ blocked: true, event_id: expect.any(String) });
      const event = await storedEvent(t, blocked.event_id);
      expect(event.type).toBe('friend.blocked');
      expect([...event.recipients.keys()]).toEqual([alice.id]);
      expect(expectOk<BlockReply>(await api.raw.block(alice, dave.userId))).toEqual({ blocked: true, event_id: null });

      const list = expectOk<Page<Block>>(await api.raw.blocks(alice));
      expect(list).toEqual({
        items: [{ user: userObject(dave), since: expect.any(Number) }],
        next_cursor: null,
        has_more: false,
      });
      expect(expectOk<Page<Block>>(await api.raw.blocks(dave)).items).toEqual([]);

      expectFail(await send(dave, alice), 1211, 'user_id');
      expectFail(await send(alice, dave), 1211, 'user_id');

      const unblocked = expectOk<BlockReply>(await api.raw.unblock(alice, dave.userId));
      expect(unblocked).toEqual({ blocked: false, event_id: expect.any(String) });
      expect((await storedEvent(t, unblocked.event_id)).type).toBe('friend.unblocked');
      expect(expectOk<BlockReply>(await api.raw.unblock(alice, dave.userId))).toEqual({
        blocked: false,
        event_id: null,
      });
      expect(expectOk<Page<Block>>(await api.raw.blocks(alice)).items).toEqual([]);
      expect(expectOk<FriendRequestReply>(await send(dave, alice)).request.status).toBe('pending');
    });

    it('keeps a friendship when blocking, and refuses accepting a request across a block', async () => {
      const [alice, bob, erin] = await api.users(3);
      await api.befriend(alice, bob);
      expectOk<BlockReply>(await api.raw.block(alice, bob.userId));
      expect((await api.friends(alice)).items.map((f) => f.user.user_id)).toEqual([bob.userId]);
      expect(await friendshipRows(alice, bob)).toBe(2);

      const pending = expectOk<FriendRequestReply>(await send(erin, alice)).request;
      expectOk<BlockReply>(await api.raw.block(erin, alice.userId));
      expectFail(await api.raw.acceptRequest(alice, pending.id), 1211, 'id');
      expectOk<BlockReply>(await api.raw.unblock(erin, alice.userId));
      expectOk<AcceptReply>(await api.raw.acceptRequest(alice, pending.id));
    });

    it('refuses yourself (1004) and unknown users (1204)', async () => {
      const alice = await api.user();
      expectFail(await api.raw.block(alice, alice.userId), 1004, 'user_id');
      expectFail(await api.raw.unblock(alice, alice.userId), 1004, 'user_id');
      for (const call of [api.raw.block, api.raw.unblock, api.raw.unfriend])
        expectFail(await call(alice, randomUserId()), 1204, 'user_id');
      expectFail(await api.raw.unfriend(alice, alice.userId), 1004, 'user_id');
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

  describe('idempotency and convergence', () => {
    it('answers a retry with the stored request and no new event; other content under the key is 1004', async () => {
      const [alice, bob, carol] = await api.users(3);
      const key = rid();
      const first = expectOk<FriendRequestReply>(await send(alice, bob, { request_id: key, message: 'hello' }));
      const retry = expectOk<FriendRequestReply>(await send(alice, bob, { request_id: key, message: 'hello' }));
      expect(retry).toEqual({ request: first.request, friend: null, event_id: null });
      expectFail(await send(alice, bob, { request_id: key, message: 'other' }), 1004, 'request_id');
      expectFail(await send(alice, bob, { request_id: key }), 1004, 'request_id');
      expectFail(await send(alice, carol, { request_id: key, message: 'hello' }), 1004, 'request_id');
      expectFail(
        await send(alice, { ...carol, userId: randomUserId() }, { request_id: key, message: 'hello' }),
        1004,
        'request_id',
      );
      // absent, null and "" are the same message
      const quiet = rid();
      const noMessage = expectOk<FriendRequestReply>(await send(alice, carol, { request_id: quiet }));
      expect(
        expectOk<FriendRequestReply>(await send(alice, carol, { request_id: quiet, message: null })).request,
      ).toEqual(noMessage.request);
      expect(
        expectOk<FriendRequestReply>(await send(alice, carol, { request_id: quiet, message: '' })).request,
      ).toEqual(noMessage.request);

      // Settled meanwhile: the retry shows the current state.
      expectOk<AcceptReply>(await api.raw.acceptRequest(bob, first.request.id));
      const late = expectOk<FriendRequestReply>(await send(alice, bob, { request_id: key, message: 'hello' }));
      expect(late.request).toMatchObject({ id: first.request.id, status: 'accepted' });
      expect(late.friend).toEqual({
        user: userObject(bob),
        conversation_id: friendCid(bob),
        since: expect.any(Number),
      });
      expect(late.event_id).toBeNull();
    });

    it('answers the request already pending to the same user instead of a second one', async () => {
      const [alice, bob] = await api.users(2);
      const first = expectOk<FriendRequestReply>(await send(alice, bob, { message: 'first' }));
      const second = expectOk<FriendRequestReply>(await send(alice, bob, { message: 'second' }));
      expect(second).toEqual({ request: first.request, friend: null, event_id: null });
      expect(await requestRows(alice, bob)).toHaveLength(1);
    });

    it('makes users friends when both ask (mutual add), accepting both requests', async () => {
      const [alice, bob] = await api.users(2);
      const bobs = expectOk<FriendRequestReply>(await send(bob, alice)).request;
      const key = rid();
      const alices = expectOk<FriendRequestReply>(await send(alice, bob, { request_id: key }));
      expect(alices).toEqual({
        request: expect.objectContaining({
          request_id: key,
          status: 'accepted',
          from: userObject(alice),
          to: userObject(bob),
        }),
        friend: { user: userObject(bob), conversation_id: friendCid(bob), since: expect.any(Number) },
        event_id: expect.any(String),
      });
      const event = await storedEvent(t, alices.event_id);
      expect(event.type).toBe('friend.added');
      expect(event.payload.request_ids).toEqual([bobs.id, alices.request.id]);
      expect(await requestRows(bob, alice)).toEqual([{ id: bobs.id, status: 'accepted', pending_key: null }]);
      expect(await friendshipRows(alice, bob)).toBe(2);
      expect(await directConversations(alice, bob)).toEqual([{ id: expect.any(String), members: 2 }]);
      expectFail(await api.raw.acceptRequest(alice, bobs.id), 1206);
      expect(expectOk<FriendRequestReply>(await send(alice, bob, { request_id: key }))).toEqual({
        ...alices,
        event_id: null,
        friend: { ...alices.friend },
      });
    });

    it('accepting settles a request pending the other way too; a request left pending among friends converges with 1206', async () => {
      const [alice, bob, carol] = await api.users(3);
      const ab = await seed.pendingRequest(alice.id, bob.id);
      const ba = await seed.pendingRequest(bob.id, alice.id);
      const accepted = expectOk<AcceptReply>(await api.raw.acceptRequest(bob, ab));
      expect((await storedEvent(t, accepted.event_id)).payload.request_ids).toEqual([ab, ba]);
      expect(await requestRows(bob, alice)).toEqual([{ id: ba, status: 'accepted', pending_key: null }]);
      expectFail(await api.raw.acceptRequest(alice, ba), 1206);

      await api.befriend(alice, carol);
      const stray = await seed.pendingRequest(carol.id, alice.id);
      expectFail(await api.raw.acceptRequest(alice, stray), 1206);
      expect((await requestRows(carol, alice)).find((r) => r.id === stray)).toEqual({
        id: stray,
        status: 'accepted',
        pending_key: null,
      });
      const settled: Array<{ event_id: string }> = await db.query(
        "SELECT e.event_id FROM outbox_events e JOIN outbox_recipients r ON r.event_row_id = e.id WHERE e.type = 'friend.request_accepted' AND r.user_id = ?",
        [carol.id],
      );
      expect(settled).toHaveLength(1);
    });
  });

  describe('concurrency', () => {
    it('stores one request for ten parallel identical sends, and one pending request for ten different keys', async () => {
      const [alice, bob, carol] = await api.users(3);
      const key = rid();
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => send(alice, bob, { request_id: key, message: 'race' })),
      );
      const data = replies.map((r) => expectOk<FriendRequestReply>(r));
      expect(new Set(data.map((d) => d.request.id)).size).toBe(1);
      expect(data.filter((d) => d.event_id !== null)).toHaveLength(1);
      expect(await requestRows(alice, bob)).toHaveLength(1);

      const different = (await Promise.all(Array.from({ length: 10 }, () => send(alice, carol)))).map((r) =>
        expectOk<FriendRequestReply>(r),
      );
      expect(new Set(different.map((d) => d.request.id)).size).toBe(1);
      expect(await requestRows(alice, carol)).toHaveLength(1);
    });

    it('makes one friendship and one conversation from ten parallel accepts', async () => {
      const [alice, bob] = await api.users(2);
      const request = expectOk<FriendRequestReply>(await send(alice, bob)).request;
      const replies = await Promise.all(Array.from({ length: 10 }, () => api.raw.acceptRequest(bob, request.id)));
      const codes = replies.map((r) => r.body.code).sort();
      expect(codes).toEqual([0, ...Array(9).fill(1206)]);
      expect(await friendshipRows(alice, bob)).toBe(2);
      expect(await directConversations(alice, bob)).toEqual([{ id: expect.any(String), members: 2 }]);
    });

    it("makes one friendship and one conversation when two users accept each other's requests at once", async () => {
      for (let round = 0; round < 3; round++) {
        const [alice, bob] = await api.users(2);
        const ab = await seed.pendingRequest(alice.id, bob.id);
        const ba = await seed.pendingRequest(bob.id, alice.id);
        const replies = await Promise.all([api.raw.acceptRequest(bob, ab), api.raw.acceptRequest(alice, ba)]);
        expect(replies.map((r) => r.body.code).sort()).toEqual([0, 1206]);
        expect(await friendshipRows(alice, bob)).toBe(2);
        expect(await directConversations(alice, bob)).toEqual([{ id: expect.any(String), members: 2 }]);
        expect([...(await requestRows(alice, bob)), ...(await requestRows(bob, alice))].map((r) => r.status)).toEqual([
          'accepted',
          'accepted',
        ]);
      }
    });

    it('converges when two users send each other requests at once', async () => {
      for (let round = 0; round < 3; round++) {
        const [alice, bob] = await api.users(2);
        const replies = (await Promise.all([send(alice, bob), send(bob, alice)])).map((r) =>
          expectOk<FriendRequestReply>(r),
        );
        // Either the second send saw the first (mutual add) or both are pending; accepting settles both.
        if (replies.every((d) => d.request.status === 'pending')) {
          const first = replies[0].request;
          expectOk<AcceptReply>(await api.raw.acceptRequest(bob, first.id));
        } else {
          expect(replies.map((d) => d.friend === null).sort()).toEqual([false, true]);
        }
        expect(await friendshipRows(alice, bob)).toBe(2);
        expect(await directConversations(alice, bob)).toEqual([{ id: expect.any(String), members: 2 }]);
        expect([...(await requestRows(alice, bob)), ...(await requestRows(bob, alice))].map((r) => r.status)).toEqual([
          'accepted',
          'accepted',
        ]);
      }
    });
  });

  describe('paging', () => {
    let hub: IssuedUser;
    let others: IssuedUser[];
    let requestIds: string[];

    beforeAll(async () => {
      hub = await api.user();
      others = [];
      for (let i = 0; i < 51; i++) others.push(await api.user());
      requestIds = [];
      for (const other of others) requestIds.push(expectOk<FriendRequestReply>(await send(other, hub)).request.id);
    });

    async function readAll<T>(read: (cursor?: string) => Promise<Response>): Promise<{ pages: Array<Page<T>> }> {
      const pages: Array<Page<T>> = [];
      let cursor: string | undefined;
      do {
        const page = expectOk<Page<T>>(await read(cursor));
        pages.push(page);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return { pages };
    }

    it('pages incoming requests newest first past one page, then friends and blocks', async () => {
      const requests = await readAll<FriendRequest>((cursor) => incoming(hub, cursor ? { cursor } : {}));
      expect(requests.pages.map((p) => [p.items.length, p.has_more, p.next_cursor === null])).toEqual([
        [50, true, false],
        [1, false, true],
      ]);
      expect(requests.pages.flatMap((p) => p.items.map((r) => r.id))).toEqual([...requestIds].reverse());

      for (const id of requestIds) expectOk<AcceptReply>(await api.raw.acceptRequest(hub, id));
      const friends = await readAll<Friend>((cursor) => api.raw.friends(hub, cursor ? { cursor } : {}));
      expect(friends.pages.map((p) => p.items.length)).toEqual([50, 1]);
      expect(friends.pages.flatMap((p) => p.items.map((f) => f.user.user_id))).toEqual(
        others.map((o) => o.userId).reverse(),
      );

      for (const other of others) expectOk<BlockReply>(await api.raw.block(hub, other.userId));
      const blocks = await readAll<Block>((cursor) => api.raw.blocks(hub, cursor ? { cursor } : {}));
      expect(blocks.pages.map((p) => p.items.length)).toEqual([50, 1]);
      expect(blocks.pages.flatMap((p) => p.items.map((b) => b.user.user_id))).toEqual(
        others.map((o) => o.userId).reverse(),
      );
    });

    it('refuses a cursor that is tampered with or reused across accounts, endpoints or filters (1004)', async () => {
      const cursor = (await requestPage(incoming(hub))).next_cursor as string;
      expect(cursor).toEqual(expect.any(String));
      const [body, signature] = cursor.split('.');
      const forged = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), k: { id: '999999' } }),
      ).toString('base64url');
      const flipped = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
      for (const bad of [`${forged}.${signature}`, flipped, 'garbage', `${cursor}.x`])
        expectFail(await incoming(hub, { cursor: bad }), 1004, 'cursor');
      expectFail(await incoming(others[0], { cursor }), 1004, 'cursor');
      expectFail(await outgoing(hub, { cursor }), 1004, 'cursor');
      expectFail(await incoming(hub, { cursor, status: 'pending' }), 1004, 'cursor');
      expectFail(await api.raw.friends(hub, { cursor }), 1004, 'cursor');
      expectFail(await api.raw.blocks(hub, { cursor }), 1004, 'cursor');
      expect((await requestPage(incoming(hub, { cursor }))).items).toHaveLength(1);

      const friendsCursor = (await api.friends(hub)).next_cursor as string;
      expectFail(await api.raw.blocks(hub, { cursor: friendsCursor }), 1004, 'cursor');
      expectFail(await incoming(hub, { cursor: friendsCursor }), 1004, 'cursor');
      expect((await api.friends(hub, { cursor: friendsCursor })).items).toHaveLength(1);
    });
  });

  describe('operator settings', () => {
    it('answers 1202 on every friends endpoint when the capability is closed', async () => {
      const closed = await startTestApp({ CAPABILITIES_CLOSED: 'friends' });
      try {
        const c = new ApiClient(closed);
        const [alice, bob] = await c.users(2);
        const calls = [
          c.raw.friendRequest(alice, { user_id: bob.userId, request_id: rid() }),
          c.raw.friendRequests(alice, { direction: 'incoming' }),
          c.raw.acceptRequest(alice, '1'),
          c.raw.rejectRequest(alice, '1'),
          c.raw.friends(alice),
          c.raw.unfriend(alice, bob.userId),
          c.raw.block(alice, bob.userId),
          c.raw.unblock(alice, bob.userId),
          c.raw.blocks(alice),
        ];
        for (const response of await Promise.all(calls)) expectFail(response, 1202);
        // Profiles are not part of the capability.
        expect((await c.raw.me(alice)).body.code).toBe(0);
      } finally {
        await closed.close();
      }
    });

    it('limits friend requests per user (1005) without limiting the other endpoints', async () => {
      const limited = await startTestApp({ RATE_LIMITS: 'friend_request=2/60s' });
      try {
        const c = new ApiClient(limited);
        const [alice, bob, carol, dave] = await c.users(4);
        const sendTo = (from: IssuedUser, to: IssuedUser) =>
          c.raw.friendRequest(from, { user_id: to.userId, request_id: rid() });
        expect(expectOk<FriendRequestReply>(await sendTo(alice, bob)).request.status).toBe('pending');
        expect(expectOk<FriendRequestReply>(await sendTo(alice, carol)).request.status).toBe('pending');
        expectFail(await sendTo(alice, dave), 1005);
        expect(expectOk<FriendRequestReply>(await sendTo(bob, dave)).request.status).toBe('pending');
        expect(await c.friendRequests(alice, 'outgoing')).toHaveLength(2);
        limited.clock.advance(60_000);
        expect(expectOk<FriendRequestReply>(await sendTo(alice, dave)).request.status).toBe('pending');
      } finally {
        await limited.close();
      }
    });
  });
});
