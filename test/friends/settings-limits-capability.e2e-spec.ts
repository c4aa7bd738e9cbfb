// Friends, friend requests and blocks: the life cycle, blocks, validation, idempotency and
// convergence, races, paging and operator settings. SQL reads what no endpoint shows (the
// outbox, friendship, conversation and request rows); Seed writes the one state no endpoint
// can (two requests pending both ways).
// Black-box tests of friends and friend requests, written from the issue (Friends, Directory
// lists, outbox), the spec (2.1, 2.2, 4, 6, 7) and the documented choices (docs/api.md). Everything
// under test goes through HTTP; SQL is used only to read the outbox and, in one test, to create a
// friendship behind the service's back (docs/api.md: 1206 convergence on accept).
import { randomBytes } from 'node:crypto';
import { TestApp, bearer, startTestApp } from '../helpers/test-app';
import { ApiClient, FriendRequestReply, IssuedUser } from '../helpers/api-client';
import { expectFail, expectOk } from '../helpers/assertions';

const rid = (): string => `fr-${randomBytes(6).toString('hex')}`;

describe('Friends, friend requests and blocks', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

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
        // The limit counts in fixed windows of the clock's minutes: hold the clock inside one, so that
        // these requests cannot straddle a minute's edge on a slow machine.
        limited.clock.set(Math.ceil(limited.clock.now() / 60_000) * 60_000 + 1000);
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

describe('Friends (black box)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe('rate limit', () => {
    let limited: TestApp;
    let limitedApi: ApiClient;
    beforeAll(async () => {
      limited = await startTestApp({
        RATE_LIMITS: 'send=1000/1s,friend_request=3/60s,report=1000/1s,client_error=1000/1s,media_upload=1000/1s',
      });
      limitedApi = new ApiClient(limited);
    });
    afterAll(() => limited.close());

    it('friend requests over the per-user limit answer 1005 and store nothing', async () => {
      const me = await limitedApi.user();
      const targets = await Promise.all(Array.from({ length: 5 }, () => limitedApi.user()));
      // The limit counts in fixed windows of the clock's minutes: hold the clock inside one, so that
      // these requests cannot straddle a minute's edge on a slow machine.
      limited.clock.set(Math.ceil(limited.clock.now() / 60_000) * 60_000 + 1000);
      const codes: number[] = [];
      for (const target of targets)
        codes.push((await limitedApi.raw.friendRequest(me, { user_id: target.userId, request_id: rid() })).body.code);
      expect(codes).toEqual([0, 0, 0, 1005, 1005]);
      const out = await limitedApi.raw.friendRequests(me, { direction: 'outgoing' });
      expect(out.body.data.items).toHaveLength(3);
      // Another user is not limited by me.
      const other = await limitedApi.user();
      expect(
        (await limitedApi.raw.friendRequest(other, { user_id: targets[4].userId, request_id: rid() })).body.code,
      ).toBe(0);
    });
  });

  describe('capability closed', () => {
    let closed: TestApp;
    beforeAll(async () => {
      closed = await startTestApp({ CAPABILITIES_CLOSED: 'friends' });
    });
    afterAll(() => closed.close());

    it('every friends endpoint answers 1202', async () => {
      const [a, b] = await Promise.all([new ApiClient(closed).user(), new ApiClient(closed).user()]);
      const h = bearer(a.token);
      expectFail(
        await closed.http
          .post('/app/sdk/friends/requests')
          .set(...h)
          .send({ user_id: b.userId, request_id: rid() }),
        1202,
      );
      expectFail(
        await closed.http
          .get('/app/sdk/friends/requests')
          .set(...h)
          .query({ direction: 'incoming' }),
        1202,
      );
      expectFail(
        await closed.http
          .post('/app/sdk/friends/requests/accept')
          .set(...h)
          .send({ id: '1' }),
        1202,
      );
      expectFail(
        await closed.http
          .post('/app/sdk/friends/requests/reject')
          .set(...h)
          .send({ id: '1' }),
        1202,
      );
      expectFail(await closed.http.get('/app/sdk/friends').set(...h), 1202);
      expectFail(
        await closed.http
          .post('/app/sdk/friends/delete')
          .set(...h)
          .send({ user_id: b.userId }),
        1202,
      );
      expectFail(
        await closed.http
          .post('/app/sdk/friends/block')
          .set(...h)
          .send({ user_id: b.userId }),
        1202,
      );
      expectFail(
        await closed.http
          .post('/app/sdk/friends/unblock')
          .set(...h)
          .send({ user_id: b.userId }),
        1202,
      );
      expectFail(await closed.http.get('/app/sdk/friends/blocks').set(...h), 1202);
      const sync = expectOk<{ capabilities: Record<string, boolean> }>(
        await closed.http
          .post('/app/sdk/sync')
          .set(...h)
          .send({}),
      );
      expect(sync.capabilities.friends).toBe(false);
    });
  });
});
