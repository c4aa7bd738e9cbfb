// Friends, friend requests and blocks: the life cycle, blocks, validation, idempotency and
// convergence, races, paging and operator settings. SQL reads what no endpoint shows (the
// outbox, friendship, conversation and request rows); Seed writes the one state no endpoint
// can (two requests pending both ways).
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TestApp, randomUserId, startTestApp } from '../helpers/test-app';
import { AcceptReply, ApiClient, Body, FriendRequestReply, IssuedUser, friendCid } from '../helpers/api-client';
import { expectFail, expectOk, storedEvent } from '../helpers/assertions';
import { Seed } from '../helpers/factories';

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
});
