// Friends, friend requests and blocks: the life cycle, blocks, validation, idempotency and
// convergence, races, paging and operator settings. SQL reads what no endpoint shows (the
// outbox, friendship, conversation and request rows); Seed writes the one state no endpoint
// can (two requests pending both ways).
// Black-box tests of friends and friend requests, written from the issue (Friends, Directory
// lists, outbox), the spec (2.1, 2.2, 4, 6, 7) and the documented choices (docs/api.md). Everything
// under test goes through HTTP; SQL is used only to read the outbox and, in one test, to create a
// friendship behind the service's back (docs/api.md: 1206 convergence on accept).
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TestApp, randomUserId, startTestApp } from '../helpers/test-app';
import {
  AcceptReply,
  ApiClient,
  Block,
  BlockReply,
  Body,
  FriendRequestReply,
  IssuedUser,
  Page,
  friendCid,
  UserObj,
  cmid,
} from '../helpers/api-client';
import { expectFail, expectOk, storedEvent, expectEventType } from '../helpers/assertions';

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

  async function friendshipRows(a: IssuedUser, b: IssuedUser): Promise<number> {
    const rows: Array<{ n: number | string }> = await db.query(
      'SELECT COUNT(*) AS n FROM friendships WHERE (user_id = ? AND friend_id = ?) OR (user_id = ? AND friend_id = ?)',
      [a.id, b.id, b.id, a.id],
    );
    return Number(rows[0].n);
  }

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
});

describe('Friends (black box)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  const friendIds = async (u: IssuedUser): Promise<string[]> =>
    (await api.friends(u)).items.map((f) => f.user.user_id).sort();

  describe('block and unblock', () => {
    it('blocking forbids requests both ways (1211), messages both ways (1203), hides my profile (1204) and keeps the friendship', async () => {
      const [a, b] = await api.users(2);
      await api.befriend(a, b);
      const data = expectOk<{ blocked: boolean; event_id: string }>(await api.raw.block(a, b.userId));
      expect(data.blocked).toBe(true);
      await expectEventType(t, data.event_id, 'friend.blocked');
      const again = expectOk<{ blocked: boolean; event_id: string | null }>(await api.raw.block(a, b.userId));
      expect(again).toEqual({ blocked: true, event_id: null });

      const blocks = expectOk<Page<{ user: UserObj; since: number }>>(await api.raw.blocks(a));
      expect(blocks.items.map((x) => x.user.user_id)).toEqual([b.userId]);
      expect(expectOk<Page<unknown>>(await api.raw.blocks(b)).items).toEqual([]);
      expect(await friendIds(a)).toEqual([b.userId]);

      expectFail(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1203,
      );
      expectFail(
        await api.raw.send(b, {
          conversation_id: friendCid(a),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1203,
      );
      expectFail(await api.raw.profile(b, a.userId), 1204);
      expectOk(await api.raw.profile(a, b.userId));

      const un = expectOk<{ blocked: boolean; event_id: string }>(await api.raw.unblock(a, b.userId));
      expect(un.blocked).toBe(false);
      await expectEventType(t, un.event_id, 'friend.unblocked');
      expect(expectOk<{ blocked: boolean; event_id: string | null }>(await api.raw.unblock(a, b.userId))).toEqual({
        blocked: false,
        event_id: null,
      });
      expectOk(
        await api.raw.send(b, {
          conversation_id: friendCid(a),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'back' },
        }),
      );
      expectOk(await api.raw.profile(b, a.userId));
      expect(expectOk<Page<unknown>>(await api.raw.blocks(a)).items).toEqual([]);
    });

    it('a block either way refuses new requests with 1211 and stores none', async () => {
      const [a, b] = await api.users(2);
      expectOk(await api.raw.block(a, b.userId));
      expectFail(await api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() }), 1211);
      expectFail(await api.raw.friendRequest(b, { user_id: a.userId, request_id: rid() }), 1211);
      expect(await api.friendRequests(a, 'incoming')).toEqual([]);
      expect(await api.friendRequests(b, 'incoming')).toEqual([]);
      expectOk(await api.raw.unblock(a, b.userId));
      expectOk(await api.raw.friendRequest(b, { user_id: a.userId, request_id: rid() }));
    });

    it('accepting a pending request across a block is 1211 and makes no friendship', async () => {
      const [a, b] = await api.users(2);
      const { request: r } = await api.friendRequest(a, b);
      expectOk(await api.raw.block(b, a.userId));
      expectFail(await api.raw.acceptRequest(b, r.id), 1211);
      expect(await friendIds(b)).toEqual([]);
      const [c, d] = await api.users(2);
      const { request: r2 } = await api.friendRequest(c, d);
      expectOk(await api.raw.block(c, d.userId)); // the sender blocks after asking
      expectFail(await api.raw.acceptRequest(d, r2.id), 1211);
      expect(await friendIds(d)).toEqual([]);
    });

    it('block of yourself is 1004, of an unknown user 1204, bad user_id 1004', async () => {
      const [a] = await api.users(1);
      expectFail(await api.raw.block(a, a.userId), 1004, 'user_id');
      expectFail(await api.raw.block(a, randomUserId('ghost')), 1204);
      expectFail(await api.raw.block(a, ['x']), 1004, 'user_id');
      expectFail(await api.raw.unblock(a, 5), 1004, 'user_id');
      expect(expectOk<Page<unknown>>(await api.raw.blocks(a)).items).toEqual([]);
    });
  });

  describe('block extras', () => {
    it('unblock of someone not blocked answers blocked false with event_id null', async () => {
      const [a, b] = await api.users(2);
      expect(expectOk<{ blocked: boolean; event_id: string | null }>(await api.raw.unblock(a, b.userId))).toEqual({
        blocked: false,
        event_id: null,
      });
    });

    it('a blocked user cannot find the blocker by username (1204)', async () => {
      const uname = `un${randomBytes(5).toString('hex')}`;
      const a = await api.user({ username: uname });
      const [b] = await api.users(1);
      expectOk(await api.raw.lookup(b, uname));
      expectOk(await api.raw.block(a, b.userId));
      expectFail(await api.raw.lookup(b, uname), 1204);
    });
  });
});
